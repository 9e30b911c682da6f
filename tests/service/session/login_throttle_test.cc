// Failed logins per user and per address: lockout after the threshold, doubling back-off,
// forgiveness after the window, unlock.
#include "service/session/login_throttle.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace tessera::service {
namespace {

using Clock = session::LoginThrottle::Clock;
using std::chrono::seconds;

std::optional<int64_t> RetryAfter(session::LoginThrottle& throttle, std::string_view user,
                                  std::string_view address, Clock::time_point now) {
  try {
    throttle.Check(user, address, now);
    return std::nullopt;
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kTooManyRequests);
    return error.retry_after_seconds();
  }
}

session::LoginThrottleOptions Options() {
  session::LoginThrottleOptions options;
  options.max_failures_per_user = 3;
  options.max_failures_per_address = 10;
  options.lockout_seconds = 30;
  options.max_lockout_seconds = 100;
  options.window = std::chrono::minutes(15);
  return options;
}

TEST(LoginThrottle, AUserIsLockedOutAfterTheThresholdAndOnlyThatUser) {
  session::LoginThrottle throttle(Options());
  const Clock::time_point t0 = Clock::now();
  for (int i = 0; i < 2; ++i) {
    EXPECT_FALSE(RetryAfter(throttle, "Ann", "10.0.0.1", t0));
    throttle.RecordFailure("Ann", "10.0.0.1", t0);
  }
  EXPECT_FALSE(RetryAfter(throttle, "ann", "10.0.0.1", t0));
  throttle.RecordFailure("ANN", "10.0.0.2", t0);  // names compare case-insensitively
  EXPECT_EQ(RetryAfter(throttle, "ann", "10.0.0.9", t0), 31);
  EXPECT_FALSE(RetryAfter(throttle, "bob", "10.0.0.1", t0));
  EXPECT_FALSE(RetryAfter(throttle, "ann", "10.0.0.1", t0 + seconds(31)));
}

TEST(LoginThrottle, EachFurtherFailureDoublesTheLockoutUpToTheMaximum) {
  session::LoginThrottle throttle(Options());
  Clock::time_point now = Clock::now();
  for (int i = 0; i < 3; ++i) throttle.RecordFailure("ann", "a", now);
  EXPECT_EQ(RetryAfter(throttle, "ann", "a", now), 31);
  now += seconds(31);
  throttle.RecordFailure("ann", "a", now);
  EXPECT_EQ(RetryAfter(throttle, "ann", "a", now), 61);
  now += seconds(61);
  throttle.RecordFailure("ann", "a", now);
  EXPECT_EQ(RetryAfter(throttle, "ann", "a", now), 101);  // 120 capped at 100
}

TEST(LoginThrottle, FailuresFurtherApartThanTheWindowStartOver) {
  session::LoginThrottle throttle(Options());
  Clock::time_point now = Clock::now();
  throttle.RecordFailure("ann", "a", now);
  throttle.RecordFailure("ann", "a", now);
  now += std::chrono::minutes(16);
  throttle.RecordFailure("ann", "a", now);
  EXPECT_FALSE(RetryAfter(throttle, "ann", "a", now));
}

TEST(LoginThrottle, AnAddressIsLockedOutWhateverUsersItTries) {
  session::LoginThrottle throttle(Options());
  const Clock::time_point now = Clock::now();
  for (int i = 0; i < 10; ++i) throttle.RecordFailure("user" + std::to_string(i), "6.6.6.6", now);
  EXPECT_TRUE(RetryAfter(throttle, "someone-else", "6.6.6.6", now));
  EXPECT_FALSE(RetryAfter(throttle, "someone-else", "7.7.7.7", now));
}

TEST(LoginThrottle, SuccessAndUnlockClearTheUser) {
  session::LoginThrottle throttle(Options());
  const Clock::time_point now = Clock::now();
  for (int i = 0; i < 2; ++i) throttle.RecordFailure("ann", "a", now);
  throttle.RecordSuccess("ann");
  throttle.RecordFailure("ann", "a", now);
  EXPECT_FALSE(RetryAfter(throttle, "ann", "b", now));
  for (int i = 0; i < 3; ++i) throttle.RecordFailure("ann", "b", now);
  EXPECT_TRUE(RetryAfter(throttle, "ann", "c", now));
  throttle.Unlock("Ann");
  EXPECT_FALSE(RetryAfter(throttle, "ann", "c", now));
}

TEST(LoginThrottle, AThresholdOfZeroNeverLocks) {
  session::LoginThrottleOptions options = Options();
  options.max_failures_per_user = 0;
  options.max_failures_per_address = 0;
  session::LoginThrottle throttle(options);
  const Clock::time_point now = Clock::now();
  for (int i = 0; i < 50; ++i) throttle.RecordFailure("ann", "a", now);
  EXPECT_FALSE(RetryAfter(throttle, "ann", "a", now));
}

}  // namespace
}  // namespace tessera::service
