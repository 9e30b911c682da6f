#include "service/cube/cube_info.h"

#include <algorithm>

#include "core/error.h"
#include "core/ids.h"
#include "model/object_types.h"
#include "model/rights.h"
#include "service/instance/dataset_kind.h"

namespace tessera::service::cube {

namespace {

std::string CanonicalCubeId(const std::string& id) { return RequireObjectId(id, "cubeId"); }

bool IsCubeObject(const model::ObjectRecord& record) {
  return record.type == model::kTypeReportDefinition && model::IsCube(record);
}

// The report or cube `id` names, if any.
std::optional<object::ObjectView> FindReportDefinition(object::ObjectService& objects,
                                                       const session::Principal& principal,
                                                       const std::string& project_id,
                                                       const std::string& id) {
  try {
    return objects.Get(principal, project_id, id, model::kTypeReportDefinition);
  } catch (const Error& error) {
    if (error.code() != ErrorCode::kNotFound) throw;
  }
  return std::nullopt;
}

std::optional<object::ObjectView> FindCube(object::ObjectService& objects,
                                           const session::Principal& principal,
                                           const std::string& project_id,
                                           const std::string& cube_id) {
  std::optional<object::ObjectView> view =
      FindReportDefinition(objects, principal, project_id, cube_id);
  if (view && !IsCubeObject(view->record)) view.reset();
  return view;
}

// WrongDatasetKind when `cube_id` names a report.
object::ObjectView RequireCube(object::ObjectService& objects, const session::Principal& principal,
                               const std::string& project_id, const std::string& cube_id) {
  auto view = FindReportDefinition(objects, principal, project_id, cube_id);
  if (!view) {
    throw Error(ErrorCode::kNotFound,
                "Cube '" + cube_id + "' was not found in project '" + project_id + "'");
  }
  if (!IsCubeObject(view->record))
    throw instance::WrongDatasetKind(cube_id, instance::DatasetKind::kReport);
  return *view;
}

// From the project's root folder down, then the cube itself.
std::string PathOf(const object::ObjectView& view) {
  std::vector<object::Ancestor> ancestors = view.ancestors;
  std::sort(ancestors.begin(), ancestors.end(),
            [](const object::Ancestor& a, const object::Ancestor& b) { return a.level > b.level; });
  std::string path;
  for (const auto& ancestor : ancestors) path += "\\" + ancestor.name;
  return path + "\\" + view.record.name;
}

// The project's root folder bears the project's name.
std::string ProjectNameOf(const object::ObjectView& view) {
  const object::Ancestor* root = nullptr;
  for (const auto& ancestor : view.ancestors) {
    if (!root || ancestor.level > root->level) root = &ancestor;
  }
  return root ? root->name : "";
}

// A number clients can show; the publish itself is the cube's, so nothing looks the job up.
int64_t NewJobNumber() { return std::stoll(NewObjectId().substr(0, 7), nullptr, 16); }

}  // namespace

int CubeStatusBits(const CubeStatus& status) {
  const bool has_dataset = status.is_loaded || status.published_ms > 0;
  int bits = has_dataset ? kCubeStatusPublished : 0;
  if (status.state == CubeState::kPublishing) bits |= kCubeStatusProcessing;
  return bits;
}

std::optional<CubeInfo> FindCubeInfo(object::ObjectService& objects, CubeService& cubes,
                                     const session::Principal& principal,
                                     const std::string& project_id, const std::string& cube_id) {
  const std::string id = CanonicalCubeId(cube_id);
  auto view = FindCube(objects, principal, project_id, id);
  if (!view) return std::nullopt;
  session::RequireRights(principal, view->record, model::kRightRead);
  const CubeStatus status = cubes.Status(project_id, id);
  CubeInfo info;
  info.id = view->record.id;
  info.name = view->record.name;
  info.owner_id = view->record.owner_id;
  info.path = PathOf(*view);
  info.modified = view->record.modified;
  info.last_update =
      status.published_ms > 0 ? FromUnixMillis(status.published_ms) : view->record.modified;
  info.size_bytes = static_cast<int64_t>(status.memory_bytes);
  info.status = CubeStatusBits(status);
  return info;
}

int CubeStatusOf(object::ObjectService& objects, CubeService& cubes,
                 const session::Principal& principal, const std::string& project_id,
                 const std::string& cube_id) {
  const std::string id = CanonicalCubeId(cube_id);
  object::ObjectView view = RequireCube(objects, principal, project_id, id);
  session::RequireRights(principal, view.record, model::kRightRead);
  return CubeStatusBits(cubes.Status(project_id, id));
}

PublishJob StartCubePublish(object::ObjectService& objects, CubeService& cubes,
                            const session::Principal& principal, const std::string& project_id,
                            const std::string& cube_id) {
  const std::string id = CanonicalCubeId(cube_id);
  session::RequirePrivilege(principal, model::Privilege::kPublishCubes, project_id);
  object::ObjectView view = RequireCube(objects, principal, project_id, id);
  session::RequireRights(principal, view.record, model::kRightExecute);
  cubes.Publish(project_id, id);
  PublishJob job;
  job.job_id = NewJobNumber();
  job.id = std::to_string(job.job_id) + ":" + id + CanonicalObjectId(project_id).value_or("");
  return job;
}

PublishJobView FindPublishJob(object::ObjectService& objects, CubeService& cubes,
                              const session::Principal& principal, const std::string& job_id) {
  auto not_found = [&] {
    return Error(ErrorCode::kNotFound, "Job '" + job_id + "' was not found");
  };
  const size_t colon = job_id.find(':');
  if (colon == std::string::npos || job_id.size() != colon + 1 + 64) throw not_found();
  auto cube_id = CanonicalObjectId(job_id.substr(colon + 1, 32));
  auto project_id = CanonicalObjectId(job_id.substr(colon + 33, 32));
  if (!cube_id || !project_id) throw not_found();
  auto view = FindCube(objects, principal, *project_id, *cube_id);
  if (!view) throw not_found();
  session::RequireRights(principal, view->record, model::kRightRead);
  const CubeStatus status = cubes.Status(*project_id, *cube_id);
  PublishJobView job;
  job.id = job_id;
  job.cube_id = *cube_id;
  job.cube_name = view->record.name;
  job.project_id = *project_id;
  job.project_name = ProjectNameOf(*view);
  job.state = status.state;
  job.error_message = status.error_message;
  job.elapsed_ms = status.last_publish_duration_ms;
  return job;
}

}  // namespace tessera::service::cube
