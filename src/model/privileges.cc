#include "model/privileges.h"

#include <array>

namespace tessera::model {

namespace {

constexpr std::array<PrivilegeInfo, 9> kCatalog = {{
    {Privilege::kCreatePackage, "Create package", "Create migration packages of objects"},
    {Privilege::kApplyPackage, "Apply package", "Import migration packages into a project"},
    {Privilege::kBypassObjectSecurity, "Bypass all object security access checks",
     "Read and change every object regardless of its access control list"},
    {Privilege::kAdministerEnvironment, "Administer environment",
     "Change server-wide settings such as the package storage location"},
    {Privilege::kExecuteReports, "Execute documents and reports",
     "Run reports, cubes and dashboards"},
    {Privilege::kCreateApplicationObjects, "Create application objects",
     "Create folders, reports, filters, metrics and dashboards"},
    {Privilege::kUseLibrary, "Use Library", "Open dashboards in Library"},
    {Privilege::kAdministerUsers, "Administer users", "Create and change users and groups"},
    {Privilege::kPublishCubes, "Publish cubes",
     "Publish and refresh cubes, which reads their data from the warehouse"},
}};

}  // namespace

std::span<const PrivilegeInfo> PrivilegeCatalog() { return kCatalog; }

std::optional<PrivilegeInfo> FindPrivilege(int id) {
  for (const auto& info : kCatalog) {
    if (static_cast<int>(info.privilege) == id) return info;
  }
  return std::nullopt;
}

}  // namespace tessera::model
