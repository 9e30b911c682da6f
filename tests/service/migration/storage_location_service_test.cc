// The package storage location: the configured directory, an administrator's replacement kept in
// the storage service, and the refusals of locations that cannot be used.
#include "service/migration/storage_location_service.h"

#include <gtest/gtest.h>

#include <fstream>

#include "core/error.h"
#include "support/store_backend_test.h"
#include "support/temp_dir.h"

namespace tessera::testing {
namespace {

using service::migration::StorageLocationRequest;
using service::migration::StorageLocationService;
using service::session::Principal;

Principal Administrator() {
  Principal principal;
  principal.user_id = "54F3D26011D2896560009A8E67019608";
  principal.privilege_projects[static_cast<int>(model::Privilege::kAdministerEnvironment)] = {"*"};
  return principal;
}

StorageLocationRequest FileSystem(const std::filesystem::path& location) {
  return {.location = location, .alias = {}};
}

ErrorCode CodeOf(const std::function<void()>& call) {
  try {
    call();
  } catch (const Error& error) {
    return error.code();
  }
  return ErrorCode::kInternal;
}

class StorageLocation : public StoreBackendTest {
 protected:
  void SetUp() override {
    StoreBackendTest::SetUp();
    if (IsSkipped()) return;
    store_ = OpenStore();
  }

  std::unique_ptr<storage::MetadataStore> store_;
  TempDir configured_;
  TempDir other_;
};

TEST_P(StorageLocation, AServerWithoutADirectoryIsNotConfigured) {
  StorageLocationService service(*store_, "");

  try {
    service.Require();
    FAIL() << "a location was returned";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kServiceUnavailable);
    EXPECT_EQ(error.message(), storage::package::kLocationNotConfiguredMessage);
  }
  EXPECT_EQ(service.Describe(Administrator())["sharedFileStore"]["type"], "unset");
  EXPECT_EQ(service.Describe(Administrator())["sharedFileStore"]["configured"], false);
}

TEST_P(StorageLocation, AConfiguredDirectoryThatDoesNotExistIsNotConfigured) {
  StorageLocationService service(*store_, configured_.path() / "missing");

  EXPECT_EQ(CodeOf([&] { service.Require(); }), ErrorCode::kServiceUnavailable);
}

TEST_P(StorageLocation, AnAdministratorReplacesTheConfiguredDirectoryForEveryNode) {
  StorageLocationService service(*store_, configured_.path());
  ASSERT_EQ(service.Require().root(), configured_.path());

  service.Configure(Administrator(), FileSystem(other_.path()));
  StorageLocationService other_node(*store_, configured_.path());

  EXPECT_EQ(other_node.Require().root(), other_.path());
  Json described = other_node.Describe(Administrator())["sharedFileStore"];
  EXPECT_EQ(described["type"], "file_system");
  EXPECT_EQ(described["location"], other_.path().string());
  EXPECT_EQ(described["configured"], true);
}

TEST_P(StorageLocation, UnsetGoesBackToTheConfiguredDirectory) {
  StorageLocationService service(*store_, configured_.path());
  service.Configure(Administrator(), FileSystem(other_.path()));

  service.Configure(Administrator(), {.unset = true, .location = {}, .alias = {}});

  EXPECT_EQ(service.Require().root(), configured_.path());
}

TEST_P(StorageLocation, LocationsThatCannotBeUsedAreRefusedAndChangeNothing) {
  StorageLocationService service(*store_, configured_.path());
  std::ofstream(other_.path() / "a-file") << "not a directory";

  for (const std::filesystem::path& location :
       {other_.path() / "missing", other_.path() / "a-file"}) {
    EXPECT_EQ(CodeOf([&] { service.Configure(Administrator(), FileSystem(location)); }),
              ErrorCode::kInvalidInput)
        << location;
    EXPECT_EQ(CodeOf([&] { service.Validate(Administrator(), FileSystem(location)); }),
              ErrorCode::kInvalidInput)
        << location;
  }
  EXPECT_EQ(service.Require().root(), configured_.path());
}

TEST_P(StorageLocation, ConfiguringTheLocationNeedsAdministerEnvironment) {
  StorageLocationService service(*store_, configured_.path());
  Principal analyst;
  analyst.user_id = "0123456789ABCDEF0123456789ABCDEF";

  EXPECT_EQ(CodeOf([&] { service.Describe(analyst); }), ErrorCode::kInsufficientPrivileges);
  EXPECT_EQ(CodeOf([&] { service.Configure(analyst, FileSystem(other_.path())); }),
            ErrorCode::kInsufficientPrivileges);
  EXPECT_EQ(service.Require().root(), configured_.path());
}

INSTANTIATE_TEST_SUITE_P(Backends, StorageLocation, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
