#include "app/remote_cubes.h"

#include <chrono>
#include <iostream>
#include <stdexcept>
#include <thread>

#include "app/progress_bar.h"
#include "core/ids.h"
#include "core/strings.h"
#include "model/object_types.h"

namespace tessera::app {

namespace {

std::vector<RemoteCube> CubesOf(RemoteServer& server, const RemoteProject& project) {
  const std::string path = "/api/searches/results?type=" + std::to_string(model::kSubtypeOlapCube) +
                           "&type=" + std::to_string(model::kSubtypeSuperCube) + "&limit=-1";
  const Json found = server.Call("GET", path, nullptr, project.id);
  std::vector<RemoteCube> cubes;
  for (const auto& hit : found.value("result", Json::array())) {
    cubes.push_back({project, StringField(hit, "id"), StringField(hit, "name")});
  }
  return cubes;
}

std::vector<RemoteProject> ProjectsToSearch(RemoteServer& server, const std::string& project) {
  if (!project.empty()) return {FindRemoteProject(server, project)};
  std::vector<RemoteProject> all;
  for (const auto& entry : server.Call("GET", "/api/projects")) {
    all.push_back({StringField(entry, "id"), StringField(entry, "name")});
  }
  return all;
}

std::string Described(const RemoteCube& cube) {
  return "'" + cube.name + "' (" + cube.id + ") in project '" + cube.project.name + "'";
}

std::string ListOf(const std::vector<RemoteCube>& cubes, bool with_projects) {
  std::vector<std::string> names;
  for (const auto& cube : cubes) {
    names.push_back(with_projects ? Described(cube) : "'" + cube.name + "'");
  }
  return JoinStrings(names, ", ");
}

std::string Where(RemoteServer& server, const std::string& project) {
  return (project.empty() ? "" : " in project '" + project + "'") + " on " + server.url().text;
}

// The job's record once it is no longer executing.
Json WaitForPublish(RemoteServer& server, const std::string& job_id, ProgressBar& bar) {
  const auto deadline = std::chrono::steady_clock::now() + kGiveUpAfter;
  for (;;) {
    Json job = server.Call("GET", "/api/v2/monitors/jobs/" + PercentEncode(job_id));
    if (StringField(job, "status") != "executing") return job;
    if (std::chrono::steady_clock::now() > deadline) {
      throw std::runtime_error("gave up waiting for the publish after 30 minutes");
    }
    bar.Tick();
    std::this_thread::sleep_for(kPollInterval);
  }
}

void PublishRemoteCube(RemoteServer& server, const RemoteCube& cube) {
  ProgressBar bar("publishing cube '" + cube.name + "'");
  bar.Tick();
  const Json started = server.Call("POST", "/api/cubes/" + cube.id, nullptr, cube.project.id);
  const Json job = WaitForPublish(server, StringField(started, "id"), bar);
  if (StringField(job, "status") != "completed") {
    bar.Finish("failed");
    throw std::runtime_error("cube " + Described(cube) +
                             " failed to publish: " + StringField(job, "errorMessage"));
  }
  const std::string elapsed = std::to_string(job.value("elapsedTime", int64_t{0})) + " ms";
  bar.Finish("done");
  std::cout << "cube '" << cube.name << "': published in " << elapsed << "\n";
}

std::string StateOf(const Json& info) {
  const int status = info.value("status", 0);
  if (status & 1) return "publishing";
  if (status == 0) return "not published";
  return "ready, " + std::to_string(info.value("size", int64_t{0})) +
         " bytes in memory, last updated " + StringField(info, "lastUpdateTime") + " UTC";
}

}  // namespace

RemoteCube FindRemoteCube(RemoteServer& server, const std::string& id_or_name,
                          const std::string& project) {
  const std::optional<std::string> id = CanonicalObjectId(id_or_name);
  std::vector<RemoteCube> all, exact, ignoring_case;
  for (const auto& candidate : ProjectsToSearch(server, project)) {
    for (auto& cube : CubesOf(server, candidate)) {
      if (id && EqualsIgnoreCase(cube.id, *id)) return cube;
      if (cube.name == id_or_name) {
        exact.push_back(cube);
      } else if (EqualsIgnoreCase(cube.name, id_or_name)) {
        ignoring_case.push_back(cube);
      }
      all.push_back(std::move(cube));
    }
  }
  const std::vector<RemoteCube>& matches = exact.empty() ? ignoring_case : exact;
  if (matches.size() == 1) return matches.front();
  if (matches.empty()) {
    throw std::invalid_argument(
        "no cube '" + id_or_name + "'" + Where(server, project) + "; " +
        (all.empty() ? "there are no cubes" : "the cubes are: " + ListOf(all, project.empty())));
  }
  throw std::invalid_argument("'" + id_or_name + "' names " + std::to_string(matches.size()) +
                              " cubes" + Where(server, project) + ": " + ListOf(matches, true) +
                              "; give --project or the cube's id");
}

void PublishRemoteCubes(RemoteServer& server, const std::vector<RemoteCube>& cubes) {
  for (const auto& cube : cubes) PublishRemoteCube(server, cube);
}

std::string DescribeRemoteCubeStatus(RemoteServer& server, const RemoteCube& cube) {
  const Json found = server.Call("GET", "/api/cubes?id=" + cube.id, nullptr, cube.project.id);
  const Json infos = found.value("cubesInfos", Json::array());
  const Json info = infos.empty() ? Json::object() : infos.front();
  return "cube " + Described(cube) + ": " + StateOf(info);
}

}  // namespace tessera::app
