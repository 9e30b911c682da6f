#include "service/directory_service.h"

#include <set>

#include "core/error.h"
#include "core/ids.h"
#include "core/strings.h"
#include "model/object_types.h"
#include "model/well_known.h"
#include "service/password_hasher.h"

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
  role.definition = model::ToJson(model::SecurityRoleDefinition{std::move(privileges)});
  tx.PutObject(role);
}

void EnsureGroup(storage::MetadataTransaction& tx, std::string_view id, std::string name,
                 model::GroupDefinition definition) {
  if (tx.FindObject("", std::string(id))) return;
  ObjectRecord group = NewConfigurationObject(std::string(id), model::kTypeUser,
                                              model::kSubtypeUserGroup, std::move(name));
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
    EnsureRole(tx, SystemAdministratorRoleId(), "System Administrator", AllPrivileges());
    EnsureRole(tx, NormalUserRoleId(), "Normal User",
               {static_cast<int>(model::Privilege::kExecuteReports),
                static_cast<int>(model::Privilege::kCreateApplicationObjects),
                static_cast<int>(model::Privilege::kUseLibrary)});
    EnsureGroup(tx, model::kEveryoneGroupId, "Everyone",
                {{}, {{NormalUserRoleId(), {std::string(kAllProjects)}}}});
    EnsureGroup(tx, model::kPublicGuestGroupId, "Public / Guest", {});

    auto admin = tx.FindObject("", std::string(model::kAdministratorUserId));
    const bool is_new = !admin;
    if (is_new) {
      admin = NewConfigurationObject(std::string(model::kAdministratorUserId), model::kTypeUser,
                                     model::kSubtypeUser, "Administrator");
      model::UserDefinition definition;
      definition.username = "administrator";
      definition.full_name = "Administrator";
      definition.initials = "A";
      definition.roles = {{SystemAdministratorRoleId(), {std::string(kAllProjects)}}};
      admin->definition = model::ToJson(definition);
    }
    if (admin_password) {
      auto definition = model::UserFromJson(admin->definition);
      if (!is_new && VerifyPassword(definition.password_hash, *admin_password)) return;
      definition.password_hash = HashPassword(*admin_password);
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
    static const std::string kDecoy = HashPassword("decoy password");
    VerifyPassword(kDecoy, password.empty() ? "x" : password);
    throw Error(ErrorCode::kAuthenticationFailed, "Login failed");
  }
  auto definition = model::UserFromJson(user->definition);
  if (!definition.enabled || !VerifyPassword(definition.password_hash, password)) {
    throw Error(ErrorCode::kAuthenticationFailed, "Login failed");
  }
  return user->id;
}

Principal DirectoryService::LoadPrincipal(const std::string& user_id) {
  Principal principal;
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

model::ObjectRecord DirectoryService::CreateUser(const Principal& creator, const NewUser& request) {
  RequirePrivilege(creator, model::Privilege::kAdministerUsers, "");
  std::string username(Trim(request.username));
  if (username.empty()) throw Error(ErrorCode::kInvalidInput, "username: must not be empty");
  ObjectRecord user =
      NewConfigurationObject(NewObjectId(), model::kTypeUser, model::kSubtypeUser,
                             request.full_name.empty() ? username : request.full_name);
  user.owner_id = creator.user_id;
  model::UserDefinition definition;
  definition.username = username;
  definition.password_hash = HashPassword(request.password);
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

std::vector<model::ObjectRecord> DirectoryService::ListSecurityRoles() {
  std::vector<ObjectRecord> roles;
  store_.Read([&](storage::MetadataTransaction& tx) {
    roles = tx.ListObjects("", {{model::kTypeSecurityRole}, {}});
  });
  return roles;
}

std::optional<model::ObjectRecord> DirectoryService::FindUser(const std::string& user_id) {
  std::optional<ObjectRecord> user;
  store_.Read([&](storage::MetadataTransaction& tx) { user = tx.FindObject("", user_id); });
  if (user && user->type != model::kTypeUser) return std::nullopt;
  return user;
}

std::string UserDisplayName(storage::MetadataTransaction& tx, const std::string& user_id) {
  auto user = tx.FindObject("", user_id);
  return user ? user->name : "";
}

}  // namespace tessera::service
