// service/directory_service.h
//
// Users, user groups and security roles as configuration objects (types 34 and 44).
//
// Bootstrap() makes a fresh storage service usable: the administrator user (well-known id,
// empty password unless one is given), the Everyone and Public/Guest groups, and two roles:
// "System Administrator" (every privilege, granted to the administrator on every project) and
// "Normal User" (run, create and use Library, granted to Everyone). It is idempotent and never
// changes what an administrator has configured since, except the administrator's password when
// one is given.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/directory.h"
#include "model/object.h"
#include "service/object/object_view.h"
#include "service/session/principal.h"
#include "storage/metadata_store.h"

namespace tessera::service {

struct NewUser {
  std::string username;
  std::string password;
  std::string full_name;
  bool enabled = true;
  std::vector<std::string> group_ids;
  std::vector<model::RoleGrant> roles;
};

// A user as the API shows it: its record, its definition and the groups it belongs to directly
// (Everyone included).
struct UserView {
  object::ObjectView object;
  model::UserDefinition definition;
  std::vector<object::ObjectView> memberships;
};

// The users and groups a security role is granted to on one project.
struct RoleProject {
  std::string id;
  std::string name;
  std::vector<object::ObjectView> members;
};

struct SecurityRoleView {
  object::ObjectView object;
  std::vector<int> privileges;
  std::vector<RoleProject> projects;  // GetSecurityRole() only; projects with members only
};

// Changes to a user; absent fields stay.
struct UserPatch {
  std::optional<std::string> full_name;
  std::optional<std::string> description;
  std::optional<std::string> password;
  std::optional<bool> enabled;
};

// Narrows a listing of users or groups: a case-insensitive prefix of the name, of the login
// (users), and a set of ids; empty = no condition.
struct DirectoryFilter {
  std::string name_begins;
  std::string abbreviation_begins;
  std::vector<std::string> ids;
};

class DirectoryService {
 public:
  explicit DirectoryService(storage::MetadataStore& store);

  void Bootstrap(const std::optional<std::string>& admin_password);

  // Checks a standard login; returns the user id. Unknown user, wrong password and disabled
  // user are indistinguishable: Error(kAuthenticationFailed, "Login failed").
  std::string VerifyCredentials(std::string_view username, std::string_view password);

  // Throws Error(kSessionInvalid) when the user no longer exists or is disabled.
  session::Principal LoadPrincipal(const std::string& user_id);

  // Requires Administer users. Throws kAlreadyExists for a taken username, kInvalidInput for an
  // empty username, unknown groups or roles.
  model::ObjectRecord CreateUser(const session::Principal& creator, const NewUser& user);

  // Require Administer users; kNotFound for an unknown user. The administrator cannot be disabled
  // or deleted, nor can a user delete itself (kInvalidInput).
  UserView UpdateUser(const session::Principal& principal, const std::string& user_id,
                      const UserPatch& patch);
  void DeleteUser(const session::Principal& principal, const std::string& user_id);

  // Reading the directory. Another user's record, any listing of users and the members of a
  // group require Administer users (Error(kInsufficientPrivileges) naming it); a user may always
  // read its own record and memberships. Lists are ordered by name, then id. kNotFound for an
  // unknown id or one of another kind.
  std::vector<UserView> ListUsers(const session::Principal& principal,
                                  const DirectoryFilter& filter);
  UserView GetUser(const session::Principal& principal, const std::string& user_id);
  std::vector<object::ObjectView> ListGroups(const session::Principal& principal,
                                             const DirectoryFilter& filter);
  object::ObjectView GetGroup(const session::Principal& principal, const std::string& group_id);
  // The users and groups that belong to the group directly; every user belongs to Everyone.
  std::vector<UserView> GroupMemberUsers(const session::Principal& principal,
                                         const std::string& group_id);
  std::vector<object::ObjectView> GroupMemberGroups(const session::Principal& principal,
                                                    const std::string& group_id);
  // The groups a user or group belongs to directly.
  std::vector<object::ObjectView> Memberships(const session::Principal& principal,
                                              const std::string& id);
  std::vector<SecurityRoleView> ListSecurityRoles(const session::Principal& principal);
  SecurityRoleView GetSecurityRole(const session::Principal& principal, const std::string& role_id);

  static std::string SystemAdministratorRoleId();
  static std::string NormalUserRoleId();

 private:
  storage::MetadataStore& store_;
};

// The display name of a user id ("" when unknown), read inside an open transaction.
std::string UserDisplayName(storage::MetadataTransaction& tx, const std::string& user_id);

}  // namespace tessera::service
