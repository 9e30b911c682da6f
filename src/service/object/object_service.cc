#include "service/object/object_service.h"

#include <algorithm>

#include "core/error.h"
#include "core/ids.h"
#include "core/strings.h"
#include "model/object_types.h"
#include "model/rights.h"
#include "model/well_known.h"

namespace tessera::service::object {

namespace {

[[noreturn]] void ThrowObjectNotFound(const std::string& project_id, const std::string& id,
                                      int type) {
  std::string where = project_id.empty() ? "the configuration" : "project '" + project_id + "'";
  throw Error(ErrorCode::kNotFound,
              "Object '" + id + "' of type " + std::to_string(type) + " was not found in " + where);
}

// Projects are configuration-level objects whichever project header came along.
std::string ScopeFor(const std::string& project_id, int type) {
  return type == model::kTypeProject ? "" : project_id;
}

model::ObjectRecord LoadVisible(storage::MetadataTransaction& tx,
                                const session::Principal& principal, const std::string& project_id,
                                const std::string& id, int type) {
  auto record = tx.FindObject(ScopeFor(project_id, type), id);
  if (!record || record->type != type) ThrowObjectNotFound(project_id, id, type);
  session::RequireRights(principal, *record, model::kRightBrowse);
  return *record;
}

bool IsPredefinedFolder(const model::ObjectRecord& record) {
  return record.type == model::kTypeFolder && record.definition.contains("folderType");
}

// Every save gives the object a new version and modification time.
ObjectView SaveChanged(storage::MetadataTransaction& tx, const session::Principal& principal,
                       model::ObjectRecord& record) {
  record.version = NewObjectId();
  record.modified = Now();
  tx.PutObject(record);
  return ObjectViewBuilder(tx, principal).Build(record, true);
}

model::ObjectRecord NewFolderRecord(const std::string& project_id, std::string id,
                                    const model::ObjectRecord& parent, std::string name,
                                    const std::string& owner_id) {
  model::ObjectRecord folder;
  folder.project_id = project_id;
  folder.id = std::move(id);
  folder.type = model::kTypeFolder;
  folder.subtype = model::kSubtypeFolder;
  folder.name = std::move(name);
  folder.folder_id = parent.id;
  folder.owner_id = owner_id;
  folder.version = NewObjectId();
  folder.created = folder.modified = Now();
  folder.acl = model::InheritedAcl(parent);
  return folder;
}

}  // namespace

ObjectService::ObjectService(storage::MetadataStore& store) : store_(store) {}

ObjectView ObjectService::Get(const session::Principal& principal, const std::string& project_id,
                              const std::string& id, int type) {
  ObjectView view;
  store_.Read([&](storage::MetadataTransaction& tx) {
    ObjectViewBuilder builder(tx, principal);
    view = builder.Build(LoadVisible(tx, principal, project_id, id, type), true);
  });
  return view;
}

std::vector<ObjectView> ObjectService::FindVisible(const session::Principal& principal,
                                                   const std::string& project_id,
                                                   const std::vector<std::string>& ids) {
  std::vector<ObjectView> views;
  store_.Read([&](storage::MetadataTransaction& tx) {
    ObjectViewBuilder builder(tx, principal);
    for (const auto& record : tx.FindObjects(project_id, ids)) {
      if (principal.RightsOn(record) & model::kRightBrowse) {
        views.push_back(builder.Build(record, false));
      }
    }
  });
  return views;
}

ObjectList ObjectService::ListFolder(const session::Principal& principal,
                                     const std::string& project_id, const std::string& folder_id,
                                     const Page& page) {
  ObjectList list;
  store_.Read([&](storage::MetadataTransaction& tx) {
    LoadVisible(tx, principal, project_id, folder_id, model::kTypeFolder);
    ObjectViewBuilder builder(tx, principal);
    std::vector<ObjectView> visible;
    for (const auto& child : tx.ListChildren(project_id, folder_id)) {
      if (principal.RightsOn(child) & model::kRightBrowse)
        visible.push_back(builder.Build(child, false));
    }
    list.total = static_cast<int64_t>(visible.size());
    list.items = SlicePage(std::move(visible), page);
  });
  return list;
}

std::string ObjectService::PredefinedFolderId(const session::Principal& principal,
                                              const std::string& project_id, int folder_type) {
  const bool is_personal = folder_type == model::kFolderTypeMyPersonalObjects ||
                           folder_type == model::kFolderTypeMyReports ||
                           folder_type == model::kFolderTypeMyAnswers;
  if (!is_personal) {
    if (!model::FindPredefinedFolder(folder_type)) {
      throw Error(ErrorCode::kNotFound,
                  "Predefined folder type " + std::to_string(folder_type) + " does not exist");
    }
    return model::PredefinedFolderId(folder_type);
  }
  // My Personal Objects (19) is the user's profile folder itself; My Reports (20) and My Answers
  // (21) are folders in it.
  const std::string profile_id = model::ProfileFolderId(principal.user_id);
  const std::string folder_id = folder_type == model::kFolderTypeMyPersonalObjects
                                    ? profile_id
                                    : model::PersonalFolderId(principal.user_id, folder_type);
  store_.Write([&](storage::MetadataTransaction& tx) {
    if (tx.FindObject(project_id, folder_id)) return;
    auto profile = tx.FindObject(project_id, profile_id);
    if (!profile) {
      auto profiles =
          tx.FindObject(project_id, model::PredefinedFolderId(model::kFolderTypeProfiles));
      if (!profiles)
        ThrowObjectNotFound(project_id, model::PredefinedFolderId(model::kFolderTypeProfiles),
                            model::kTypeFolder);
      profile =
          NewFolderRecord(project_id, profile_id, *profiles,
                          principal.full_name + " (" + principal.username + ")", principal.user_id);
      profile->acl.clear();  // private to its owner
      profile->definition = {{"folderType", model::kFolderTypeMyPersonalObjects}};
      tx.PutObject(*profile);
    }
    if (folder_id == profile_id) return;
    std::string name = folder_type == model::kFolderTypeMyReports ? "My Reports" : "My Answers";
    model::ObjectRecord folder =
        NewFolderRecord(project_id, folder_id, *profile, name, principal.user_id);
    folder.definition = {{"folderType", folder_type}};
    tx.PutObject(folder);
  });
  return folder_id;
}

ObjectView ObjectService::CreateFolder(const session::Principal& principal,
                                       const std::string& project_id, const std::string& parent_id,
                                       const std::string& name, const std::string& description) {
  session::RequirePrivilege(principal, model::Privilege::kCreateApplicationObjects, project_id);
  std::string folder_name(Trim(name));
  if (folder_name.empty()) throw Error(ErrorCode::kInvalidInput, "name: must not be empty");
  ObjectView view;
  store_.Write([&](storage::MetadataTransaction& tx) {
    model::ObjectRecord parent =
        LoadVisible(tx, principal, project_id, parent_id, model::kTypeFolder);
    session::RequireRights(principal, parent, model::kRightWrite);
    for (const auto& sibling : tx.FindChildrenNamed(project_id, parent_id, folder_name)) {
      if (sibling.type == model::kTypeFolder) {
        throw Error(ErrorCode::kAlreadyExists,
                    "A folder named '" + folder_name + "' already exists in '" + parent.name + "'");
      }
    }
    model::ObjectRecord folder =
        NewFolderRecord(project_id, NewObjectId(), parent, folder_name, principal.user_id);
    folder.description = description;
    tx.PutObject(folder);
    ObjectViewBuilder builder(tx, principal);
    view = builder.Build(folder, true);
  });
  return view;
}

SavedObject ObjectService::SaveInFolder(const session::Principal& principal,
                                        const std::string& project_id, const std::string& folder_id,
                                        NewObject object) {
  std::string name(Trim(object.name));
  if (name.empty()) throw Error(ErrorCode::kInvalidInput, "name: must not be empty");
  SavedObject saved;
  store_.Write([&](storage::MetadataTransaction& tx) {
    model::ObjectRecord folder =
        LoadVisible(tx, principal, project_id, folder_id, model::kTypeFolder);
    for (auto& sibling : tx.FindChildrenNamed(project_id, folder_id, name)) {
      if (sibling.type == object.type && sibling.subtype == object.subtype) {
        session::RequireRights(principal, sibling, model::kRightWrite);
        sibling.description = object.description;
        sibling.definition = object.definition;
        saved = {SaveChanged(tx, principal, sibling), true};
        return;
      }
    }
    session::RequirePrivilege(principal, model::Privilege::kCreateApplicationObjects, project_id);
    session::RequireRights(principal, folder, model::kRightWrite);
    model::ObjectRecord record;
    record.project_id = project_id;
    record.id = NewObjectId();
    record.type = object.type;
    record.subtype = object.subtype;
    record.name = name;
    record.description = object.description;
    record.folder_id = folder.id;
    record.owner_id = principal.user_id;
    record.created = Now();
    record.acl = model::InheritedAcl(folder);
    record.definition = object.definition;
    saved = {SaveChanged(tx, principal, record), false};
  });
  return saved;
}

namespace {

// ADD merges rights into the entry of the same trustee and kind; REPLACE overwrites it; REMOVE
// takes rights away and drops an entry left with none.
void ApplyAclChange(model::ObjectRecord& record, const AclChange& change) {
  auto& acl = record.acl;
  auto it = std::find_if(acl.begin(), acl.end(), [&](const model::AclEntry& entry) {
    return entry.trustee_id == change.entry.trustee_id && entry.denied == change.entry.denied;
  });
  switch (change.op) {
    case AclChange::Op::kAdd:
      if (it == acl.end()) {
        acl.push_back(change.entry);
      } else {
        it->rights |= change.entry.rights;
        it->inheritable = change.entry.inheritable;
      }
      break;
    case AclChange::Op::kReplace:
      if (it == acl.end())
        acl.push_back(change.entry);
      else
        *it = change.entry;
      break;
    case AclChange::Op::kRemove:
      if (it != acl.end()) {
        it->rights &= ~change.entry.rights;
        if (it->rights == 0) acl.erase(it);
      }
      break;
  }
}

void ApplyAclChanges(storage::MetadataTransaction& tx, model::ObjectRecord& record,
                     const std::vector<AclChange>& changes) {
  for (const auto& change : changes) {
    auto trustee = tx.FindObject("", change.entry.trustee_id);
    if (!trustee || trustee->type != model::kTypeUser) {
      throw Error(ErrorCode::kInvalidInput,
                  "acl: trustee '" + change.entry.trustee_id + "' is not a user or user group");
    }
    ApplyAclChange(record, change);
  }
}

}  // namespace

ObjectView ObjectService::Update(const session::Principal& principal, const std::string& project_id,
                                 const std::string& id, int type, const ObjectPatch& patch) {
  ObjectView view;
  store_.Write([&](storage::MetadataTransaction& tx) {
    model::ObjectRecord record = LoadVisible(tx, principal, project_id, id, type);
    const bool changes_properties = patch.name || patch.description || patch.hidden;
    if (changes_properties) session::RequireRights(principal, record, model::kRightWrite);
    if (!patch.acl_changes.empty()) session::RequireRights(principal, record, model::kRightControl);
    if (patch.name) {
      std::string name(Trim(*patch.name));
      if (name.empty()) throw Error(ErrorCode::kInvalidInput, "name: must not be empty");
      record.name = name;
    }
    if (patch.description) record.description = *patch.description;
    if (patch.hidden) record.hidden = *patch.hidden;
    ApplyAclChanges(tx, record, patch.acl_changes);
    view = SaveChanged(tx, principal, record);
  });
  return view;
}

ObjectView ObjectService::UpdateAcl(const session::Principal& principal,
                                    const std::string& project_id, const std::string& id, int type,
                                    const std::vector<AclChange>& changes) {
  ObjectPatch patch;
  patch.acl_changes = changes;
  return Update(principal, project_id, id, type, patch);
}

void ObjectService::Delete(const session::Principal& principal, const std::string& project_id,
                           const std::string& id, int type) {
  store_.Write([&](storage::MetadataTransaction& tx) {
    model::ObjectRecord record = LoadVisible(tx, principal, project_id, id, type);
    session::RequireRights(principal, record, model::kRightDelete);
    if (type == model::kTypeProject || record.project_id.empty()) {
      throw Error(ErrorCode::kNotSupported, "Objects of type " + std::to_string(type) +
                                                " cannot be deleted through this endpoint");
    }
    if (IsPredefinedFolder(record)) {
      throw Error(ErrorCode::kInvalidInput,
                  "'" + record.name + "' is a predefined folder and cannot be deleted");
    }
    if (type == model::kTypeFolder && tx.HasChildren(project_id, id)) {
      throw Error(ErrorCode::kInvalidInput, "Folder '" + record.name + "' is not empty");
    }
    auto used_by = tx.ListUsedBy(project_id, id);
    if (!used_by.empty()) {
      throw Error(ErrorCode::kInvalidInput, "'" + record.name + "' is used by " +
                                                std::to_string(used_by.size()) +
                                                " other object(s) and cannot be deleted");
    }
    tx.SetDependencies(project_id, id, {});
    tx.DeleteObject(project_id, id);
  });
}

}  // namespace tessera::service::object
