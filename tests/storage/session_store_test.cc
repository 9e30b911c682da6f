#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "core/error.h"
#include "storage/metadata_store.h"
#include "storage/sample_records.h"
#include "support/store_backend_test.h"

namespace tessera::testing {
namespace {

using std::chrono::seconds;
using storage::MetadataTransaction;
using storage::SessionRecord;

const Timestamp kNoon = FromUnixMillis(1717243200000);  // 2024-06-01T12:00:00.000Z

class SessionStore : public StoreBackendTest {
 protected:
  void SetUp() override {
    StoreBackendTest::SetUp();
    if (IsSkipped()) return;
    store_ = OpenStore();
  }

  std::optional<SessionRecord> Find(const std::string& token_hash) {
    std::optional<SessionRecord> session;
    store_->Read([&](MetadataTransaction& tx) { session = tx.FindSession(token_hash); });
    return session;
  }

  void Put(const SessionRecord& session) {
    store_->Write([&](MetadataTransaction& tx) { tx.PutSession(session); });
  }

  std::unique_ptr<storage::MetadataStore> store_;
};

TEST_P(SessionStore, PutThenFindReturnsEveryField) {
  Put(SampleSession("ab12", kNoon, 1800));

  auto session = Find("ab12");

  ASSERT_TRUE(session.has_value());
  EXPECT_EQ(session->token_hash, "ab12");
  EXPECT_EQ(session->session_id, "5E6F7A8B9C0D1E2F3A4B5C6D7E8F9A0B");
  EXPECT_EQ(session->user_id, kOwner);
  EXPECT_EQ(session->application_type, 35);
  EXPECT_EQ(ToUnixMillis(session->created), 1717243200000 - 300000);
  EXPECT_EQ(ToUnixMillis(session->last_active), 1717243200000);
  EXPECT_EQ(session->idle_timeout_seconds, 1800);
  EXPECT_FALSE(Find("cd34").has_value());
}

TEST_P(SessionStore, TouchMovesLastActive) {
  Put(SampleSession("ab12", kNoon));

  store_->Write([](MetadataTransaction& tx) { tx.TouchSession("ab12", kNoon + seconds(42)); });

  EXPECT_EQ(ToUnixMillis(Find("ab12")->last_active), 1717243242000);
}

TEST_P(SessionStore, DeleteRemovesOnlyThatSession) {
  Put(SampleSession("ab12", kNoon));
  Put(SampleSession("cd34", kNoon));

  store_->Write([](MetadataTransaction& tx) { tx.DeleteSession("ab12"); });

  EXPECT_FALSE(Find("ab12").has_value());
  EXPECT_TRUE(Find("cd34").has_value());
}

TEST_P(SessionStore, DeleteExpiredRemovesSessionsIdleLongerThanTheirTimeout) {
  Put(SampleSession("expired", kNoon - seconds(601), 600));
  Put(SampleSession("exactly-at-limit", kNoon - seconds(600), 600));
  Put(SampleSession("long-timeout", kNoon - seconds(601), 3600));
  Put(SampleSession("fresh", kNoon, 600));

  int deleted = -1;
  store_->Write([&](MetadataTransaction& tx) { deleted = tx.DeleteExpiredSessions(kNoon); });

  EXPECT_EQ(deleted, 1);
  EXPECT_FALSE(Find("expired").has_value());
  EXPECT_TRUE(Find("exactly-at-limit").has_value());
  EXPECT_TRUE(Find("long-timeout").has_value());
  EXPECT_TRUE(Find("fresh").has_value());
}

TEST_P(SessionStore, EightThreadsWritingAtOnceAllLand) {
  constexpr int kThreads = 8;
  constexpr int kSessionsPerThread = 25;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kSessionsPerThread; ++i) {
        try {
          std::string token = "t" + std::to_string(t) + "-" + std::to_string(i);
          store_->Write([&](MetadataTransaction& tx) {
            tx.PutSession(SampleSession(token, kNoon));
            tx.TouchSession(token, kNoon + seconds(i));
          });
        } catch (const std::exception&) {
          ++failures;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();

  EXPECT_EQ(failures.load(), 0);
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kSessionsPerThread; ++i) {
      auto session = Find("t" + std::to_string(t) + "-" + std::to_string(i));
      ASSERT_TRUE(session.has_value()) << t << "/" << i;
      EXPECT_EQ(ToUnixMillis(session->last_active), 1717243200000 + i * 1000);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, SessionStore, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
