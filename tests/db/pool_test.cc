#include "db/pool.h"

#include <gtest/gtest.h>

#include <future>
#include <optional>
#include <stdexcept>
#include <thread>
#include <utility>

namespace tessera::db {
namespace {

struct FakeConnection {
  int number = 0;
  bool healthy = true;
  bool is_healthy() const { return healthy; }
};

using FakePool = Pool<FakeConnection>;
using Clock = FakePool::Clock;

// Acquires with a caller that gives up at once when the pool is full and never refuses to open.
class Opener {
 public:
  FakePool::Lease Acquire(FakePool& pool) {
    return pool.Acquire([]() -> Clock::time_point { throw std::runtime_error("full"); }, [] {},
                        [this] { return std::make_unique<FakeConnection>(++opened_); });
  }
  int opened() const { return opened_; }

 private:
  int opened_ = 0;
};

TEST(Pool, AConnectionGivenBackIsLentAgain) {
  FakePool pool(2);
  Opener opener;
  { FakePool::Lease lease = opener.Acquire(pool); }
  FakePool::Lease again = opener.Acquire(pool);
  EXPECT_EQ(again->number, 1);
  EXPECT_TRUE(again.reused());
  EXPECT_EQ(opener.opened(), 1);
}

TEST(Pool, UnhealthyAndDiscardedConnectionsAreClosedInsteadOfGivenBack) {
  FakePool pool(2);
  Opener opener;
  {
    FakePool::Lease broken = opener.Acquire(pool);
    broken->healthy = false;
    FakePool::Lease discarded = opener.Acquire(pool);
    discarded.Discard();
  }
  EXPECT_EQ(pool.Usage().open, 0u);
  FakePool::Lease fresh = opener.Acquire(pool);
  EXPECT_FALSE(fresh.reused());
  EXPECT_EQ(fresh->number, 3);
}

TEST(Pool, WhileEveryConnectionIsLentTheCallerDecidesWhetherToWait) {
  FakePool pool(1);
  Opener opener;
  FakePool::Lease held = opener.Acquire(pool);
  EXPECT_THROW(opener.Acquire(pool), std::runtime_error);
  EXPECT_EQ(pool.Usage().open, 1u);
  EXPECT_EQ(pool.Usage().in_use, 1u);
}

TEST(Pool, AWaitingCallerTakesTheConnectionGivenBack) {
  FakePool pool(1);
  Opener opener;
  std::optional<FakePool::Lease> held(opener.Acquire(pool));
  std::promise<void> waiting;
  std::thread giver([&, waited = waiting.get_future()] {
    waited.wait();
    held.reset();
  });
  bool told = false;
  FakePool::Lease next = pool.Acquire(
      [&] {
        if (!std::exchange(told, true)) waiting.set_value();
        return Clock::now() + std::chrono::seconds(30);
      },
      [] {}, [] { return std::make_unique<FakeConnection>(); });
  giver.join();
  EXPECT_TRUE(next.reused());
  EXPECT_EQ(next->number, 1);
}

TEST(Pool, ARefusedOrFailedOpenIsNotCounted) {
  FakePool pool(1);
  EXPECT_THROW(pool.Acquire([] { return Clock::now(); }, [] { throw std::runtime_error("down"); },
                            [] { return std::make_unique<FakeConnection>(); }),
               std::runtime_error);
  EXPECT_THROW(pool.Acquire([] { return Clock::now(); }, [] {},
                            []() -> std::unique_ptr<FakeConnection> {
                              throw std::runtime_error("cannot connect");
                            }),
               std::runtime_error);
  EXPECT_EQ(pool.Usage().open, 0u);
  Opener opener;
  EXPECT_EQ(opener.Acquire(pool)->number, 1);
}

TEST(Pool, DiscardIdleClosesOnlyTheIdleConnections) {
  FakePool pool(3);
  Opener opener;
  FakePool::Lease kept = opener.Acquire(pool);
  { FakePool::Lease idle = opener.Acquire(pool); }
  EXPECT_EQ(pool.Usage().open, 2u);
  pool.DiscardIdle();
  EXPECT_EQ(pool.Usage().open, 1u);
  EXPECT_EQ(pool.Usage().in_use, 1u);
  EXPECT_EQ(pool.Usage().max, 3u);
}

}  // namespace
}  // namespace tessera::db
