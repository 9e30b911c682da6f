#include "service/project/project_service.h"

#include <unordered_map>

#include "core/error.h"
#include "core/ids.h"
#include "core/strings.h"
#include "model/object_types.h"
#include "model/rights.h"
#include "model/well_known.h"
#include "service/directory_service.h"

namespace tessera::service::project {

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

bool CanSee(const session::Principal& principal, const storage::ProjectRecord& project) {
  return (principal.RightsOn(project.object) & model::kRightBrowse) != 0;
}

}  // namespace

struct ProjectService::Snapshot {
  uint64_t generation = 0;
  std::chrono::steady_clock::time_point read_at;
  std::vector<storage::ProjectRecord> projects;  // by name
  std::unordered_map<std::string, std::string> owner_names;

  const storage::ProjectRecord* FindById(std::string_view id) const {
    for (const auto& project : projects) {
      if (project.object.id == id) return &project;
    }
    return nullptr;
  }
  const storage::ProjectRecord* FindByName(std::string_view name) const {
    for (const auto& project : projects) {
      if (project.object.name == name) return &project;
    }
    return nullptr;
  }
  ProjectView View(const session::Principal& principal,
                   const storage::ProjectRecord& project) const {
    auto owner = owner_names.find(project.object.owner_id);
    return {project, owner == owner_names.end() ? "" : owner->second,
            principal.RightsOn(project.object)};
  }
};

ProjectService::ProjectService(storage::MetadataStore& store, std::chrono::milliseconds cache_ttl)
    : store_(store), cache_ttl_(cache_ttl) {}

std::shared_ptr<const ProjectService::Snapshot> ProjectService::CurrentSnapshot() {
  {
    std::lock_guard lock(mutex_);
    if (snapshot_ && snapshot_->generation == store_.DirectoryGeneration() &&
        std::chrono::steady_clock::now() - snapshot_->read_at < cache_ttl_) {
      return snapshot_;
    }
  }
  return ReadSnapshot();
}

std::shared_ptr<const ProjectService::Snapshot> ProjectService::ReadSnapshot() {
  uint64_t notices_before;
  {
    std::lock_guard lock(mutex_);
    notices_before = notices_heard_;
  }
  auto snapshot = std::make_shared<Snapshot>();
  // Taken before the read: a change committed meanwhile makes the snapshot out of date at once.
  snapshot->generation = store_.DirectoryGeneration();
  snapshot->read_at = std::chrono::steady_clock::now();
  store_.Read([&](storage::MetadataTransaction& tx) {
    snapshot->projects = tx.ListProjects();
    for (const auto& project : snapshot->projects) {
      const std::string& owner = project.object.owner_id;
      if (!snapshot->owner_names.contains(owner)) {
        snapshot->owner_names.emplace(owner, UserDisplayName(tx, owner));
      }
    }
  });
  std::lock_guard lock(mutex_);
  // A notice heard while the store was read may be about a change the read missed.
  if (notices_heard_ == notices_before) snapshot_ = snapshot;
  return snapshot;
}

void ProjectService::HearNotice(const storage::Notice& notice) {
  if (!notice.channel.empty() && notice.channel != storage::kDirectoryNoticeChannel) return;
  std::lock_guard lock(mutex_);
  ++notices_heard_;
  snapshot_.reset();
}

std::vector<ProjectView> ProjectService::List(const session::Principal& principal,
                                              bool include_unloaded) {
  auto snapshot = CurrentSnapshot();
  std::vector<ProjectView> views;
  for (const auto& project : snapshot->projects) {
    if (!include_unloaded && project.status != kProjectStatusActive) continue;
    if (!CanSee(principal, project)) continue;
    views.push_back(snapshot->View(principal, project));
  }
  return views;
}

ProjectView ProjectService::Get(const session::Principal& principal, std::string_view id_or_name) {
  auto find = [&](const Snapshot& snapshot) -> const storage::ProjectRecord* {
    const storage::ProjectRecord* project = nullptr;
    if (auto id = CanonicalObjectId(id_or_name)) project = snapshot.FindById(*id);
    return project ? project : snapshot.FindByName(id_or_name);
  };
  auto snapshot = CurrentSnapshot();
  const storage::ProjectRecord* project = find(*snapshot);
  if (!project) {
    snapshot = ReadSnapshot();  // a project added where no notice is sent is found at once
    project = find(*snapshot);
  }
  if (!project) {
    throw Error(ErrorCode::kNotFound,
                "Project '" + std::string(id_or_name) + "' was not found (by id or name)");
  }
  if (!CanSee(principal, *project)) {
    throw Error(ErrorCode::kInsufficientPrivileges,
                "You do not have access to project '" + project->object.name + "'");
  }
  return snapshot->View(principal, *project);
}

std::string ProjectService::ResolveHeader(const session::Principal& principal,
                                          std::string_view header_value) {
  if (Trim(header_value).empty()) {
    throw Error(ErrorCode::kMissingParameter,
                "The X-MSTR-ProjectID header is required for this request");
  }
  const std::string id = RequireObjectId(Trim(header_value), "X-MSTR-ProjectID");
  auto snapshot = CurrentSnapshot();
  const storage::ProjectRecord* project = snapshot->FindById(id);
  if (!project) {
    snapshot = ReadSnapshot();  // a project added where no notice is sent is found at once
    project = snapshot->FindById(id);
  }
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

ProjectView ProjectService::Create(const session::Principal& principal, std::string_view name,
                                   std::string_view description) {
  session::RequirePrivilege(principal, model::Privilege::kAdministerEnvironment, "");
  std::string project_name(Trim(name));
  if (project_name.empty()) throw Error(ErrorCode::kInvalidInput, "name: must not be empty");
  ProjectView view;
  store_.Write([&](storage::MetadataTransaction& tx) {
    auto project = CreateProjectInTransaction(tx, NewObjectId(), project_name,
                                              std::string(description), principal.user_id);
    view = {project, UserDisplayName(tx, principal.user_id), principal.RightsOn(project.object)};
  });
  return view;
}

}  // namespace tessera::service::project
