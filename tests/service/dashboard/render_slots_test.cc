// The node's pre-render slots: steps start by rank, then in submission order, never more at once
// than there are slots, and a step that throws still frees its slot.
#include "service/dashboard/render_slots.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/thread_pool.h"

namespace tessera::testing {
namespace {

using service::dashboard::RenderSlots;

// Generous: only reached when the code under test is broken, to fail instead of hanging.
constexpr auto kTimeout = std::chrono::seconds(30);

// Steps that record their start and may be held until opened.
class Steps {
 public:
  std::function<void()> Named(const std::string& name) {
    return [this, name] {
      std::unique_lock lock(mutex_);
      started_.push_back(name);
      ++running_;
      most_at_once_ = std::max(most_at_once_, running_);
      changed_.notify_all();
      changed_.wait_for(lock, kTimeout, [&] { return is_open_; });
      --running_;
    };
  }

  void Open() {
    std::lock_guard lock(mutex_);
    is_open_ = true;
    changed_.notify_all();
  }

  bool WaitUntilStarted(size_t count) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, kTimeout, [&] { return started_.size() >= count; });
  }

  std::vector<std::string> Started() const {
    std::lock_guard lock(mutex_);
    return started_;
  }

  int MostAtOnce() const {
    std::lock_guard lock(mutex_);
    return most_at_once_;
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  bool is_open_ = false;
  int running_ = 0;
  int most_at_once_ = 0;
  std::vector<std::string> started_;
};

TEST(RenderSlots, WaitingStepsStartByRankThenInSubmissionOrder) {
  Steps steps;
  ThreadPool pool(4);
  auto slots = std::make_shared<RenderSlots>(pool, 1);

  slots->Submit(5, steps.Named("first submitted"));
  ASSERT_TRUE(steps.WaitUntilStarted(1));
  slots->Submit(2, steps.Named("rank 2"));
  slots->Submit(0, steps.Named("rank 0, earlier"));
  slots->Submit(1, steps.Named("rank 1"));
  slots->Submit(0, steps.Named("rank 0, later"));
  steps.Open();
  ASSERT_TRUE(steps.WaitUntilStarted(5));

  EXPECT_EQ(steps.Started(), (std::vector<std::string>{"first submitted", "rank 0, earlier",
                                                       "rank 0, later", "rank 1", "rank 2"}));
}

TEST(RenderSlots, NoMoreStepsRunAtOnceThanThereAreSlots) {
  Steps steps;
  ThreadPool pool(4);
  auto slots = std::make_shared<RenderSlots>(pool, 2);

  for (int i = 0; i < 6; ++i) slots->Submit(0, steps.Named("step " + std::to_string(i)));
  ASSERT_TRUE(steps.WaitUntilStarted(2));
  steps.Open();
  ASSERT_TRUE(steps.WaitUntilStarted(6));

  EXPECT_EQ(steps.MostAtOnce(), 2);
}

TEST(RenderSlots, AStepThatThrowsFreesItsSlot) {
  Steps steps;
  ThreadPool pool(2);
  auto slots = std::make_shared<RenderSlots>(pool, 1);

  slots->Submit(0, [] { throw std::runtime_error("a broken step"); });
  slots->Submit(1, steps.Named("after the broken step"));
  steps.Open();

  EXPECT_TRUE(steps.WaitUntilStarted(1));
}

}  // namespace
}  // namespace tessera::testing
