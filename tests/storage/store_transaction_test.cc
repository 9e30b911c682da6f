#include <gtest/gtest.h>

#include <stdexcept>

#include "core/error.h"
#include "storage/metadata_store.h"
#include "storage/sample_records.h"
#include "support/store_backend_test.h"

namespace tessera::testing {
namespace {

using storage::MetadataTransaction;

class StoreTransactions : public StoreBackendTest {
 protected:
  void SetUp() override {
    StoreBackendTest::SetUp();
    if (IsSkipped()) return;
    store_ = OpenStore();
  }

  size_t ObjectCount() {
    size_t count = 0;
    store_->Read([&](MetadataTransaction& tx) { count = tx.ListObjects(kProject, {}).size(); });
    return count;
  }

  std::unique_ptr<storage::MetadataStore> store_;
};

struct WorkFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

TEST_P(StoreTransactions, WorkThatThrowsIsRolledBackAndItsExceptionPropagatesUnchanged) {
  auto failing_work = [](MetadataTransaction& tx) {
    tx.PutObject(SampleObject(kProject, Id(1), 4, "Revenue"));
    tx.PutSession(SampleSession("ab12", FromUnixMillis(0)));
    tx.PutProject(SampleProject(Id(2), "Tutorial"));
    throw WorkFailed("validation failed half-way");
  };

  EXPECT_THROW(store_->Write(failing_work), WorkFailed);

  EXPECT_EQ(ObjectCount(), 0u);
  store_->Read([](MetadataTransaction& tx) {
    EXPECT_FALSE(tx.FindSession("ab12").has_value());
    EXPECT_TRUE(tx.ListProjects().empty());
  });
}

TEST_P(StoreTransactions, ATesseraErrorFromWorkKeepsItsCode) {
  try {
    store_->Write([](MetadataTransaction& tx) {
      tx.PutObject(SampleObject(kProject, Id(1), 4, "Revenue"));
      throw Error(ErrorCode::kInvalidInput, "bad input");
    });
    FAIL() << "expected Error(kInvalidInput)";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kInvalidInput);
    EXPECT_EQ(error.message(), "bad input");
  }
  EXPECT_EQ(ObjectCount(), 0u);
}

TEST_P(StoreTransactions, TheStoreStaysUsableAfterARolledBackWrite) {
  EXPECT_THROW(store_->Write([](MetadataTransaction&) { throw WorkFailed("no"); }), WorkFailed);

  store_->Write(
      [](MetadataTransaction& tx) { tx.PutObject(SampleObject(kProject, Id(1), 4, "Revenue")); });

  EXPECT_EQ(ObjectCount(), 1u);
}

TEST_P(StoreTransactions, ASecondStoreOnTheSameDatabaseSeesCommittedWrites) {
  store_->Write(
      [](MetadataTransaction& tx) { tx.PutObject(SampleObject(kProject, Id(1), 4, "Revenue")); });

  auto other = OpenStore();
  std::optional<model::ObjectRecord> found;
  other->Read([&](MetadataTransaction& tx) { found = tx.FindObject(kProject, Id(1)); });

  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->name, "Revenue");
}

TEST_P(StoreTransactions, AStatementThatFailsWithoutAnOutageIsAnInternalError) {
  store_->Write([](MetadataTransaction& tx) { tx.PutSession(SampleSession("ab12", {})); });
  database().ExecuteDirect("DROP TABLE sessions");

  try {
    store_->Write([](MetadataTransaction& tx) {
      tx.PutObject(SampleObject(kProject, Id(1), 4, "Revenue"));
      tx.PutSession(SampleSession("cd34", {}));
    });
    FAIL() << "expected Error(kInternal)";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kInternal);
  }

  EXPECT_TRUE(store_->IsAvailable());
  EXPECT_EQ(ObjectCount(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreTransactions, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
