// service/directory_service.h
//
// Users, user groups and security roles as configuration objects (spec 01 §8.3 types 34, 44).
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
#include "service/principal.h"
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

class DirectoryService {
 public:
  explicit DirectoryService(storage::MetadataStore& store);

  void Bootstrap(const std::optional<std::string>& admin_password);

  // Checks a standard login; returns the user id. Unknown user, wrong password and disabled
  // user are indistinguishable: Error(kAuthenticationFailed, "Login failed").
  std::string VerifyCredentials(std::string_view username, std::string_view password);

  // Throws Error(kSessionInvalid) when the user no longer exists or is disabled.
  Principal LoadPrincipal(const std::string& user_id);

  // Requires Administer users. Throws kAlreadyExists for a taken username, kInvalidInput for an
  // empty username, unknown groups or roles.
  model::ObjectRecord CreateUser(const Principal& creator, const NewUser& user);

  std::vector<model::ObjectRecord> ListSecurityRoles();
  std::optional<model::ObjectRecord> FindUser(const std::string& user_id);

  static std::string SystemAdministratorRoleId();
  static std::string NormalUserRoleId();

 private:
  storage::MetadataStore& store_;
};

// The display name of a user id ("" when unknown), read inside an open transaction.
std::string UserDisplayName(storage::MetadataTransaction& tx, const std::string& user_id);

}  // namespace tessera::service
