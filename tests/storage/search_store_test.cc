#include <gtest/gtest.h>

#include "storage/metadata_store.h"
#include "storage/sample_records.h"
#include "support/store_backend_test.h"

namespace tessera::testing {
namespace {

using storage::MetadataTransaction;
using storage::SearchRecord;

const Timestamp kNoon = FromUnixMillis(1717243200000);  // 2024-06-01T12:00:00.000Z

class SearchStore : public StoreBackendTest {
 protected:
  void SetUp() override {
    StoreBackendTest::SetUp();
    if (IsSkipped()) return;
    store_ = OpenStore();
  }

  std::unique_ptr<storage::MetadataStore> store_;
};

TEST_P(SearchStore, PutThenFindKeepsTheHitsInOrder) {
  SearchRecord search{
      Id(7), "5E6F7A8B9C0D1E2F3A4B5C6D7E8F9A0B", kProject, kNoon, {Id(3), Id(1), Id(2)}};
  store_->Write([&](MetadataTransaction& tx) { tx.PutSearch(search); });

  std::optional<SearchRecord> found;
  store_->Read([&](MetadataTransaction& tx) { found = tx.FindSearch(Id(7)); });

  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->session_id, "5E6F7A8B9C0D1E2F3A4B5C6D7E8F9A0B");
  EXPECT_EQ(found->project_id, kProject);
  EXPECT_EQ(ToUnixMillis(found->created), 1717243200000);
  EXPECT_EQ(found->object_ids, (std::vector<std::string>{Id(3), Id(1), Id(2)}));
}

TEST_P(SearchStore, DeletingASessionsSearchesKeepsOtherSessions) {
  store_->Write([&](MetadataTransaction& tx) {
    tx.PutSearch({Id(1), "SESSION-A", kProject, kNoon, {}});
    tx.PutSearch({Id(2), "SESSION-A", kProject, kNoon, {Id(5)}});
    tx.PutSearch({Id(3), "SESSION-B", kProject, kNoon, {Id(5)}});
  });

  store_->Write([](MetadataTransaction& tx) { tx.DeleteSearchesOfSession("SESSION-A"); });

  std::optional<SearchRecord> first, second, third;
  store_->Read([&](MetadataTransaction& tx) {
    first = tx.FindSearch(Id(1));
    second = tx.FindSearch(Id(2));
    third = tx.FindSearch(Id(3));
  });
  EXPECT_FALSE(first.has_value());
  EXPECT_FALSE(second.has_value());
  ASSERT_TRUE(third.has_value());
  EXPECT_EQ(third->object_ids, std::vector<std::string>{Id(5)});
}

INSTANTIATE_TEST_SUITE_P(Backends, SearchStore, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
