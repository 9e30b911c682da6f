// The first rendering of a dashboard's visualizations: parallel runs let each GET return with its
// own key, sequential runs compute strictly in order, and no mix of waiting callers deadlocks the
// compute pool, even with one worker.
#include "service/dashboard/visualization_render.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/thread_pool.h"

namespace tessera::testing {
namespace {

using service::dashboard::RenderHooks;
using service::dashboard::RenderRun;
using service::dashboard::RenderSlots;

// Generous: only reached when the code under test is broken, to fail instead of hanging.
constexpr auto kTimeout = std::chrono::seconds(30);

// The visualizations' computation: records every key it computes, in order, and throws for the
// keys told to fail.
class FakeVisualizations {
 public:
  void Fail(const std::string& key) {
    std::lock_guard lock(mutex_);
    failing_.insert(key);
  }

  RenderRun::Compute Compute() {
    return [this](const std::string& key) {
      std::lock_guard lock(mutex_);
      computed_.push_back(key);
      if (failing_.count(key)) throw std::runtime_error("visualization " + key + " failed");
    };
  }

  std::vector<std::string> Computed() const {
    std::lock_guard lock(mutex_);
    return computed_;
  }

  std::map<std::string, int> TimesComputed() const {
    std::lock_guard lock(mutex_);
    std::map<std::string, int> times;
    for (const auto& key : computed_) ++times[key];
    return times;
  }

 private:
  mutable std::mutex mutex_;
  std::set<std::string> failing_;
  std::vector<std::string> computed_;
};

// Observes a run through its hooks: which keys started computing, who waited on what, and holds
// chosen keys before their computation until released.
class RenderProbe {
 public:
  RenderHooks Hooks() {
    RenderHooks hooks;
    hooks.before_compute = [this](const std::string& key) { BeforeCompute(key); };
    hooks.waiting = [this](const std::string& key, const std::string& on) {
      std::lock_guard lock(mutex_);
      waits_.emplace_back(key, on);
      changed_.notify_all();
    };
    return hooks;
  }

  void Hold(const std::string& key) {
    std::lock_guard lock(mutex_);
    held_.insert(key);
  }

  void Release(const std::string& key) {
    std::lock_guard lock(mutex_);
    held_.erase(key);
    changed_.notify_all();
  }

  bool WaitUntilStarted(const std::string& key) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, kTimeout, [&] { return Contains(started_, key); });
  }

  bool WaitUntilWaiting(const std::string& key, const std::string& on) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, kTimeout, [&] { return Contains(waits_, std::pair(key, on)); });
  }

  std::vector<std::string> Started() const {
    std::lock_guard lock(mutex_);
    return started_;
  }

  // Wraps `compute` so the probe knows when each computation ends.
  RenderRun::Compute Counting(RenderRun::Compute compute) {
    return [this, compute = std::move(compute)](const std::string& key) {
      struct Ended {
        RenderProbe* probe;
        ~Ended() {
          std::lock_guard lock(probe->mutex_);
          --probe->running_;
        }
      } ended{this};
      compute(key);
    };
  }

  // The most computations seen between their before_compute and their end at once.
  int MostAtOnce() const {
    std::lock_guard lock(mutex_);
    return most_at_once_;
  }

  std::vector<std::pair<std::string, std::string>> Waits() const {
    std::lock_guard lock(mutex_);
    return waits_;
  }

 private:
  template <typename T>
  static bool Contains(const std::vector<T>& values, const T& value) {
    for (const auto& v : values) {
      if (v == value) return true;
    }
    return false;
  }

  void BeforeCompute(const std::string& key) {
    std::unique_lock lock(mutex_);
    started_.push_back(key);
    most_at_once_ = std::max(most_at_once_, ++running_);
    changed_.notify_all();
    if (!changed_.wait_for(lock, kTimeout, [&] { return held_.count(key) == 0; })) {
      ADD_FAILURE() << "visualization " << key << " was never released";
    }
  }

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::set<std::string> held_;
  std::vector<std::string> started_;
  std::vector<std::pair<std::string, std::string>> waits_;
  int running_ = 0;
  int most_at_once_ = 0;
};

// Counts callers that have returned; a deadlock aborts the test binary instead of hanging it.
class Finished {
 public:
  void Add() {
    std::lock_guard lock(mutex_);
    ++count_;
    changed_.notify_all();
  }

  int count() const {
    std::lock_guard lock(mutex_);
    return count_;
  }

  void RequireWithin(int expected, const char* what) {
    std::unique_lock lock(mutex_);
    if (changed_.wait_for(lock, kTimeout, [&] { return count_ >= expected; })) return;
    // The pool's destructor would join a deadlocked worker forever: stop here, loudly.
    std::fprintf(stderr, "deadlock: %s: %d of %d callers returned\n", what, count_, expected);
    std::abort();
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  int count_ = 0;
};

const std::vector<std::string> kChapter = {"K1", "K2", "K3", "K4"};

// A user's read is never held back by a slow visualization, even a slow first one: the reader
// of a later key computes it itself.
TEST(ParallelRender, AHeldVisualizationDoesNotDelayTheOthers) {
  FakeVisualizations visualizations;
  RenderProbe probe;
  probe.Hold("K1");
  ThreadPool pool(3);
  auto run = std::make_shared<RenderRun>(kChapter, true, visualizations.Compute(), probe.Hooks());

  run->Start(&pool);
  ASSERT_TRUE(probe.WaitUntilStarted("K1"));
  run->Await("K2");
  run->Await("K3");
  run->Await("K4");

  EXPECT_EQ(visualizations.TimesComputed(),
            (std::map<std::string, int>{{"K2", 1}, {"K3", 1}, {"K4", 1}}));
  probe.Release("K1");
  run->Await("K1");
  EXPECT_EQ(visualizations.TimesComputed(),
            (std::map<std::string, int>{{"K1", 1}, {"K2", 1}, {"K3", 1}, {"K4", 1}}));
}

TEST(ParallelRender, AHeldLaterVisualizationDoesNotDelayTheOthers) {
  FakeVisualizations visualizations;
  RenderProbe probe;
  probe.Hold("K2");
  ThreadPool pool(3);
  auto run = std::make_shared<RenderRun>(kChapter, true, visualizations.Compute(), probe.Hooks());

  run->Start(&pool);
  ASSERT_TRUE(probe.WaitUntilStarted("K2"));
  for (const char* key : {"K1", "K3", "K4"}) run->Await(key);

  EXPECT_EQ(visualizations.TimesComputed(),
            (std::map<std::string, int>{{"K1", 1}, {"K3", 1}, {"K4", 1}}));
  probe.Release("K2");
  run->Await("K2");
  EXPECT_EQ(visualizations.TimesComputed()["K2"], 1);
}

// With a slow first visualization and a core to spare, no later pre-render starts beside it: the
// first one's result is ready before any later one starts, and the later ones then start side by
// side.
TEST(ParallelRender, NoLaterPreRenderStartsBeforeTheFirstIsReady) {
  FakeVisualizations visualizations;
  RenderProbe probe;
  for (const char* key : {"K1", "K2", "K3"}) probe.Hold(key);
  ThreadPool pool(2);
  auto run = std::make_shared<RenderRun>(kChapter, true, probe.Counting(visualizations.Compute()),
                                         probe.Hooks());

  run->Start(std::make_shared<RenderSlots>(pool, 2));
  ASSERT_TRUE(probe.WaitUntilStarted("K1"));
  // The second worker is free (no later pre-render holds it), so a task posted now runs.
  Finished spare_worker;
  pool.Post([&] { spare_worker.Add(); });
  spare_worker.RequireWithin(1, "the second worker, while the first visualization computes");
  EXPECT_EQ(probe.Started(), (std::vector<std::string>{"K1"}));

  probe.Release("K1");
  ASSERT_TRUE(probe.WaitUntilStarted("K2"));
  ASSERT_TRUE(probe.WaitUntilStarted("K3"));
  EXPECT_EQ(visualizations.Computed(), (std::vector<std::string>{"K1"}));
  EXPECT_EQ(probe.MostAtOnce(), 2);  // K2 and K3 side by side
  probe.Release("K2");
  probe.Release("K3");
  for (const auto& key : kChapter) run->Await(key);
  EXPECT_EQ(visualizations.TimesComputed(),
            (std::map<std::string, int>{{"K1", 1}, {"K2", 1}, {"K3", 1}, {"K4", 1}}));
}

// The first visualization's failure releases the later ones as its success would.
TEST(ParallelRender, AFailingFirstVisualizationStillLetsTheOthersPreRender) {
  FakeVisualizations visualizations;
  visualizations.Fail("K1");
  RenderProbe probe;
  ThreadPool pool(2);
  auto run = std::make_shared<RenderRun>(kChapter, true, visualizations.Compute(), probe.Hooks());

  run->Start(std::make_shared<RenderSlots>(pool, 2));
  ASSERT_TRUE(probe.WaitUntilStarted("K4"));

  EXPECT_EQ(probe.Started().front(), "K1");
  EXPECT_THROW(run->Await("K1"), std::runtime_error);
  for (const char* key : {"K2", "K3", "K4"}) run->Await(key);
  EXPECT_EQ(visualizations.TimesComputed(),
            (std::map<std::string, int>{{"K1", 1}, {"K2", 1}, {"K3", 1}, {"K4", 1}}));
}

TEST(ParallelRender, AwaitOfAKeyComputedElsewhereWaitsForIt) {
  FakeVisualizations visualizations;
  RenderProbe probe;
  probe.Hold("K1");
  ThreadPool pool(1);
  auto run = std::make_shared<RenderRun>(kChapter, true, visualizations.Compute(), probe.Hooks());
  run->Start(&pool);
  ASSERT_TRUE(probe.WaitUntilStarted("K1"));

  Finished finished;
  std::thread get([&] {
    run->Await("K1");
    finished.Add();
  });
  ASSERT_TRUE(probe.WaitUntilWaiting("K1", "K1"));
  EXPECT_EQ(finished.count(), 0);

  probe.Release("K1");
  finished.RequireWithin(1, "Await(K1) after release");
  get.join();
  EXPECT_EQ(visualizations.TimesComputed()["K1"], 1);
}

TEST(SequentialRender, AwaitWaitsForEveryVisualizationBeforeIt) {
  FakeVisualizations visualizations;
  RenderProbe probe;
  probe.Hold("K1");
  ThreadPool pool(1);
  auto run = std::make_shared<RenderRun>(kChapter, false, visualizations.Compute(), probe.Hooks());
  run->Start(&pool);
  ASSERT_TRUE(probe.WaitUntilStarted("K1"));

  Finished finished;
  std::thread get([&] {
    run->Await("K3");
    finished.Add();
  });
  ASSERT_TRUE(probe.WaitUntilWaiting("K3", "K1"));
  EXPECT_EQ(probe.Started(), (std::vector<std::string>{"K1"}));
  EXPECT_EQ(finished.count(), 0);

  probe.Release("K1");
  finished.RequireWithin(1, "Await(K3) after release");
  get.join();
  run->Await("K4");
  EXPECT_EQ(visualizations.Computed(), kChapter);
  using Wait = std::pair<std::string, std::string>;
  EXPECT_EQ(probe.Waits().front(), Wait("K3", "K1"));
}

// Every handler runs on the pool, so pool tasks awaiting keys are queued ahead of the render tasks
// (on a single worker, or with one slot): a waiter that waited for a task not yet started would
// never return.
void AwaitFromEverywhere(bool parallel, size_t workers = 1, size_t slots = 1) {
  const std::vector<std::string> chapter = {"K1", "K2", "K3", "K4", "K5", "K6"};
  FakeVisualizations visualizations;
  Finished finished;
  std::mutex worker_gate;
  std::unique_lock hold_worker(worker_gate);
  ThreadPool pool(workers);
  auto run = std::make_shared<RenderRun>(chapter, parallel, visualizations.Compute());

  pool.Post([&] { std::lock_guard wait_for_setup(worker_gate); });
  for (auto it = chapter.rbegin(); it != chapter.rend(); ++it) {
    pool.Post([&, key = *it] {
      run->Await(key);
      finished.Add();
    });
  }
  run->Start(std::make_shared<RenderSlots>(pool, slots));
  hold_worker.unlock();
  std::vector<std::thread> gets;
  for (const auto& key : chapter) {
    gets.emplace_back([&, key] {
      run->Await(key);
      finished.Add();
    });
  }

  finished.RequireWithin(2 * static_cast<int>(chapter.size()), "awaiting on one worker");
  for (auto& get : gets) get.join();
  std::map<std::string, int> once;
  for (const auto& key : chapter) once[key] = 1;
  EXPECT_EQ(visualizations.TimesComputed(), once);
  if (!parallel) {
    EXPECT_EQ(visualizations.Computed(), chapter);
  }
}

TEST(ParallelRender, ConcurrentAwaitsOnOneWorkerComputeEachKeyOnce) { AwaitFromEverywhere(true); }

TEST(ParallelRender, ConcurrentAwaitsOnTwoWorkersWithOneSlotComputeEachKeyOnce) {
  AwaitFromEverywhere(true, 2, 1);
}

TEST(SequentialRender, ConcurrentAwaitsOnOneWorkerComputeEachKeyOnceInOrder) {
  AwaitFromEverywhere(false);
}

void ExpectFailureOnlyForItsAwaiters(bool parallel, size_t slots) {
  FakeVisualizations visualizations;
  visualizations.Fail("K2");
  ThreadPool pool(2);
  auto run = std::make_shared<RenderRun>(kChapter, parallel, visualizations.Compute());
  run->Start(std::make_shared<RenderSlots>(pool, slots));

  run->Await("K4");
  run->Await("K1");
  run->Await("K3");
  for (int awaiter = 0; awaiter < 2; ++awaiter) {
    try {
      run->Await("K2");
      ADD_FAILURE() << "Await(K2) returned";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "visualization K2 failed");
    }
  }
  EXPECT_EQ(visualizations.TimesComputed()["K2"], 1);
}

TEST(ParallelRender, AFailureReachesOnlyTheAwaitersOfItsKey) {
  ExpectFailureOnlyForItsAwaiters(true, 2);
}

TEST(ParallelRender, WithOneSlotAFailureReachesOnlyTheAwaitersOfItsKey) {
  ExpectFailureOnlyForItsAwaiters(true, 1);
}

TEST(SequentialRender, AFailureReachesOnlyTheAwaitersOfItsKey) {
  ExpectFailureOnlyForItsAwaiters(false, 2);
}

TEST(SequentialRender, TheSequenceContinuesAfterAFailure) {
  FakeVisualizations visualizations;
  visualizations.Fail("K1");
  ThreadPool pool(1);
  auto run = std::make_shared<RenderRun>(kChapter, false, visualizations.Compute());
  run->Start(&pool);

  run->Await("K4");

  EXPECT_EQ(visualizations.Computed(), kChapter);
}

TEST(ParallelRender, NoMoreVisualizationsThanSlotsArePreRenderedAtOnce) {
  const std::vector<std::string> chapter = {"K1", "K2", "K3", "K4", "K5", "K6"};
  FakeVisualizations visualizations;
  RenderProbe probe;
  for (const auto& key : chapter) probe.Hold(key);
  ThreadPool pool(4);
  auto run = std::make_shared<RenderRun>(chapter, true, probe.Counting(visualizations.Compute()),
                                         probe.Hooks());

  run->Start(std::make_shared<RenderSlots>(pool, 2));
  ASSERT_TRUE(probe.WaitUntilStarted("K1"));
  probe.Release("K1");
  ASSERT_TRUE(probe.WaitUntilStarted("K2"));
  ASSERT_TRUE(probe.WaitUntilStarted("K3"));
  for (size_t next = 3; next < chapter.size(); ++next) {
    probe.Release(chapter[next - 2]);
    ASSERT_TRUE(probe.WaitUntilStarted(chapter[next]));
  }
  probe.Release("K5");
  probe.Release("K6");
  for (const auto& key : chapter) run->Await(key);

  EXPECT_EQ(probe.MostAtOnce(), 2);
  std::map<std::string, int> once;
  for (const auto& key : chapter) once[key] = 1;
  EXPECT_EQ(visualizations.TimesComputed(), once);
}

TEST(ParallelRender, PreRendersStartInTheOrderOfThePage) {
  const std::vector<std::string> chapter = {"K1", "K2", "K3", "K4", "K5", "K6"};
  FakeVisualizations visualizations;
  RenderProbe probe;
  ThreadPool pool(3);
  auto run = std::make_shared<RenderRun>(chapter, true, visualizations.Compute(), probe.Hooks());

  run->Start(std::make_shared<RenderSlots>(pool, 1));
  ASSERT_TRUE(probe.WaitUntilStarted("K6"));

  EXPECT_EQ(probe.Started(), chapter);
}

TEST(ParallelRender, WithOneSlotAnAwaitOfAPendingKeyComputesItAtOnce) {
  FakeVisualizations visualizations;
  RenderProbe probe;
  probe.Hold("K2");
  ThreadPool pool(2);
  auto run = std::make_shared<RenderRun>(kChapter, true, visualizations.Compute(), probe.Hooks());
  run->Start(std::make_shared<RenderSlots>(pool, 1));
  ASSERT_TRUE(probe.WaitUntilStarted("K2"));

  run->Await("K3");  // the slot is K2's: K3 is still pending, so this computes it

  EXPECT_EQ(visualizations.Computed(), (std::vector<std::string>{"K1", "K3"}));
  EXPECT_TRUE(probe.Waits().empty());
  probe.Release("K2");
  for (const auto& key : kChapter) run->Await(key);
  EXPECT_EQ(visualizations.TimesComputed(),
            (std::map<std::string, int>{{"K1", 1}, {"K2", 1}, {"K3", 1}, {"K4", 1}}));
}

// Many users opening dashboards at once: their runs share the node's slots, and every run's first
// visualization starts before any run's second.
TEST(ParallelRender, RunsSharingSlotsStartEveryFirstVisualizationBeforeAnySecond) {
  FakeVisualizations visualizations;
  RenderProbe probe;
  probe.Hold("A1");
  ThreadPool pool(3);
  auto slots = std::make_shared<RenderSlots>(pool, 1);
  auto compute = probe.Counting(visualizations.Compute());
  auto first = std::make_shared<RenderRun>(std::vector<std::string>{"A1", "A2", "A3"}, true,
                                           compute, probe.Hooks());
  auto second = std::make_shared<RenderRun>(std::vector<std::string>{"B1", "B2", "B3"}, true,
                                            compute, probe.Hooks());

  first->Start(slots);
  ASSERT_TRUE(probe.WaitUntilStarted("A1"));
  second->Start(slots);
  probe.Release("A1");
  ASSERT_TRUE(probe.WaitUntilStarted("B3"));  // the last by rank, so every other started first
  for (const char* key : {"A1", "A2", "A3"}) first->Await(key);
  for (const char* key : {"B1", "B2", "B3"}) second->Await(key);

  EXPECT_EQ(probe.Started(), (std::vector<std::string>{"A1", "B1", "A2", "B2", "A3", "B3"}));
  EXPECT_EQ(probe.MostAtOnce(), 1);
}

TEST(ParallelRender, WithoutAPoolAwaitComputesOnlyItsKey) {
  FakeVisualizations visualizations;
  auto run = std::make_shared<RenderRun>(kChapter, true, visualizations.Compute());
  run->Start(nullptr);
  EXPECT_TRUE(visualizations.Computed().empty());

  run->Await("K3");
  run->Await("K3");

  EXPECT_EQ(visualizations.Computed(), (std::vector<std::string>{"K3"}));
}

TEST(SequentialRender, WithoutAPoolAwaitComputesEverythingUpToItsKey) {
  FakeVisualizations visualizations;
  auto run = std::make_shared<RenderRun>(kChapter, false, visualizations.Compute());
  run->Start(nullptr);
  EXPECT_TRUE(visualizations.Computed().empty());

  run->Await("K3");
  run->Await("K2");

  EXPECT_EQ(visualizations.Computed(), (std::vector<std::string>{"K1", "K2", "K3"}));
}

TEST(RenderRun, AKeyOutsideTheChapterIsComputedByTheCallerEachTime) {
  FakeVisualizations visualizations;
  auto run = std::make_shared<RenderRun>(kChapter, false, visualizations.Compute());

  run->Await("Other");
  run->Await("Other");

  EXPECT_EQ(visualizations.Computed(), (std::vector<std::string>{"Other", "Other"}));
}

TEST(RenderRun, AKeyListedTwiceIsComputedOnce) {
  FakeVisualizations visualizations;
  auto run = std::make_shared<RenderRun>(std::vector<std::string>{"K1", "K2", "K1"}, false,
                                         visualizations.Compute());
  ThreadPool pool(1);
  run->Start(&pool);

  run->Await("K1");
  run->Await("K2");

  EXPECT_EQ(visualizations.Computed(), (std::vector<std::string>{"K1", "K2"}));
}

}  // namespace
}  // namespace tessera::testing
