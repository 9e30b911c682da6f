#include "service/directory_service.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "core/error.h"
#include "core/ids.h"
#include "core/strings.h"
#include "model/object_types.h"
#include "model/well_known.h"
#include "service/session/password_hasher.h"

namespace tessera::service {

namespace {

using model::ObjectRecord;

ObjectRecord NewConfigurationObject(std::string id, int type, int subtype, std::string name) {
  ObjectRecord object;
  object.id = std::move(id);
  object.type = type;
  object.subtype = subtype;
  object.name = std::move(name);
  object.owner_id = std::string(model::kAdministratorUserId);
  object.version = NewObjectId();
  object.created = object.modified = Now();
  object.acl = {{std::string(model::kEveryoneGroupId), model::kRightBrowse | model::kRightRead,
                 false, false}};
  return object;
}

std::vector<int> AllPrivileges() {
  std::vector<int> ids;
  for (const auto& info : model::PrivilegeCatalog())
    ids.push_back(static_cast<int>(info.privilege));
  return ids;
}

void EnsureRole(storage::MetadataTransaction& tx, const std::string& id, const std::string& name,
                std::vector<int> privileges) {
  if (tx.FindObject("", id)) return;
  ObjectRecord role =
      NewConfigurationObject(id, model::kTypeSecurityRole, model::kSubtypeSecurityRole, name);
  role.folder_id = model::SecurityRolesFolderId();
  role.definition = model::ToJson(model::SecurityRoleDefinition{std::move(privileges)});
  tx.PutObject(role);
}

// The configuration root and its folders, and users, groups and roles of an earlier version's
// store (which had no folders) filed in them.
void EnsureConfigurationFolders(storage::MetadataTransaction& tx) {
  auto folder = [](std::string id, std::string name, std::string parent, int folder_type) {
    ObjectRecord record = NewConfigurationObject(std::move(id), model::kTypeFolder,
                                                 model::kSubtypeFolder, std::move(name));
    record.folder_id = std::move(parent);
    if (folder_type) record.definition = {{"folderType", folder_type}};
    return record;
  };
  const std::string root = model::ConfigurationRootFolderId();
  for (const auto& record :
       {folder(root, std::string(model::kConfigurationRootName), "", model::kFolderTypeRoot),
        folder(model::UsersFolderId(), "Users", root, 0),
        folder(model::UserGroupsFolderId(), "User Groups", root, 0),
        folder(model::SecurityRolesFolderId(), "Security Roles", root, 0)}) {
    if (!tx.FindObject("", record.id)) tx.PutObject(record);
  }
  for (auto& object : tx.ListObjects("", {{model::kTypeUser, model::kTypeSecurityRole}, {}})) {
    if (!object.folder_id.empty()) continue;
    object.folder_id = object.type == model::kTypeSecurityRole      ? model::SecurityRolesFolderId()
                       : object.subtype == model::kSubtypeUserGroup ? model::UserGroupsFolderId()
                                                                    : model::UsersFolderId();
    tx.PutObject(object);
  }
}

// A store made by an earlier version: its System Administrator role gets the privileges added to
// the catalogue since.
void GrantNewPrivileges(storage::MetadataTransaction& tx, const std::string& role_id) {
  auto role = tx.FindObject("", role_id);
  if (!role) return;
  auto definition = model::SecurityRoleFromJson(role->definition);
  bool changed = false;
  for (int id : AllPrivileges()) {
    if (std::find(definition.privileges.begin(), definition.privileges.end(), id) ==
        definition.privileges.end()) {
      definition.privileges.push_back(id);
      changed = true;
    }
  }
  if (!changed) return;
  role->definition = model::ToJson(definition);
  role->version = NewObjectId();
  role->modified = Now();
  tx.PutObject(*role);
}

void EnsureGroup(storage::MetadataTransaction& tx, std::string_view id, std::string name,
                 model::GroupDefinition definition) {
  if (tx.FindObject("", std::string(id))) return;
  ObjectRecord group = NewConfigurationObject(std::string(id), model::kTypeUser,
                                              model::kSubtypeUserGroup, std::move(name));
  group.folder_id = model::UserGroupsFolderId();
  group.definition = model::ToJson(definition);
  tx.PutObject(group);
}

std::optional<ObjectRecord> FindUserByUsername(storage::MetadataTransaction& tx,
                                               std::string_view username) {
  for (auto& object : tx.ListObjects("", {{model::kTypeUser}, {}})) {
    if (object.subtype != model::kSubtypeUser) continue;
    if (EqualsIgnoreCase(object.definition.value("username", ""), username)) return object;
  }
  return std::nullopt;
}

std::string Initials(std::string_view full_name) {
  std::string initials;
  for (const auto& word : Split(full_name, ' ')) {
    if (!word.empty()) initials.push_back(static_cast<char>(std::toupper(word[0])));
  }
  return initials;
}

// Grants from the user and, transitively, from every group it belongs to.
void CollectGroups(storage::MetadataTransaction& tx, const std::vector<std::string>& start,
                   std::set<std::string>& groups, std::vector<model::RoleGrant>& grants) {
  std::vector<std::string> pending = start;
  while (!pending.empty()) {
    std::string group_id = pending.back();
    pending.pop_back();
    if (!groups.insert(group_id).second) continue;
    auto group = tx.FindObject("", group_id);
    if (!group || group->subtype != model::kSubtypeUserGroup) continue;
    auto definition = model::GroupFromJson(group->definition);
    grants.insert(grants.end(), definition.roles.begin(), definition.roles.end());
    pending.insert(pending.end(), definition.member_of.begin(), definition.member_of.end());
  }
}

}  // namespace

DirectoryService::DirectoryService(storage::MetadataStore& store) : store_(store) {}

std::string DirectoryService::SystemAdministratorRoleId() {
  return DeterministicObjectId("tessera:security-role:System Administrator");
}

std::string DirectoryService::NormalUserRoleId() {
  return DeterministicObjectId("tessera:security-role:Normal User");
}

void DirectoryService::Bootstrap(const std::optional<std::string>& admin_password) {
  store_.Write([&](storage::MetadataTransaction& tx) {
    EnsureConfigurationFolders(tx);
    EnsureRole(tx, SystemAdministratorRoleId(), "System Administrator", AllPrivileges());
    GrantNewPrivileges(tx, SystemAdministratorRoleId());
    EnsureRole(tx, NormalUserRoleId(), "Normal User",
               {static_cast<int>(model::Privilege::kExecuteReports),
                static_cast<int>(model::Privilege::kCreateApplicationObjects),
                static_cast<int>(model::Privilege::kUseLibrary)});
    EnsureGroup(tx, model::kEveryoneGroupId, "Everyone",
                {{}, {{NormalUserRoleId(), {std::string(session::kAllProjects)}}}});
    EnsureGroup(tx, model::kPublicGuestGroupId, "Public / Guest", {});

    auto admin = tx.FindObject("", std::string(model::kAdministratorUserId));
    const bool is_new = !admin;
    if (is_new) {
      admin = NewConfigurationObject(std::string(model::kAdministratorUserId), model::kTypeUser,
                                     model::kSubtypeUser, "Administrator");
      admin->folder_id = model::UsersFolderId();
      model::UserDefinition definition;
      definition.username = "administrator";
      definition.full_name = "Administrator";
      definition.initials = "A";
      definition.roles = {{SystemAdministratorRoleId(), {std::string(session::kAllProjects)}}};
      admin->definition = model::ToJson(definition);
    }
    if (admin_password) {
      auto definition = model::UserFromJson(admin->definition);
      if (!is_new && session::VerifyPassword(definition.password_hash, *admin_password)) return;
      definition.password_hash = session::HashPassword(*admin_password);
      admin->definition = model::ToJson(definition);
      admin->version = NewObjectId();
      admin->modified = Now();
    } else if (!is_new) {
      return;
    }
    tx.PutObject(*admin);
  });
}

std::string DirectoryService::VerifyCredentials(std::string_view username,
                                                std::string_view password) {
  std::optional<ObjectRecord> user;
  store_.Read([&](storage::MetadataTransaction& tx) { user = FindUserByUsername(tx, username); });
  if (!user) {
    // Spend the same time as a real check, so timing does not reveal which users exist.
    static const std::string kDecoy = session::HashPassword("decoy password");
    session::VerifyPassword(kDecoy, password.empty() ? "x" : password);
    throw Error(ErrorCode::kAuthenticationFailed, "Login failed");
  }
  auto definition = model::UserFromJson(user->definition);
  if (!definition.enabled || !session::VerifyPassword(definition.password_hash, password)) {
    throw Error(ErrorCode::kAuthenticationFailed, "Login failed");
  }
  return user->id;
}

session::Principal DirectoryService::LoadPrincipal(const std::string& user_id) {
  session::Principal principal;
  store_.Read([&](storage::MetadataTransaction& tx) {
    auto user = tx.FindObject("", user_id);
    if (!user || user->subtype != model::kSubtypeUser) {
      throw Error(ErrorCode::kSessionInvalid,
                  "The user's session has expired, please reauthenticate");
    }
    auto definition = model::UserFromJson(user->definition);
    if (!definition.enabled) {
      throw Error(ErrorCode::kSessionInvalid,
                  "The user's session has expired, please reauthenticate");
    }
    principal.user_id = user->id;
    principal.username = definition.username;
    principal.full_name = definition.full_name.empty() ? user->name : definition.full_name;
    principal.initials = definition.initials;

    std::set<std::string> groups;
    std::vector<model::RoleGrant> grants = definition.roles;
    std::vector<std::string> start = definition.member_of;
    start.emplace_back(model::kEveryoneGroupId);
    CollectGroups(tx, start, groups, grants);
    principal.group_ids.assign(groups.begin(), groups.end());

    for (const auto& grant : grants) {
      auto role = tx.FindObject("", grant.role_id);
      if (!role || role->type != model::kTypeSecurityRole) continue;
      for (int privilege : model::SecurityRoleFromJson(role->definition).privileges) {
        auto& projects = principal.privilege_projects[privilege];
        projects.insert(grant.project_ids.begin(), grant.project_ids.end());
      }
    }
  });
  return principal;
}

model::ObjectRecord DirectoryService::CreateUser(const session::Principal& creator,
                                                 const NewUser& request) {
  session::RequirePrivilege(creator, model::Privilege::kAdministerUsers, "");
  std::string username(Trim(request.username));
  if (username.empty()) throw Error(ErrorCode::kInvalidInput, "username: must not be empty");
  ObjectRecord user =
      NewConfigurationObject(NewObjectId(), model::kTypeUser, model::kSubtypeUser,
                             request.full_name.empty() ? username : request.full_name);
  user.folder_id = model::UsersFolderId();
  user.owner_id = creator.user_id;
  model::UserDefinition definition;
  definition.username = username;
  definition.password_hash = session::HashPassword(request.password);
  definition.enabled = request.enabled;
  definition.full_name = user.name;
  definition.initials = Initials(user.name);
  definition.member_of = request.group_ids;
  definition.roles = request.roles;
  user.definition = model::ToJson(definition);

  store_.Write([&](storage::MetadataTransaction& tx) {
    if (FindUserByUsername(tx, username)) {
      throw Error(ErrorCode::kAlreadyExists, "A user named '" + username + "' already exists");
    }
    for (const auto& group_id : request.group_ids) {
      auto group = tx.FindObject("", group_id);
      if (!group || group->subtype != model::kSubtypeUserGroup) {
        throw Error(ErrorCode::kInvalidInput,
                    "memberships: '" + group_id + "' is not a user group");
      }
    }
    for (const auto& grant : request.roles) {
      auto role = tx.FindObject("", grant.role_id);
      if (!role || role->type != model::kTypeSecurityRole) {
        throw Error(ErrorCode::kInvalidInput,
                    "securityRoles: '" + grant.role_id + "' is not a security role");
      }
    }
    tx.PutObject(user);
  });
  return user;
}

namespace {

bool IsUser(const ObjectRecord& object) {
  return object.type == model::kTypeUser && object.subtype == model::kSubtypeUser;
}

bool IsGroup(const ObjectRecord& object) {
  return object.type == model::kTypeUser && object.subtype == model::kSubtypeUserGroup;
}

std::vector<std::string> DirectGroupIds(const ObjectRecord& user_or_group) {
  if (IsUser(user_or_group)) {
    std::vector<std::string> ids = model::UserFromJson(user_or_group.definition).member_of;
    if (std::find(ids.begin(), ids.end(), model::kEveryoneGroupId) == ids.end()) {
      ids.emplace_back(model::kEveryoneGroupId);
    }
    return ids;
  }
  return model::GroupFromJson(user_or_group.definition).member_of;
}

bool Passes(const ObjectRecord& object, const DirectoryFilter& filter) {
  if (!filter.ids.empty() &&
      std::find(filter.ids.begin(), filter.ids.end(), object.id) == filter.ids.end()) {
    return false;
  }
  if (!StartsWithIgnoreCase(object.name, filter.name_begins)) return false;
  if (filter.abbreviation_begins.empty()) return true;
  return IsUser(object) &&
         StartsWithIgnoreCase(object.definition.value("username", ""), filter.abbreviation_begins);
}

// Users and groups (of `subtype`) passing the filter, by name then id.
std::vector<ObjectRecord> ListDirectory(storage::MetadataTransaction& tx, int subtype,
                                        const DirectoryFilter& filter) {
  std::vector<ObjectRecord> found;
  for (auto& object : tx.ListObjects("", {{model::kTypeUser}, {}})) {
    if (object.subtype == subtype && Passes(object, filter)) found.push_back(std::move(object));
  }
  std::sort(found.begin(), found.end(), [](const ObjectRecord& a, const ObjectRecord& b) {
    return std::tie(a.name, a.id) < std::tie(b.name, b.id);
  });
  return found;
}

ObjectRecord LoadDirectoryObject(storage::MetadataTransaction& tx, const std::string& id,
                                 bool (*is_kind)(const ObjectRecord&), std::string_view kind) {
  auto object = tx.FindObject("", id);
  if (!object || !is_kind(*object)) {
    throw Error(ErrorCode::kNotFound, std::string(kind) + " '" + id + "' was not found");
  }
  return *object;
}

void RequireReadOf(const session::Principal& principal, const std::string& user_id) {
  if (principal.user_id == user_id) return;
  session::RequirePrivilege(principal, model::Privilege::kAdministerUsers, "");
}

UserView BuildUserView(storage::MetadataTransaction& tx, object::ObjectViewBuilder& builder,
                       const ObjectRecord& user) {
  UserView view;
  view.object = builder.Build(user, false);
  view.definition = model::UserFromJson(user.definition);
  for (const auto& group_id : DirectGroupIds(user)) {
    if (auto group = tx.FindObject("", group_id); group && IsGroup(*group)) {
      view.memberships.push_back(builder.Build(*group, false));
    }
  }
  return view;
}

std::vector<model::RoleGrant> GrantsOf(const ObjectRecord& user_or_group) {
  return IsUser(user_or_group) ? model::UserFromJson(user_or_group.definition).roles
                               : model::GroupFromJson(user_or_group.definition).roles;
}

bool GrantsRoleOn(const std::vector<model::RoleGrant>& grants, const std::string& role_id,
                  const std::string& project_id) {
  for (const auto& grant : grants) {
    if (grant.role_id != role_id) continue;
    for (const auto& granted : grant.project_ids) {
      if (granted == session::kAllProjects || granted == project_id) return true;
    }
  }
  return false;
}

std::vector<RoleProject> RoleProjects(storage::MetadataTransaction& tx,
                                      object::ObjectViewBuilder& builder,
                                      const std::string& role_id) {
  std::vector<ObjectRecord> trustees = tx.ListObjects("", {{model::kTypeUser}, {}});
  std::vector<RoleProject> projects;
  for (const auto& project : tx.ListProjects()) {
    RoleProject entry{project.object.id, project.object.name, {}};
    for (const auto& trustee : trustees) {
      if (GrantsRoleOn(GrantsOf(trustee), role_id, project.object.id)) {
        entry.members.push_back(builder.Build(trustee, false));
      }
    }
    if (!entry.members.empty()) projects.push_back(std::move(entry));
  }
  return projects;
}

}  // namespace

UserView DirectoryService::UpdateUser(const session::Principal& principal,
                                      const std::string& user_id, const UserPatch& patch) {
  session::RequirePrivilege(principal, model::Privilege::kAdministerUsers, "");
  if (patch.enabled == false && user_id == model::kAdministratorUserId) {
    throw Error(ErrorCode::kInvalidInput, "The administrator cannot be disabled");
  }
  UserView view;
  store_.Write([&](storage::MetadataTransaction& tx) {
    ObjectRecord user = LoadDirectoryObject(tx, user_id, IsUser, "User");
    model::UserDefinition definition = model::UserFromJson(user.definition);
    if (patch.full_name) {
      std::string name(Trim(*patch.full_name));
      if (name.empty()) throw Error(ErrorCode::kInvalidInput, "fullName: must not be empty");
      definition.full_name = user.name = name;
      definition.initials = Initials(name);
    }
    if (patch.description) user.description = *patch.description;
    if (patch.password) definition.password_hash = session::HashPassword(*patch.password);
    if (patch.enabled) definition.enabled = *patch.enabled;
    user.definition = model::ToJson(definition);
    user.version = NewObjectId();
    user.modified = Now();
    tx.PutObject(user);
    object::ObjectViewBuilder builder(tx, principal);
    view = BuildUserView(tx, builder, user);
  });
  return view;
}

void DirectoryService::DeleteUser(const session::Principal& principal, const std::string& user_id) {
  session::RequirePrivilege(principal, model::Privilege::kAdministerUsers, "");
  if (user_id == model::kAdministratorUserId || user_id == principal.user_id) {
    throw Error(ErrorCode::kInvalidInput,
                "The administrator and the user making the request cannot be deleted");
  }
  store_.Write([&](storage::MetadataTransaction& tx) {
    LoadDirectoryObject(tx, user_id, IsUser, "User");
    tx.DeleteObject("", user_id);
  });
}

std::vector<UserView> DirectoryService::ListUsers(const session::Principal& principal,
                                                  const DirectoryFilter& filter) {
  session::RequirePrivilege(principal, model::Privilege::kAdministerUsers, "");
  std::vector<UserView> users;
  store_.Read([&](storage::MetadataTransaction& tx) {
    object::ObjectViewBuilder builder(tx, principal);
    for (const auto& user : ListDirectory(tx, model::kSubtypeUser, filter)) {
      users.push_back(BuildUserView(tx, builder, user));
    }
  });
  return users;
}

UserView DirectoryService::GetUser(const session::Principal& principal,
                                   const std::string& user_id) {
  RequireReadOf(principal, user_id);
  UserView view;
  store_.Read([&](storage::MetadataTransaction& tx) {
    object::ObjectViewBuilder builder(tx, principal);
    view = BuildUserView(tx, builder, LoadDirectoryObject(tx, user_id, IsUser, "User"));
  });
  return view;
}

std::vector<object::ObjectView> DirectoryService::ListGroups(const session::Principal& principal,
                                                             const DirectoryFilter& filter) {
  std::vector<object::ObjectView> groups;
  store_.Read([&](storage::MetadataTransaction& tx) {
    object::ObjectViewBuilder builder(tx, principal);
    for (const auto& group : ListDirectory(tx, model::kSubtypeUserGroup, filter)) {
      groups.push_back(builder.Build(group, false));
    }
  });
  return groups;
}

object::ObjectView DirectoryService::GetGroup(const session::Principal& principal,
                                              const std::string& group_id) {
  object::ObjectView view;
  store_.Read([&](storage::MetadataTransaction& tx) {
    object::ObjectViewBuilder builder(tx, principal);
    view = builder.Build(LoadDirectoryObject(tx, group_id, IsGroup, "User group"), false);
  });
  return view;
}

std::vector<UserView> DirectoryService::GroupMemberUsers(const session::Principal& principal,
                                                         const std::string& group_id) {
  session::RequirePrivilege(principal, model::Privilege::kAdministerUsers, "");
  std::vector<UserView> members;
  store_.Read([&](storage::MetadataTransaction& tx) {
    LoadDirectoryObject(tx, group_id, IsGroup, "User group");
    object::ObjectViewBuilder builder(tx, principal);
    for (const auto& user : ListDirectory(tx, model::kSubtypeUser, {})) {
      auto groups = DirectGroupIds(user);
      if (std::find(groups.begin(), groups.end(), group_id) == groups.end()) continue;
      members.push_back(BuildUserView(tx, builder, user));
    }
  });
  return members;
}

std::vector<object::ObjectView> DirectoryService::GroupMemberGroups(
    const session::Principal& principal, const std::string& group_id) {
  session::RequirePrivilege(principal, model::Privilege::kAdministerUsers, "");
  std::vector<object::ObjectView> members;
  store_.Read([&](storage::MetadataTransaction& tx) {
    LoadDirectoryObject(tx, group_id, IsGroup, "User group");
    object::ObjectViewBuilder builder(tx, principal);
    for (const auto& group : ListDirectory(tx, model::kSubtypeUserGroup, {})) {
      auto parents = DirectGroupIds(group);
      if (std::find(parents.begin(), parents.end(), group_id) == parents.end()) continue;
      members.push_back(builder.Build(group, false));
    }
  });
  return members;
}

std::vector<object::ObjectView> DirectoryService::Memberships(const session::Principal& principal,
                                                              const std::string& id) {
  RequireReadOf(principal, id);
  std::vector<object::ObjectView> groups;
  store_.Read([&](storage::MetadataTransaction& tx) {
    auto object = tx.FindObject("", id);
    if (!object || object->type != model::kTypeUser) {
      throw Error(ErrorCode::kNotFound, "User or user group '" + id + "' was not found");
    }
    object::ObjectViewBuilder builder(tx, principal);
    for (const auto& group_id : DirectGroupIds(*object)) {
      if (auto group = tx.FindObject("", group_id); group && IsGroup(*group)) {
        groups.push_back(builder.Build(*group, false));
      }
    }
  });
  return groups;
}

std::vector<SecurityRoleView> DirectoryService::ListSecurityRoles(
    const session::Principal& principal) {
  std::vector<SecurityRoleView> roles;
  store_.Read([&](storage::MetadataTransaction& tx) {
    object::ObjectViewBuilder builder(tx, principal);
    for (const auto& role : tx.ListObjects("", {{model::kTypeSecurityRole}, {}})) {
      roles.push_back({builder.Build(role, false),
                       model::SecurityRoleFromJson(role.definition).privileges,
                       {}});
    }
  });
  return roles;
}

SecurityRoleView DirectoryService::GetSecurityRole(const session::Principal& principal,
                                                   const std::string& role_id) {
  SecurityRoleView view;
  store_.Read([&](storage::MetadataTransaction& tx) {
    auto role = tx.FindObject("", role_id);
    if (!role || role->type != model::kTypeSecurityRole) {
      throw Error(ErrorCode::kNotFound, "Security role '" + role_id + "' was not found");
    }
    object::ObjectViewBuilder builder(tx, principal);
    view = {builder.Build(*role, false), model::SecurityRoleFromJson(role->definition).privileges,
            RoleProjects(tx, builder, role_id)};
  });
  return view;
}

std::string UserDisplayName(storage::MetadataTransaction& tx, const std::string& user_id) {
  auto user = tx.FindObject("", user_id);
  return user ? user->name : "";
}

}  // namespace tessera::service
