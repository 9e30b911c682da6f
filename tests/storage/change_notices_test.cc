// Notices between nodes on one storage service (storage/change_notices.h): heard once the sending
// transaction commits, never when it rolls back, on the subscribed channels only, and after a
// lost connection a "may have missed notices" notice, then notices again. SQLite has none.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "core/error.h"
#include "storage/postgres_connection.h"
#include "support/store_backend_test.h"

namespace tessera::testing {
namespace {

using namespace std::chrono_literals;

// What a subscription heard, for a test to wait on.
class HeardNotices {
 public:
  storage::NoticeHandler Handler() {
    return [this](const storage::Notice& notice) {
      std::lock_guard lock(mutex_);
      heard_.push_back(notice);
      changed_.notify_all();
    };
  }

  // Waits until `count` notices were heard (or 10 s passed); returns what was heard.
  std::vector<storage::Notice> WaitFor(size_t count) {
    std::unique_lock lock(mutex_);
    changed_.wait_for(lock, 10s, [&] { return heard_.size() >= count; });
    return heard_;
  }

  std::vector<storage::Notice> Now() {
    std::lock_guard lock(mutex_);
    return heard_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<storage::Notice> heard_;
};

class ChangeNotices : public StoreBackendTest {};

TEST_P(ChangeNotices, AreHeardAfterTheCommitOnTheirChannelAndNeverAfterARollback) {
  auto store = OpenStore();
  HeardNotices heard;
  auto subscription = store->Subscribe({"tessera_a", "tessera_b"}, heard.Handler());
  if (GetParam() == StoreBackend::kSqlite) {
    EXPECT_EQ(subscription, nullptr) << "SQLite serves one node: nobody to tell";
    store->Write([](storage::MetadataTransaction& tx) { tx.Notify("tessera_a", "x"); });
    return;
  }
  ASSERT_NE(subscription, nullptr);
  auto first = heard.WaitFor(1);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].channel, "") << "a new connection may have missed notices";

  EXPECT_THROW(store->Write([](storage::MetadataTransaction& tx) {
    tx.Notify("tessera_a", "rolled back");
    throw Error(ErrorCode::kInvalidInput, "no");
  }),
               Error);
  store->Write([](storage::MetadataTransaction& tx) {
    tx.Notify("tessera_other", "not subscribed");
    tx.Notify("tessera_a", "project:cube");
    tx.Notify("tessera_b", "token:abc");
  });
  auto all = heard.WaitFor(3);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[1].channel, "tessera_a");
  EXPECT_EQ(all[1].payload, "project:cube");
  EXPECT_EQ(all[2].channel, "tessera_b");
  EXPECT_EQ(all[2].payload, "token:abc");
  // Notices arrive in the order their transactions committed, so a notice that should not have
  // come would arrive before one sent after it.
  store->Write([](storage::MetadataTransaction& tx) { tx.Notify("tessera_a", "last"); });
  auto with_last = heard.WaitFor(4);
  ASSERT_EQ(with_last.size(), 4u);
  EXPECT_EQ(with_last[3].payload, "last");
}

TEST_P(ChangeNotices, ALostConnectionIsReplacedAndSaysNoticesMayHaveBeenMissed) {
  if (GetParam() == StoreBackend::kSqlite) GTEST_SKIP() << "SQLite has no notices";
  auto store = OpenStore();
  HeardNotices heard;
  auto subscription = store->Subscribe({"tessera_a"}, heard.Handler());
  ASSERT_EQ(heard.WaitFor(1).size(), 1u);

  auto admin = storage::OpenPostgresConnection(database().url());
  auto ended = admin->Query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
      "WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE 'LISTEN%'");
  ASSERT_EQ(ended.size(), 1u) << "the listening connection was not found";

  auto after_loss = heard.WaitFor(2);
  ASSERT_EQ(after_loss.size(), 2u) << "no new connection after the old one was lost";
  EXPECT_EQ(after_loss[1].channel, "");
  store->Write([](storage::MetadataTransaction& tx) { tx.Notify("tessera_a", "again"); });
  auto again = heard.WaitFor(3);
  ASSERT_EQ(again.size(), 3u);
  EXPECT_EQ(again[2].payload, "again");
}

TEST_P(ChangeNotices, AStoppedSubscriptionHearsNothingMore) {
  if (GetParam() == StoreBackend::kSqlite) GTEST_SKIP() << "SQLite has no notices";
  auto store = OpenStore();
  HeardNotices heard;
  auto subscription = store->Subscribe({"tessera_a"}, heard.Handler());
  HeardNotices witness;
  auto still_listening = store->Subscribe({"tessera_a"}, witness.Handler());
  ASSERT_EQ(heard.WaitFor(1).size(), 1u);
  ASSERT_EQ(witness.WaitFor(1).size(), 1u);
  subscription.reset();
  store->Write([](storage::MetadataTransaction& tx) { tx.Notify("tessera_a", "late"); });
  auto by_witness = witness.WaitFor(2);
  ASSERT_EQ(by_witness.size(), 2u) << "the notice was not sent";
  EXPECT_EQ(by_witness[1].payload, "late");
  // A notice that does not come cannot be waited for: once a subscription that still listens has
  // heard it, give the stopped one a moment more (a sleep, by necessity) to show it hears nothing.
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(heard.Now().size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(Backends, ChangeNotices, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
