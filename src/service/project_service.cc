#include "service/project_service.h"

#include "core/error.h"
#include "core/ids.h"
#include "core/strings.h"
#include "model/object_types.h"
#include "model/rights.h"
#include "model/well_known.h"
#include "service/directory_service.h"

namespace tessera::service {

namespace {

std::vector<model::AclEntry> DefaultProjectAcl() {
  return {{std::string(model::kEveryoneGroupId), model::kRightsView, false, true}};
}

model::ObjectRecord NewFolder(const std::string& project_id, const model::PredefinedFolder& spec,
                              const std::string& project_name, const std::string& owner_id,
                              Timestamp now) {
  model::ObjectRecord folder;
  folder.project_id = project_id;
  folder.id = model::PredefinedFolderId(spec.folder_type);
  folder.type = model::kTypeFolder;
  folder.subtype = model::kSubtypeFolder;
  folder.name = spec.folder_type == model::kFolderTypeRoot ? project_name : std::string(spec.name);
  folder.folder_id =
      spec.parent_folder_type == 0 ? "" : model::PredefinedFolderId(spec.parent_folder_type);
  folder.owner_id = owner_id;
  folder.version = NewObjectId();
  folder.created = folder.modified = now;
  folder.acl = DefaultProjectAcl();
  folder.definition = {{"folderType", spec.folder_type}};
  return folder;
}

bool CanSee(const Principal& principal, const storage::ProjectRecord& project) {
  return (principal.RightsOn(project.object) & model::kRightBrowse) != 0;
}

}  // namespace

ProjectService::ProjectService(storage::MetadataStore& store) : store_(store) {}

ProjectView ProjectService::View(storage::MetadataTransaction& tx, const Principal& principal,
                                 const storage::ProjectRecord& project) {
  ProjectView view;
  view.project = project;
  view.owner_name = UserDisplayName(tx, project.object.owner_id);
  view.acg = principal.RightsOn(project.object);
  return view;
}

std::vector<ProjectView> ProjectService::List(const Principal& principal, bool include_unloaded) {
  std::vector<ProjectView> views;
  store_.Read([&](storage::MetadataTransaction& tx) {
    for (const auto& project : tx.ListProjects()) {
      if (!include_unloaded && project.status != kProjectStatusActive) continue;
      if (!CanSee(principal, project)) continue;
      views.push_back(View(tx, principal, project));
    }
  });
  return views;
}

ProjectView ProjectService::Get(const Principal& principal, std::string_view id_or_name) {
  ProjectView view;
  store_.Read([&](storage::MetadataTransaction& tx) {
    std::optional<storage::ProjectRecord> project;
    if (auto id = CanonicalObjectId(id_or_name)) project = tx.FindProject(*id);
    if (!project) project = tx.FindProjectByName(std::string(id_or_name));
    if (!project) {
      throw Error(ErrorCode::kNotFound,
                  "Project '" + std::string(id_or_name) + "' was not found (by id or name)");
    }
    if (!CanSee(principal, *project)) {
      throw Error(ErrorCode::kInsufficientPrivileges,
                  "You do not have access to project '" + project->object.name + "'");
    }
    view = View(tx, principal, *project);
  });
  return view;
}

std::string ProjectService::ResolveHeader(const Principal& principal,
                                          std::string_view header_value) {
  if (Trim(header_value).empty()) {
    throw Error(ErrorCode::kMissingParameter,
                "The X-MSTR-ProjectID header is required for this request");
  }
  const std::string id = RequireObjectId(Trim(header_value), "X-MSTR-ProjectID");
  std::optional<storage::ProjectRecord> project;
  store_.Read([&](storage::MetadataTransaction& tx) { project = tx.FindProject(id); });
  if (!project) {
    throw Error(ErrorCode::kInvalidInput, "X-MSTR-ProjectID: no project has id '" + id + "'");
  }
  if (!CanSee(principal, *project)) {
    throw Error(ErrorCode::kInsufficientPrivileges,
                "You do not have access to project '" + project->object.name + "'");
  }
  return id;
}

storage::ProjectRecord CreateProjectInTransaction(storage::MetadataTransaction& tx,
                                                  const std::string& id, const std::string& name,
                                                  const std::string& description,
                                                  const std::string& owner_id) {
  const Timestamp now = Now();
  storage::ProjectRecord project;
  project.object.id = id;
  project.object.type = model::kTypeProject;
  project.object.subtype = model::kSubtypeProject;
  project.object.name = name;
  project.object.description = description;
  project.object.owner_id = owner_id;
  project.object.version = NewObjectId();
  project.object.created = project.object.modified = now;
  project.object.acl = DefaultProjectAcl();
  project.status = kProjectStatusActive;
  tx.PutProject(project);
  for (const auto& spec : model::ProjectFolderTree()) {
    tx.PutObject(NewFolder(project.object.id, spec, name, owner_id, now));
  }
  return project;
}

ProjectView ProjectService::Create(const Principal& principal, std::string_view name,
                                   std::string_view description) {
  RequirePrivilege(principal, model::Privilege::kAdministerEnvironment, "");
  std::string project_name(Trim(name));
  if (project_name.empty()) throw Error(ErrorCode::kInvalidInput, "name: must not be empty");
  ProjectView view;
  store_.Write([&](storage::MetadataTransaction& tx) {
    auto project = CreateProjectInTransaction(tx, NewObjectId(), project_name,
                                              std::string(description), principal.user_id);
    view = View(tx, principal, project);
  });
  return view;
}

}  // namespace tessera::service
