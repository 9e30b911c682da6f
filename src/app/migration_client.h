// app/migration_client.h
//
// The steps of a package migration between two running servers, made with the migration REST API
// as any client makes them (`tessera migrate`): find the project and objects on the source,
// create the package there, preview its import on the target (a validation: the import's dry
// run), request, approve and run the import, and undo it on the target.
//
// Contract:
//   - Lookups throw std::invalid_argument naming what is missing, where, and what exists:
//     "no project 'X' on http://h:1/; the projects are: A, B"; "no object 0123... in project 'P'
//     on http://h:1/" (ids are 32 hexadecimal digits, either case).
//   - The waiting steps poll every 200 ms and show the server's progress on `bar` (Update when
//     the server counts it, Tick otherwise); they give up after 30 minutes with
//     std::runtime_error. A step whose outcome is a failure (create_failed, validation_failed,
//     import_failed, undo_failed) throws std::runtime_error with the server's message.
//   - Nothing here writes to stdout.
#pragma once

#include <string>
#include <vector>

#include "app/progress_bar.h"
#include "app/remote_server.h"
#include "core/json.h"

namespace tessera::app {

struct RemoteProject {
  std::string id;
  std::string name;
};

// By id or by name ignoring case (an exact spelling wins among names differing only by case).
RemoteProject FindRemoteProject(RemoteServer& server, const std::string& id_or_name);

struct RemoteObject {
  std::string id;
  int type = 0;
  std::string name;
};

std::vector<RemoteObject> FindRemoteObjects(RemoteServer& server, const RemoteProject& project,
                                            const std::vector<std::string>& ids);

struct PackageRequest {
  std::string name;
  RemoteProject source_project;
  // Empty: the whole project (a project merge); else these objects with what they use.
  std::vector<RemoteObject> objects;
  // The conflict rule of the listed objects, or of every object of a whole project; the objects
  // the listed ones use take use_existing (created when the target lacks them, else kept).
  std::string rule = "replace";
  std::string target_url;  // the target's environment id
  RemoteProject target_project;
};

// POST /api/migrations on the source; returns the migration id ("<package id>:<import id>").
std::string CreatePackage(RemoteServer& source, const PackageRequest& request);
// Waits until the package is created; returns its record.
Json WaitForPackage(RemoteServer& source, const std::string& migration_id, ProgressBar& bar);

// Validates the import on the target and returns the validation's message: "N object(s) would
// be imported: <rule>: <count> <outcome>, ...; ...". Nothing is written on the target.
std::string PreviewImport(RemoteServer& source, RemoteServer& target,
                          const std::string& migration_id, const RemoteProject& target_project,
                          ProgressBar& bar);

// Requests and approves the import on the source, runs it on the target with an undo package
// and waits for it; returns the target's record.
Json RunImport(RemoteServer& source, RemoteServer& target, const std::string& migration_id,
               const RemoteProject& target_project, ProgressBar& bar);

// DELETE /api/migrations?packageId= of the migration's package on `server`, ignoring failures.
void DeletePackageQuietly(RemoteServer& server, const std::string& migration_id);

// `id`: a migration id, or the import id alone (found among the target's migrations).
std::string ResolveMigrationId(RemoteServer& target, const std::string& id);

// Requests and approves the undo of an import on its target and waits for it; returns the
// target's record. A migration not in status imported is std::invalid_argument saying its status.
Json RunUndo(RemoteServer& target, const std::string& migration_id, ProgressBar& bar);

}  // namespace tessera::app
