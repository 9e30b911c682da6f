// service/session/login_throttle.h
//
// Slows down password guessing. Failed standard logins are counted per user name (case-
// insensitively) and per client address. Once a count reaches its threshold, further attempts
// for that user or from that address are refused for a lockout that doubles with every further
// failure (base lockout_seconds, at most max_lockout_seconds); a successful login clears the
// user's count (not the address's). An administrator unlocks a user at once (Unlock).
//
// Contract:
//   - Check() throws Error(kTooManyRequests) with the seconds to wait while the user or the
//     address is locked out, saying which and for how long; the attempt is not counted.
//   - RecordFailure() / RecordSuccess() count after the credentials were checked.
//   - A threshold of 0 disables that kind of throttling.
//   - The counts live in this node's memory: every node throttles on its own. Entries idle for
//     longer than their lockout and the window are forgotten, so memory stays bounded by the
//     attackers' recent activity.
//   - Thread-safe.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

namespace tessera::service::session {

struct LoginThrottleOptions {
  int max_failures_per_user = 5;
  int max_failures_per_address = 20;
  int lockout_seconds = 30;
  int max_lockout_seconds = 3600;
  // Failures further apart than this start over.
  std::chrono::seconds window{std::chrono::minutes(15)};
};

class LoginThrottle {
 public:
  using Clock = std::chrono::steady_clock;

  explicit LoginThrottle(LoginThrottleOptions options);

  void Check(std::string_view username, std::string_view address,
             Clock::time_point now = Clock::now());
  void RecordFailure(std::string_view username, std::string_view address,
                     Clock::time_point now = Clock::now());
  void RecordSuccess(std::string_view username);
  void Unlock(std::string_view username);

 private:
  struct Failures {
    int count = 0;
    Clock::time_point last_failure;
    Clock::time_point locked_until;
  };

  void Count(std::map<std::string, Failures>& table, const std::string& key, int threshold,
             Clock::time_point now);
  void Forget(Clock::time_point now);

  LoginThrottleOptions options_;
  std::mutex mutex_;
  std::map<std::string, Failures> users_;
  std::map<std::string, Failures> addresses_;
  Clock::time_point next_forget_;
};

}  // namespace tessera::service::session
