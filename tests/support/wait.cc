#include "support/wait.h"

#include <algorithm>
#include <thread>

namespace tessera::testing {

::testing::AssertionResult WaitUntil(const std::function<bool()>& condition,
                                     std::chrono::milliseconds timeout, std::string_view what,
                                     std::chrono::milliseconds poll_interval) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point deadline = Clock::now() + timeout;
  while (!condition()) {
    const Clock::time_point now = Clock::now();
    if (now >= deadline) {
      return ::testing::AssertionFailure()
             << "gave up after " << timeout.count() << " ms waiting until " << what;
    }
    std::this_thread::sleep_for(std::min<Clock::duration>(poll_interval, deadline - now));
  }
  return ::testing::AssertionSuccess();
}

}  // namespace tessera::testing
