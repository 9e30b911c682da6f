#include "app/migrate_command.h"

#include <algorithm>
#include <iostream>
#include <stdexcept>

#include "app/migration_client.h"
#include "app/progress_bar.h"
#include "app/remote_server.h"
#include "core/strings.h"
#include "core/time.h"

namespace tessera::app {

namespace {

RemoteServer LogIn(const ServerLogin& login, const std::string& flag) {
  if (login.url.empty()) {
    throw std::invalid_argument(flag +
                                " is required: the server's URL, e.g. http://127.0.0.1:8080/");
  }
  return RemoteServer(ParseServerUrl(login.url, flag), login.user, login.password);
}

void CheckRequest(const MigrateRequest& request) {
  const std::vector<std::string> rules = {"use_existing", "replace",       "keep_both", "use_newer",
                                          "use_older",    "force_replace", "delete"};
  if (std::find(rules.begin(), rules.end(), request.rule) == rules.end()) {
    throw std::invalid_argument("--rule '" + request.rule + "' is not a conflict rule; expected " +
                                JoinStrings(rules, ", "));
  }
  if (request.whole_project && !request.object_ids.empty()) {
    throw std::invalid_argument(
        "give either object ids or --whole-project, not both: --whole-project moves every object "
        "of the project");
  }
  if (!request.whole_project && request.object_ids.empty()) {
    throw std::invalid_argument(
        "name the objects to move (their ids after the project) or give --whole-project");
  }
}

std::string PackageName(const MigrateRequest& request, const RemoteProject& project) {
  if (!request.name.empty()) return request.name;
  const std::string what = request.whole_project ? "project '" + project.name + "'"
                                                 : std::to_string(request.object_ids.size()) +
                                                       " object(s) of '" + project.name + "'";
  return "tessera migrate " + what + " " + FormatTimestamp(Now());
}

// The validation message, one rule a line:
// "N object(s) would be imported: replace: 1 replaced; use_existing: 2 kept" becomes
// "  N object(s) would be imported\n  replace: 1 replaced\n  use_existing: 2 kept\n".
void PrintPreview(const std::string& message) {
  const size_t colon = message.find(": ");
  std::cout << "  " << message.substr(0, colon) << "\n";
  if (colon == std::string::npos) return;
  for (const auto& rule : Split(message.substr(colon + 2), ';')) {
    std::cout << "  " << Trim(rule) << "\n";
  }
}

}  // namespace

int Migrate(const MigrateRequest& request) {
  CheckRequest(request);
  RemoteServer source = LogIn(request.source, "--source");
  RemoteServer target = LogIn(request.target, "--target");
  const RemoteProject source_project = FindRemoteProject(source, request.project);
  const RemoteProject target_project = FindRemoteProject(
      target, request.target_project.empty() ? source_project.name : request.target_project);

  PackageRequest package;
  package.name = PackageName(request, source_project);
  package.source_project = source_project;
  if (!request.whole_project) {
    package.objects = FindRemoteObjects(source, source_project, request.object_ids);
  }
  package.rule = request.rule;
  package.target_url = target.url().text;
  package.target_project = target_project;

  const std::string id = CreatePackage(source, package);
  try {
    ProgressBar creating("creating the package");
    WaitForPackage(source, id, creating);
    creating.Finish("done");
    std::cout << "package '" << package.name << "' created on " << source.url().text
              << " (migration " << id << ")\n";
    ProgressBar previewing("previewing the import");
    const std::string preview = PreviewImport(source, target, id, target_project, previewing);
    previewing.Finish("done");
    std::cout << "what the import changes in project '" << target_project.name << "' on "
              << target.url().text << ":\n";
    PrintPreview(preview);
  } catch (const std::exception&) {
    DeletePackageQuietly(source, id);
    throw;
  }
  if (request.dry_run) {
    DeletePackageQuietly(source, id);
    std::cout << "dry run: nothing was imported; the package was deleted from the source\n";
    return 0;
  }
  ProgressBar importing("importing");
  RunImport(source, target, id, target_project, importing);
  importing.Finish("done");
  const std::string import_id = id.substr(id.find(':') + 1);
  std::cout << "imported into project '" << target_project.name << "' on " << target.url().text
            << " (migration " << id << ")\n"
            << "to undo it: tessera migrate undo " << import_id << " --target " << target.url().text
            << "\n";
  return 0;
}

int UndoMigration(const ServerLogin& login, const std::string& id) {
  RemoteServer target = LogIn(login, "--target");
  const std::string migration_id = ResolveMigrationId(target, id);
  ProgressBar undoing("undoing");
  RunUndo(target, migration_id, undoing);
  undoing.Finish("done");
  std::cout << "undid the import " << migration_id << " on " << target.url().text << "\n";
  return 0;
}

}  // namespace tessera::app
