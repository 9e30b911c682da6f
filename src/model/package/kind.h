// model/package/kind.h
//
// What a migration package is: its `type` — which level of objects it carries — and its `purpose` —
// how it was made. The REST names are the spellings of packageInfo.type and packageInfo.purpose;
// parsing any other text throws Error(kInvalidInput) naming the field and listing the accepted
// values.
#pragma once

#include <string_view>

namespace tessera::model::package {

enum class PackageKind {
  kProject,          // "project": project objects (object migration and project merge)
  kConfiguration,    // "configuration": configuration objects (mstrio-py "administration")
  kProjectSecurity,  // "project_security": users and groups with their links to one project
};

enum class PackagePurpose {
  kObjectMigration,               // "object_migration", the default when omitted
  kProjectMerge,                  // "project_merge": the whole project, settings only
  kMigrationFromSharedFileStore,  // "migration_from_shared_file_store": an uploaded package
};

PackageKind ParsePackageKind(std::string_view value, std::string_view field_path);
std::string_view PackageKindName(PackageKind kind);

PackagePurpose ParsePackagePurpose(std::string_view value, std::string_view field_path);
std::string_view PackagePurposeName(PackagePurpose purpose);

}  // namespace tessera::model::package
