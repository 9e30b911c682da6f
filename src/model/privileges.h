// model/privileges.h
//
// The privilege catalogue. Security roles grant privileges per project (or on every project);
// a user holds the privileges of its own roles and of its groups' roles.
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace tessera::model {

enum class Privilege : int {
  kCreatePackage = 286,
  kApplyPackage = 287,
  kBypassObjectSecurity = 288,
  kAdministerEnvironment = 289,
  kExecuteReports = 290,
  kCreateApplicationObjects = 291,
  kUseLibrary = 292,
  kAdministerUsers = 293,
  kPublishCubes = 294,
};

struct PrivilegeInfo {
  Privilege privilege;
  std::string_view name;
  std::string_view description;
};

std::span<const PrivilegeInfo> PrivilegeCatalog();
std::optional<PrivilegeInfo> FindPrivilege(int id);

}  // namespace tessera::model
