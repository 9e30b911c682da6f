#include "app/cli_lookup.h"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <vector>

#include "core/ids.h"
#include "core/strings.h"
#include "model/object_types.h"

namespace tessera::app {

namespace {

struct Candidate {
  std::string id;
  std::string name;
  std::string where;  // " in project 'P'" for reports, "" for projects
};

// The candidates `given` names: the one whose id it is; else those named exactly `given`; else
// those named so ignoring case.
std::vector<size_t> Matching(const std::vector<Candidate>& candidates, const std::string& given) {
  const std::optional<std::string> id = CanonicalObjectId(given);
  std::vector<size_t> exact, ignoring_case;
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (id && candidates[i].id == *id) return {i};
    if (candidates[i].name == given) {
      exact.push_back(i);
    } else if (EqualsIgnoreCase(candidates[i].name, given)) {
      ignoring_case.push_back(i);
    }
  }
  return exact.empty() ? ignoring_case : exact;
}

[[noreturn]] void RefuseAmbiguous(const std::string& given, const std::string& kind,
                                  const std::vector<Candidate>& candidates,
                                  const std::vector<size_t>& matches, const std::string& advice) {
  std::vector<std::string> listed;
  for (size_t i : matches) {
    listed.push_back("'" + candidates[i].name + "' (" + candidates[i].id + ")" +
                     candidates[i].where);
  }
  throw std::invalid_argument("'" + given + "' names " + std::to_string(matches.size()) + " " +
                              kind + ": " + JoinStrings(listed, ", ") + "; " + advice);
}

std::vector<ProjectRef> AllProjects(storage::MetadataStore& store) {
  std::vector<ProjectRef> projects;
  store.Read([&](storage::MetadataTransaction& tx) {
    projects.clear();
    for (const auto& project : tx.ListProjects()) {
      projects.push_back({project.object.id, project.object.name});
    }
  });
  std::sort(projects.begin(), projects.end(),
            [](const ProjectRef& a, const ProjectRef& b) { return a.name < b.name; });
  return projects;
}

std::string ProjectNames(const std::vector<ProjectRef>& projects) {
  if (projects.empty()) return "there are no projects yet";
  std::vector<std::string> names;
  for (const auto& project : projects) names.push_back(project.name);
  return "the projects are: " + JoinStrings(names, ", ");
}

std::vector<FoundReport> ReportsOf(storage::MetadataStore& store,
                                   const std::vector<ProjectRef>& projects) {
  std::vector<FoundReport> reports;
  store.Read([&](storage::MetadataTransaction& tx) {
    reports.clear();
    for (const auto& project : projects) {
      for (auto& object : tx.ListObjects(project.id, {{model::kTypeReportDefinition}, {}})) {
        reports.push_back({project, std::move(object)});
      }
    }
  });
  return reports;
}

// A report definition in `project` (every project when empty), or a cube when `cubes_only`.
FoundReport FindDefinition(storage::MetadataStore& store, const std::string& id_or_name,
                           const std::string& project, bool cubes_only) {
  const std::vector<ProjectRef> scope =
      project.empty() ? AllProjects(store) : std::vector<ProjectRef>{FindProject(store, project)};
  std::vector<FoundReport> reports = ReportsOf(store, scope);
  if (cubes_only) {
    std::erase_if(reports, [](const FoundReport& report) { return !model::IsCube(report.object); });
  }
  const std::string noun = cubes_only ? "cube" : "report or cube";
  std::vector<Candidate> candidates;
  for (const auto& report : reports) {
    candidates.push_back(
        {report.object.id, report.object.name, " in project '" + report.project.name + "'"});
  }
  const std::vector<size_t> matches = Matching(candidates, id_or_name);
  if (matches.empty()) {
    throw std::invalid_argument(
        "no " + noun + " '" + id_or_name + "'" +
        (project.empty() ? " in any project" : " in project '" + scope.front().name + "'"));
  }
  if (matches.size() > 1) {
    RefuseAmbiguous(id_or_name, cubes_only ? "cubes" : "reports or cubes", candidates, matches,
                    project.empty() ? "give --project or its id" : "give its id");
  }
  return std::move(reports[matches.front()]);
}

}  // namespace

ProjectRef FindProject(storage::MetadataStore& store, const std::string& id_or_name) {
  const std::vector<ProjectRef> projects = AllProjects(store);
  std::vector<Candidate> candidates;
  for (const auto& project : projects) candidates.push_back({project.id, project.name, ""});
  const std::vector<size_t> matches = Matching(candidates, id_or_name);
  if (matches.empty()) {
    throw std::invalid_argument("no project '" + id_or_name + "'; " + ProjectNames(projects));
  }
  if (matches.size() > 1) {
    RefuseAmbiguous(id_or_name, "projects", candidates, matches, "give its exact name or its id");
  }
  return projects[matches.front()];
}

FoundReport FindReportOrCube(storage::MetadataStore& store, const std::string& id_or_name,
                             const std::string& project) {
  return FindDefinition(store, id_or_name, project, false);
}

FoundReport FindCube(storage::MetadataStore& store, const std::string& id_or_name,
                     const std::string& project) {
  return FindDefinition(store, id_or_name, project, true);
}

}  // namespace tessera::app
