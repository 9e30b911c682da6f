#include "service/session/login_throttle.h"

#include <algorithm>

#include "core/error.h"
#include "core/strings.h"

namespace tessera::service::session {
namespace {

int64_t SecondsUntil(LoginThrottle::Clock::time_point then, LoginThrottle::Clock::time_point now) {
  auto left = std::chrono::duration_cast<std::chrono::seconds>(then - now).count();
  return std::max<int64_t>(1, left + 1);
}

[[noreturn]] void ThrowLockedOut(std::string_view who, int64_t seconds) {
  throw Error(ErrorCode::kTooManyRequests,
              "Too many failed logins " + std::string(who) + "; try again in " +
                  std::to_string(seconds) + " seconds, or ask an administrator to unlock the user",
              RetryAfter{seconds});
}

}  // namespace

LoginThrottle::LoginThrottle(LoginThrottleOptions options) : options_(options) {}

void LoginThrottle::Check(std::string_view username, std::string_view address,
                          Clock::time_point now) {
  std::lock_guard lock(mutex_);
  if (auto it = users_.find(ToLower(username));
      it != users_.end() && it->second.locked_until > now) {
    ThrowLockedOut("for this user", SecondsUntil(it->second.locked_until, now));
  }
  if (auto it = addresses_.find(std::string(address));
      it != addresses_.end() && it->second.locked_until > now) {
    ThrowLockedOut("from this address", SecondsUntil(it->second.locked_until, now));
  }
}

void LoginThrottle::RecordFailure(std::string_view username, std::string_view address,
                                  Clock::time_point now) {
  std::lock_guard lock(mutex_);
  Forget(now);
  Count(users_, ToLower(username), options_.max_failures_per_user, now);
  Count(addresses_, std::string(address), options_.max_failures_per_address, now);
}

void LoginThrottle::Count(std::map<std::string, Failures>& table, const std::string& key,
                          int threshold, Clock::time_point now) {
  if (threshold <= 0) return;
  Failures& failures = table[key];
  if (failures.count > 0 && now - failures.last_failure > options_.window) failures = {};
  ++failures.count;
  failures.last_failure = now;
  if (failures.count < threshold) return;
  // The lockout doubles with each failure past the threshold, up to the maximum.
  const int doublings = std::min(failures.count - threshold, 20);
  const int64_t seconds = std::min<int64_t>(int64_t{options_.lockout_seconds} << doublings,
                                            options_.max_lockout_seconds);
  failures.locked_until = now + std::chrono::seconds(seconds);
}

void LoginThrottle::RecordSuccess(std::string_view username) {
  std::lock_guard lock(mutex_);
  users_.erase(ToLower(username));
}

void LoginThrottle::Unlock(std::string_view username) { RecordSuccess(username); }

void LoginThrottle::Forget(Clock::time_point now) {
  if (now < next_forget_) return;
  next_forget_ = now + std::chrono::minutes(1);
  for (auto* table : {&users_, &addresses_}) {
    std::erase_if(*table, [&](const auto& entry) {
      return entry.second.locked_until <= now && now - entry.second.last_failure > options_.window;
    });
  }
}

}  // namespace tessera::service::session
