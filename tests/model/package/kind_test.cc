#include "model/package/kind.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace tessera::model::package {
namespace {

TEST(PackageKind, RestNamesRoundTrip) {
  for (const char* name : {"project", "configuration", "project_security"}) {
    EXPECT_EQ(package::PackageKindName(package::ParsePackageKind(name, "packageInfo.type")), name);
  }
  for (const char* name :
       {"object_migration", "project_merge", "migration_from_shared_file_store"}) {
    EXPECT_EQ(
        package::PackagePurposeName(package::ParsePackagePurpose(name, "packageInfo.purpose")),
        name);
  }
}

TEST(PackageKind, AnUnknownTypeNamesTheFieldAndTheAcceptedValues) {
  try {
    package::ParsePackageKind("administration", "packageInfo.type");
    FAIL() << "accepted";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kInvalidInput);
    EXPECT_EQ(error.message(),
              "packageInfo.type: 'administration' is not a package type; expected one of "
              "project, configuration, project_security");
  }
}

TEST(PackagePurpose, GroupsAreNotAPurposeTesseraAccepts) {
  try {
    package::ParsePackagePurpose("migration_group", "packageInfo.purpose");
    FAIL() << "accepted";
  } catch (const Error& error) {
    EXPECT_EQ(error.message(),
              "packageInfo.purpose: 'migration_group' is not a package purpose; expected one of "
              "object_migration, project_merge, migration_from_shared_file_store");
  }
}

}  // namespace
}  // namespace tessera::model::package
