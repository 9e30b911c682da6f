#include "model/package/kind.h"

#include <string>

#include "core/error.h"

namespace tessera::model::package {

PackageKind ParsePackageKind(std::string_view value, std::string_view field_path) {
  for (PackageKind kind :
       {PackageKind::kProject, PackageKind::kConfiguration, PackageKind::kProjectSecurity}) {
    if (value == PackageKindName(kind)) return kind;
  }
  throw Error(ErrorCode::kInvalidInput,
              std::string(field_path) + ": '" + std::string(value) +
                  "' is not a package type; expected one of project, configuration, "
                  "project_security");
}

std::string_view PackageKindName(PackageKind kind) {
  switch (kind) {
    case PackageKind::kProject:
      return "project";
    case PackageKind::kConfiguration:
      return "configuration";
    case PackageKind::kProjectSecurity:
      return "project_security";
  }
  return "project";
}

PackagePurpose ParsePackagePurpose(std::string_view value, std::string_view field_path) {
  for (PackagePurpose purpose : {PackagePurpose::kObjectMigration, PackagePurpose::kProjectMerge,
                                 PackagePurpose::kMigrationFromSharedFileStore}) {
    if (value == PackagePurposeName(purpose)) return purpose;
  }
  throw Error(ErrorCode::kInvalidInput,
              std::string(field_path) + ": '" + std::string(value) +
                  "' is not a package purpose; expected one of object_migration, "
                  "project_merge, migration_from_shared_file_store");
}

std::string_view PackagePurposeName(PackagePurpose purpose) {
  switch (purpose) {
    case PackagePurpose::kObjectMigration:
      return "object_migration";
    case PackagePurpose::kProjectMerge:
      return "project_merge";
    case PackagePurpose::kMigrationFromSharedFileStore:
      return "migration_from_shared_file_store";
  }
  return "object_migration";
}

}  // namespace tessera::model::package
