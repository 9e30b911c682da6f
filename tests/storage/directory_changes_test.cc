// What a node's caches of the directory rely on (storage/metadata_store.h, storage/memory_only.h):
// DirectoryGeneration() counts the committed write transactions that changed a project or an
// object outside every project, and nothing else; on PostgreSQL such a commit sends a notice on
// kDirectoryNoticeChannel. Under a MemoryOnlyScope the store refuses Read and Write with
// StoreNeeded and runs none of the work.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "core/error.h"
#include "storage/memory_only.h"
#include "storage/sample_records.h"
#include "support/store_backend_test.h"

namespace tessera::testing {
namespace {

using storage::MetadataTransaction;
using namespace std::chrono_literals;

class DirectoryChanges : public StoreBackendTest {
 protected:
  void SetUp() override {
    StoreBackendTest::SetUp();
    if (IsSkipped()) return;
    store_ = OpenStore();
    store_->Write([](MetadataTransaction& tx) { tx.PutProject(SampleProject(kProject, "Sales")); });
  }

  // How much DirectoryGeneration() moved while `work` was written.
  uint64_t GenerationsOf(const std::function<void(MetadataTransaction&)>& work) {
    const uint64_t before = store_->DirectoryGeneration();
    store_->Write(work);
    return store_->DirectoryGeneration() - before;
  }

  std::unique_ptr<storage::MetadataStore> store_;
};

TEST_P(DirectoryChanges, AProjectOrAnObjectOutsideEveryProjectCountsOncePerTransaction) {
  EXPECT_EQ(GenerationsOf([](MetadataTransaction& tx) {
              tx.PutProject(SampleProject(kOtherProject, "Finance"));
              tx.PutObject(SampleObject("", Id(1), 34, "dana"));
            }),
            1u);
  EXPECT_EQ(GenerationsOf([](MetadataTransaction& tx) { tx.DeleteObject("", Id(1)); }), 1u);
  EXPECT_EQ(GenerationsOf([](MetadataTransaction& tx) {
              tx.PutObject(SampleObject(kProject, Id(2), 4, "Revenue"));
              tx.DeleteObject(kProject, Id(2));
              tx.PutSession(SampleSession(std::string(64, 'a'), Now()));
            }),
            0u)
      << "objects of a project and sessions are not the directory";
}

TEST_P(DirectoryChanges, ReadsAndRolledBackWritesDoNotCount) {
  const uint64_t before = store_->DirectoryGeneration();
  store_->Read([](MetadataTransaction& tx) { tx.ListProjects(); });
  EXPECT_THROW(store_->Write([](MetadataTransaction& tx) {
    tx.PutProject(SampleProject(kOtherProject, "Finance"));
    throw Error(ErrorCode::kInvalidInput, "changed my mind");
  }),
               Error);
  EXPECT_EQ(store_->DirectoryGeneration(), before);
  std::vector<storage::ProjectRecord> projects;
  store_->Read([&](MetadataTransaction& tx) { projects = tx.ListProjects(); });
  EXPECT_EQ(projects.size(), 1u);
}

TEST_P(DirectoryChanges, AMemoryOnlyScopeRefusesTheStoreOnItsThreadOnly) {
  bool ran = false;
  {
    storage::MemoryOnlyScope memory_only;
    EXPECT_THROW(store_->Read([&](MetadataTransaction&) { ran = true; }), storage::StoreNeeded);
    EXPECT_THROW(store_->Write([&](MetadataTransaction& tx) {
      ran = true;
      tx.PutProject(SampleProject(kOtherProject, "Finance"));
    }),
                 storage::StoreNeeded);
    bool other_thread_read = false;
    std::thread([&] {
      store_->Read([&](MetadataTransaction&) { other_thread_read = true; });
    }).join();
    EXPECT_TRUE(other_thread_read);
  }
  EXPECT_FALSE(ran);
  std::vector<storage::ProjectRecord> projects;
  store_->Read([&](MetadataTransaction& tx) { projects = tx.ListProjects(); });
  EXPECT_EQ(projects.size(), 1u) << "the refused write changed nothing";
}

TEST_P(DirectoryChanges, ADirectoryChangeIsHeardByEveryNodeOnPostgres) {
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<storage::Notice> heard;
  auto other_node = OpenStore();
  auto subscription = other_node->Subscribe({storage::kDirectoryNoticeChannel, "tessera_marker"},
                                            [&](const storage::Notice& n) {
                                              std::lock_guard lock(mutex);
                                              heard.push_back(n);
                                              changed.notify_all();
                                            });
  if (GetParam() == StoreBackend::kSqlite) {
    EXPECT_EQ(subscription, nullptr);
    return;
  }
  auto wait_for = [&](size_t count) {
    std::unique_lock lock(mutex);
    changed.wait_for(lock, 10s, [&] { return heard.size() >= count; });
    return heard.size();
  };
  ASSERT_EQ(wait_for(1), 1u);  // the "may have missed notices" of a new connection
  store_->Write([](MetadataTransaction& tx) {
    tx.PutObject(SampleObject(kProject, Id(3), 4, "not the directory"));
  });
  store_->Write([](MetadataTransaction& tx) { tx.Notify("tessera_marker", "after"); });
  store_->Write([](MetadataTransaction& tx) { tx.PutObject(SampleObject("", Id(4), 34, "eve")); });
  ASSERT_EQ(wait_for(3), 3u);
  std::lock_guard lock(mutex);
  EXPECT_EQ(heard[1].channel, "tessera_marker") << "a change inside a project sends no notice";
  EXPECT_EQ(heard[2].channel, storage::kDirectoryNoticeChannel);
}

INSTANTIATE_TEST_SUITE_P(Backends, DirectoryChanges, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
