// app/migrate_command.h
//
// `tessera migrate`: moves objects, or a whole project, from one running server to another with
// the migration REST API (app/migration_client.h), and `tessera migrate undo` takes an import
// back. Both servers must share their package location (`--packages-dir`).
//
// Contract:
//   - Migrate logs in to both servers, creates the package on the source, prints what its import
//     would change in the target project -- per conflict rule, how many objects would be
//     created, replaced, kept, deleted... -- and, unless `dry_run`, imports it with an undo
//     package and prints the migration id and how to undo it. A dry run, or a preview that shows
//     the import would fail, deletes the package from the source again: the target is never
//     written. Progress bars go to stderr, results to stdout.
//   - UndoMigration undoes an import on its target, named by migration id or import id.
//   - Both return 0 on success; failures throw (std::invalid_argument: bad usage, unknown
//     project, object or migration; std::runtime_error: a server unreachable, a refused login, a
//     failed step), and Run() turns them into the exit code.
#pragma once

#include <string>
#include <vector>

namespace tessera::app {

struct ServerLogin {
  std::string url;
  std::string user = "administrator";
  std::string password;
};

struct MigrateRequest {
  ServerLogin source;
  ServerLogin target;
  std::string project;         // on the source: id or name
  std::string target_project;  // on the target; empty: the source project's name
  std::vector<std::string> object_ids;
  bool whole_project = false;
  std::string rule = "replace";
  std::string name;  // of the package; empty: one made from the date
  bool dry_run = false;
};

int Migrate(const MigrateRequest& request);

int UndoMigration(const ServerLogin& target, const std::string& id);

}  // namespace tessera::app
