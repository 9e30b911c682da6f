#include "app/migration_client.h"

#include <chrono>
#include <functional>
#include <stdexcept>
#include <thread>

#include "core/ids.h"
#include "core/strings.h"
#include "core/time.h"

namespace tessera::app {

namespace {

const Json& Part(const Json& record, const char* key) {
  static const Json kEmpty = Json::object();
  if (!record.is_object()) return kEmpty;
  auto found = record.find(key);
  return found != record.end() && found->is_object() ? *found : kEmpty;
}

int Percent(const Json& part) {
  auto found = part.find("progress");
  return found != part.end() && found->is_number() ? found->get<int>() : 0;
}

std::string PackageIdOf(const std::string& migration_id) {
  return migration_id.substr(0, migration_id.find(':'));
}

Json ReadRecord(RemoteServer& server, const std::string& migration_id, const char* show) {
  return server.Call("GET", "/api/migrations/" + migration_id + "?showContent=" + show);
}

// Reads with `read` until `finished` says so, showing what `progress` gives (a negative number:
// nothing to count) on `bar`.
Json Poll(const std::function<Json()>& read, const std::function<bool(const Json&)>& finished,
          const std::function<int(const Json&)>& progress, ProgressBar& bar,
          const std::string& what) {
  const auto deadline = std::chrono::steady_clock::now() + kGiveUpAfter;
  for (;;) {
    Json record = read();
    const int percent = progress(record);
    if (percent >= 0) {
      bar.Update(percent);
    } else {
      bar.Tick();
    }
    if (finished(record)) return record;
    if (std::chrono::steady_clock::now() > deadline) {
      throw std::runtime_error("gave up waiting for " + what + " after 30 minutes");
    }
    std::this_thread::sleep_for(kPollInterval);
  }
}

Json NamedRef(const RemoteProject& project) { return {{"id", project.id}, {"name", project.name}}; }

Json Environment(const std::string& url) { return {{"id", url}, {"name", url}}; }

}  // namespace

RemoteProject FindRemoteProject(RemoteServer& server, const std::string& id_or_name) {
  const Json projects = server.Call("GET", "/api/projects");
  const std::optional<std::string> id = CanonicalObjectId(id_or_name);
  std::vector<RemoteProject> all, exact, ignoring_case;
  for (const auto& entry : projects) {
    RemoteProject project{StringField(entry, "id"), StringField(entry, "name")};
    if (id && EqualsIgnoreCase(project.id, *id)) return project;
    if (project.name == id_or_name) {
      exact.push_back(project);
    } else if (EqualsIgnoreCase(project.name, id_or_name)) {
      ignoring_case.push_back(project);
    }
    all.push_back(project);
  }
  const std::vector<RemoteProject>& matches = exact.empty() ? ignoring_case : exact;
  if (matches.size() == 1) return matches.front();
  std::vector<std::string> names;
  for (const auto& project : matches.empty() ? all : matches) {
    names.push_back("'" + project.name + "' (" + project.id + ")");
  }
  if (matches.empty()) {
    throw std::invalid_argument(
        "no project '" + id_or_name + "' on " + server.url().text + "; " +
        (names.empty() ? "it has no projects" : "the projects are: " + JoinStrings(names, ", ")));
  }
  throw std::invalid_argument("'" + id_or_name + "' names " + std::to_string(matches.size()) +
                              " projects on " + server.url().text + ": " +
                              JoinStrings(names, ", ") + "; give its exact name or its id");
}

std::vector<RemoteObject> FindRemoteObjects(RemoteServer& server, const RemoteProject& project,
                                            const std::vector<std::string>& ids) {
  Json wanted = Json::array();
  for (const auto& given : ids) {
    const std::optional<std::string> id = CanonicalObjectId(given);
    if (!id) {
      throw std::invalid_argument("'" + given +
                                  "' is not an object id: expected 32 hexadecimal digits");
    }
    wanted.push_back(*id);
  }
  const Json body = {
      {"projectIdAndObjectIds", Json::array({{{"projectId", project.id}, {"objectIds", wanted}}})}};
  const Json found = server.Call("POST", "/api/searches/objects", body, project.id);
  const Json results = found.value("result", Json::array());
  std::vector<RemoteObject> objects;
  for (const auto& id : wanted) {
    const Json* hit = nullptr;
    for (const auto& entry : results) {
      if (EqualsIgnoreCase(StringField(entry, "id"), id.get<std::string>())) hit = &entry;
    }
    if (hit == nullptr) {
      throw std::invalid_argument("no object " + id.get<std::string>() + " in project '" +
                                  project.name + "' on " + server.url().text);
    }
    objects.push_back({StringField(*hit, "id"), hit->value("type", 0), StringField(*hit, "name")});
  }
  return objects;
}

std::string CreatePackage(RemoteServer& source, const PackageRequest& request) {
  const bool whole_project = request.objects.empty();
  Json settings = {{"defaultAction", whole_project ? request.rule : "use_existing"},
                   {"updateSchema", Json::array()},
                   {"aclOnReplacingObjects", "use_existing"},
                   {"aclOnNewObjects", Json::array({"keep_acl_as_source_object"})}};
  Json package = {{"type", "project"},
                  {"name", request.name},
                  {"environment", Environment(source.url().text)},
                  {"treeView", Json::object()}};
  if (whole_project) {
    settings["validateDependencies"] = true;
    package["purpose"] = "project_merge";
    package["tocView"] = {{"settings", settings}};
  } else {
    Json content = Json::array();
    for (const auto& object : request.objects) {
      content.push_back({{"id", object.id},
                         {"name", object.name},
                         {"type", object.type},
                         {"action", request.rule},
                         {"includeDependents", true}});
    }
    package["tocView"] = {{"settings", settings}, {"content", content}};
  }
  const Json body = {{"packageInfo", package},
                     {"importInfo",
                      {{"environment", Environment(request.target_url)},
                       {"project", NamedRef(request.target_project)}}}};
  const Json created = source.Call("POST", "/api/migrations", body, request.source_project.id);
  return StringField(created, "id");
}

Json WaitForPackage(RemoteServer& source, const std::string& migration_id, ProgressBar& bar) {
  Json record = Poll(
      [&] { return ReadRecord(source, migration_id, "default"); },
      [](const Json& r) { return StringField(Part(r, "packageInfo"), "status") != "creating"; },
      [](const Json& r) { return Percent(Part(r, "packageInfo")); }, bar,
      "the package " + migration_id);
  const Json& package = Part(record, "packageInfo");
  if (StringField(package, "status") != "created") {
    throw std::runtime_error("the package was not created (" + StringField(package, "status") +
                             "): " + StringField(package, "message"));
  }
  return record;
}

std::string PreviewImport(RemoteServer& source, RemoteServer& target,
                          const std::string& migration_id, const RemoteProject& target_project,
                          ProgressBar& bar) {
  const Json full = ReadRecord(source, migration_id, "all");
  target.Call("PUT", "/api/migrations/" + migration_id + "/validation", full, target_project.id);
  source.Call("PATCH", "/api/migrations/" + migration_id,
              {{"validation", {{"status", "validating"}}}});
  Json record = Poll(
      [&] { return ReadRecord(source, migration_id, "default"); },
      [](const Json& r) { return StringField(Part(r, "validation"), "status") != "validating"; },
      [](const Json&) { return -1; }, bar, "the preview of " + migration_id);
  const Json& validation = Part(record, "validation");
  if (StringField(validation, "status") != "validated") {
    throw std::runtime_error("the import would fail: " + StringField(validation, "message"));
  }
  return StringField(validation, "message");
}

Json RunImport(RemoteServer& source, RemoteServer& target, const std::string& migration_id,
               const RemoteProject& target_project, ProgressBar& bar) {
  const std::string path = "/api/migrations/" + migration_id;
  for (const char* step : {"requested", "approved"}) {
    source.Call("PATCH", path, {{"importInfo", {{"importRequestStatus", step}}}});
  }
  Json full = ReadRecord(source, migration_id, "all");
  full["packageInfo"]["replicated"] = true;
  target.Call("PUT", path + "?generateUndo=true", full, target_project.id);
  Json record = Poll([&] { return ReadRecord(target, migration_id, "default"); },
                     [](const Json& r) {
                       const std::string status = StringField(Part(r, "importInfo"), "status");
                       return status != "importing" && status != "pending";
                     },
                     [](const Json& r) { return Percent(Part(r, "importInfo")); }, bar,
                     "the import of " + migration_id);
  const Json& imported = Part(record, "importInfo");
  if (StringField(imported, "status") != "imported") {
    throw std::runtime_error("the import failed, nothing was changed on the target: " +
                             StringField(imported, "message"));
  }
  return record;
}

void DeletePackageQuietly(RemoteServer& server, const std::string& migration_id) {
  try {
    server.Call("DELETE", "/api/migrations?packageId=" + PackageIdOf(migration_id));
  } catch (const std::exception&) {
  }
}

std::string ResolveMigrationId(RemoteServer& target, const std::string& id) {
  if (id.find(':') != std::string::npos) return id;
  if (!CanonicalObjectId(id)) {
    throw std::invalid_argument("'" + id +
                                "' is not an import id: expected 32 hexadecimal digits, or the "
                                "migration id PACKAGE_ID:IMPORT_ID");
  }
  int64_t offset = 0;
  for (;;) {
    const Json page =
        target.Call("GET",
                    "/api/migrations?packageInfo.purpose=object_migration,project_merge,"
                    "migration_from_shared_file_store&limit=1000&offset=" +
                        std::to_string(offset));
    const Json data = page.value("data", Json::array());
    for (const auto& record : data) {
      if (EqualsIgnoreCase(StringField(Part(record, "importInfo"), "id"), id))
        return StringField(record, "id");
    }
    offset += static_cast<int64_t>(data.size());
    if (data.empty() || offset >= page.value("total", int64_t{0})) break;
  }
  throw std::invalid_argument("no migration with the import id " + id + " on " + target.url().text);
}

Json RunUndo(RemoteServer& target, const std::string& migration_id, ProgressBar& bar) {
  const std::string path = "/api/migrations/" + migration_id;
  const Json before = ReadRecord(target, migration_id, "default");
  const Json& imported = Part(before, "importInfo");
  if (StringField(imported, "status") != "imported") {
    throw std::invalid_argument("the migration " + migration_id + " is " +
                                StringField(imported, "status") + " on " + target.url().text +
                                ": only an imported migration can be undone");
  }
  const std::string project_id = StringField(Part(imported, "project"), "id");
  target.Call("PATCH", path, {{"importInfo", {{"undoRequestStatus", "requested"}}}});
  target.Call("PATCH", path, {{"importInfo", {{"undoRequestStatus", "approved"}}}}, project_id);
  Json record =
      Poll([&] { return ReadRecord(target, migration_id, "default"); },
           [](const Json& r) { return StringField(Part(r, "importInfo"), "status") != "undoing"; },
           [](const Json& r) { return Percent(Part(r, "importInfo")); }, bar,
           "the undo of " + migration_id);
  const Json& after = Part(record, "importInfo");
  if (StringField(after, "status") != "undo_success") {
    throw std::runtime_error("the undo failed, nothing was changed: " +
                             StringField(after, "message"));
  }
  return record;
}

}  // namespace tessera::app
