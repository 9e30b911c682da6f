#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "storage/metadata_store.h"
#include "storage/sample_records.h"
#include "support/store_backend_test.h"

namespace tessera::testing {
namespace {

using storage::MetadataTransaction;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

class DependencyStore : public StoreBackendTest {
 protected:
  void SetUp() override {
    StoreBackendTest::SetUp();
    if (IsSkipped()) return;
    store_ = OpenStore();
  }

  void SetUses(const std::string& project_id, const std::string& object_id,
               const std::vector<std::string>& used_ids) {
    store_->Write(
        [&](MetadataTransaction& tx) { tx.SetDependencies(project_id, object_id, used_ids); });
  }

  std::vector<std::string> Uses(const std::string& object_id) {
    std::vector<std::string> ids;
    store_->Read([&](MetadataTransaction& tx) { ids = tx.ListUses(kProject, object_id); });
    return ids;
  }

  std::vector<std::string> UsedBy(const std::string& object_id) {
    std::vector<std::string> ids;
    store_->Read([&](MetadataTransaction& tx) { ids = tx.ListUsedBy(kProject, object_id); });
    return ids;
  }

  std::unique_ptr<storage::MetadataStore> store_;
};

TEST_P(DependencyStore, UsesAndUsedByAreTwoViewsOfTheSameEdges) {
  // A report uses two metrics; both metrics use one fact.
  SetUses(kProject, Id(10), {Id(21), Id(20)});
  SetUses(kProject, Id(20), {Id(30)});
  SetUses(kProject, Id(21), {Id(30)});

  EXPECT_THAT(Uses(Id(10)), ElementsAre(Id(20), Id(21)));
  EXPECT_THAT(UsedBy(Id(30)), ElementsAre(Id(20), Id(21)));
  EXPECT_THAT(UsedBy(Id(20)), ElementsAre(Id(10)));
  EXPECT_THAT(Uses(Id(30)), IsEmpty());
}

TEST_P(DependencyStore, SettingDependenciesReplacesThePreviousList) {
  SetUses(kProject, Id(10), {Id(20), Id(21)});
  SetUses(kProject, Id(10), {Id(22), Id(22)});

  EXPECT_THAT(Uses(Id(10)), ElementsAre(Id(22)));
  EXPECT_THAT(UsedBy(Id(20)), IsEmpty());
}

TEST_P(DependencyStore, ProjectsKeepSeparateGraphs) {
  SetUses(kProject, Id(10), {Id(20)});
  SetUses(kOtherProject, Id(11), {Id(20)});

  EXPECT_THAT(UsedBy(Id(20)), ElementsAre(Id(10)));
}

TEST_P(DependencyStore, DeletingAnObjectRemovesWhatItUses) {
  store_->Write([](MetadataTransaction& tx) {
    tx.PutObject(SampleObject(kProject, Id(10), 3, "Report"));
    tx.SetDependencies(kProject, Id(10), {Id(20)});
  });

  store_->Write([](MetadataTransaction& tx) { tx.DeleteObject(kProject, Id(10)); });

  EXPECT_THAT(UsedBy(Id(20)), IsEmpty());
}

INSTANTIATE_TEST_SUITE_P(Backends, DependencyStore, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
