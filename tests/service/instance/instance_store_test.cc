// Instances: ownership, idle expiry, the per-session cap, and results cached under a memory
// budget and recomputed after eviction.
#include "service/instance/instance_store.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/error.h"
#include "core/ids.h"
#include "core/strings.h"
#include "support/wait.h"

namespace tessera::service {
namespace {

using namespace std::chrono_literals;

struct TestDefinition : instance::InstanceDefinition {
  explicit TestDefinition(int seed) : seed(seed) {}
  int seed;
};

// A result of `rows` rows whose one metric holds seed, seed + 1, ...
instance::ResultPtr ResultOf(int seed, size_t rows) {
  auto result = std::make_shared<engine::ResultSet>();
  result->row_count = rows;
  result->values.emplace_back(rows);
  result->present.emplace_back(rows, 1);
  for (size_t r = 0; r < rows; ++r) result->values[0][r] = seed + static_cast<double>(r);
  return result;
}

const instance::InstanceOwner kAlice{"session-a", "CUBE0000000000000000000000000001"};
const instance::InstanceOwner kBob{"session-b", "CUBE0000000000000000000000000001"};

// Waits until the steady clock has moved on, so that whatever is used next was used strictly
// later than anything before (least-recently-used order compares these times).
void LetTheClockTick() {
  const auto before = std::chrono::steady_clock::now();
  ASSERT_TRUE(testing::WaitUntil([&] { return std::chrono::steady_clock::now() > before; },
                                 std::chrono::seconds(1), "the steady clock moved on",
                                 std::chrono::milliseconds(1)));
}

void ExpectNotFound(instance::InstanceStore& store, const instance::InstanceOwner& owner,
                    const std::string& id) {
  try {
    store.Find(owner, id, "Report or cube");
    ADD_FAILURE() << id << " was found";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kNotFound);
    EXPECT_EQ(std::string(error.what()),
              "Report or cube instance '" + id + "' was not found or has expired.");
  }
}

TEST(InstanceStore, AnInstanceIsFoundOnlyByItsSessionAndObject) {
  instance::InstanceStore store;
  const auto created = store.Create(kAlice, std::make_shared<TestDefinition>(7));
  EXPECT_TRUE(IsObjectId(created->id()));
  const auto found = store.Find(kAlice, ToLower(created->id()), "Report or cube");
  EXPECT_EQ(found, created);
  EXPECT_EQ(dynamic_cast<const TestDefinition&>(found->definition()).seed, 7);
  ExpectNotFound(store, kBob, created->id());
  ExpectNotFound(store, {kAlice.session_id, "CUBE0000000000000000000000000002"}, created->id());
  ExpectNotFound(store, kAlice, "0123456789ABCDEF0123456789ABCDEF");
  ExpectNotFound(store, kAlice, "not an id");
}

TEST(InstanceStore, IdleInstancesExpireAndUseKeepsThemAlive) {
  constexpr auto kIdleTtl = 300ms;
  instance::InstanceStore store({.idle_ttl = kIdleTtl});
  const auto used = store.Create(kAlice, std::make_shared<TestDefinition>(1));
  const auto idle = store.Create(kAlice, std::make_shared<TestDefinition>(2));
  const auto idle_since = std::chrono::steady_clock::now();
  // Instances expire as time passes, so this test sleeps: it uses one instance every 100 ms (a
  // third of the time to live) until the other has been idle for longer than the time to live.
  while (std::chrono::steady_clock::now() - idle_since <= kIdleTtl) {
    std::this_thread::sleep_for(100ms);
    store.Find(kAlice, used->id(), "Report or cube");
  }
  ExpectNotFound(store, kAlice, idle->id());
  EXPECT_EQ(store.Find(kAlice, used->id(), "Report or cube"), used);
  std::this_thread::sleep_for(kIdleTtl + 1ms);  // and now `used`, too, has been idle that long
  store.Create(kBob, std::make_shared<TestDefinition>(3));  // sweeps
  EXPECT_EQ(store.InstanceCount(), 1u);
}

TEST(InstanceStore, BeyondTheCapASessionLosesItsLeastRecentlyUsedInstance) {
  instance::InstanceStore store({.per_session_cap = 3});
  std::vector<std::shared_ptr<instance::Instance>> instances;
  for (int i = 0; i < 3; ++i) {
    instances.push_back(store.Create(kAlice, std::make_shared<TestDefinition>(i)));
    LetTheClockTick();
  }
  const auto bobs = store.Create(kBob, std::make_shared<TestDefinition>(9));
  store.Find(kAlice, instances[0]->id(), "Report or cube");  // instances[1] is now the oldest
  LetTheClockTick();
  const auto fourth = store.Create(kAlice, std::make_shared<TestDefinition>(3));
  ExpectNotFound(store, kAlice, instances[1]->id());
  for (const auto& kept : {instances[0], instances[2], fourth}) {
    EXPECT_EQ(store.Find(kAlice, kept->id(), "Report or cube"), kept);
  }
  EXPECT_EQ(store.Find(kBob, bobs->id(), "Report or cube"), bobs);
}

TEST(InstanceStore, ConcurrentReadersShareOneComputation) {
  instance::InstanceStore store;
  const auto instance = store.Create(kAlice, std::make_shared<TestDefinition>(5));
  std::atomic<int> computations = 0;
  std::vector<instance::ResultPtr> seen(8);
  std::atomic<size_t> asking = 0;
  std::vector<std::thread> readers;
  for (size_t t = 0; t < seen.size(); ++t) {
    readers.emplace_back([&, t] {
      ++asking;
      seen[t] = store.Result(*instance, "", [&] {
        ++computations;
        EXPECT_TRUE(testing::WaitUntil([&] { return asking == seen.size(); }, 10s,
                                       "every reader asked for the result",
                                       std::chrono::milliseconds(1)));
        return ResultOf(5, 100);
      });
    });
  }
  for (auto& reader : readers) reader.join();
  EXPECT_EQ(computations, 1);
  for (const auto& result : seen) EXPECT_EQ(result, seen.front());
  EXPECT_EQ(store.CachedResultBytes(), seen.front()->MemoryBytes());
}

TEST(InstanceStore, TheBudgetDropsOldResultsWhichComeBackTheSame) {
  const size_t one = ResultOf(0, 1000)->MemoryBytes();
  instance::InstanceStore store({.result_budget_bytes = 2 * one});
  std::vector<std::shared_ptr<instance::Instance>> instances;
  std::atomic<int> computations = 0;
  auto result_of = [&](instance::Instance& instance) {
    const int seed = dynamic_cast<const TestDefinition&>(instance.definition()).seed;
    return store.Result(instance, "", [&, seed] {
      ++computations;
      return ResultOf(seed, 1000);
    });
  };
  for (int i = 0; i < 3; ++i) {
    instances.push_back(store.Create(kAlice, std::make_shared<TestDefinition>(i * 1000)));
    result_of(*instances.back());
    LetTheClockTick();
  }
  EXPECT_EQ(computations, 3);
  EXPECT_LE(store.CachedResultBytes(), 2 * one);
  result_of(*instances[2]);  // still cached
  EXPECT_EQ(computations, 3);
  const instance::ResultPtr again = result_of(*instances[0]);  // dropped: recomputed, same rows
  EXPECT_EQ(computations, 4);
  EXPECT_EQ(again->values[0], ResultOf(0, 1000)->values[0]);
  EXPECT_LE(store.CachedResultBytes(), 2 * one);
}

TEST(InstanceStore, AFailedComputationIsNotCachedAndRemovedSessionsFreeTheirResults) {
  instance::InstanceStore store;
  const auto instance = store.Create(kAlice, std::make_shared<TestDefinition>(1));
  EXPECT_THROW(
      store.Result(*instance, "", []() -> instance::ResultPtr { throw std::runtime_error("x"); }),
      std::runtime_error);
  EXPECT_EQ(store.CachedResultBytes(), 0u);
  const instance::ResultPtr result = store.Result(*instance, "", [] { return ResultOf(1, 10); });
  EXPECT_EQ(result->row_count, 10u);
  store.Result(*instance, "visualization W2", [] { return ResultOf(2, 20); });
  EXPECT_EQ(store.CachedResultBytes(), result->MemoryBytes() + ResultOf(2, 20)->MemoryBytes());
  store.RemoveSession(kAlice.session_id);
  EXPECT_EQ(store.CachedResultBytes(), 0u);
  ExpectNotFound(store, kAlice, instance->id());
  // A computation that finishes after its instance was removed is returned, not kept.
  EXPECT_EQ(store.Result(*instance, "", [] { return ResultOf(3, 10); })->row_count, 10u);
  EXPECT_EQ(store.CachedResultBytes(), 0u);
}

}  // namespace
}  // namespace tessera::service
