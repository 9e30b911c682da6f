// service/session/session_service.h
//
// Login sessions. A token is 26 random base-32 characters; only its SHA-256 is stored (storage
// service), so any node accepts it and a restart keeps it valid.
//
// Idle expiry: a session ends when no authenticated request arrived for its idle timeout (the
// value GET /api/sessions reports). Every request resets the timer. To keep the storage service
// out of the hot path, a node caches validated sessions for `cache_ttl` and writes the
// last-activity time at most once per `touch_interval`; a node reading the stored time adds
// that interval as slack, so no node expires a session before its reported timeout.
// Logout, and ending a user's sessions, take effect at once on the node that handled them; other
// nodes drop the session from their caches when they hear the notice the change sends
// (HearNotice(), storage/change_notices.h) -- at once where the storage service has notices,
// within `cache_ttl` where it has none.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "service/directory_service.h"
#include "service/session/login_throttle.h"
#include "service/session/principal.h"
#include "storage/metadata_store.h"

namespace tessera::service::session {

// The notice channel of ended sessions; the payload is "token:<token hash>" or "user:<user id>".
inline constexpr char kSessionNoticeChannel[] = "tessera_sessions";

struct SessionOptions {
  int idle_timeout_seconds = 1800;
  std::chrono::milliseconds cache_ttl{2000};
  int working_set = 10;
  int max_search = 3;
  LoginThrottleOptions throttle;
};

// Login modes (loginMode of a login request); only standard login is accepted.
inline constexpr int kLoginModeStandard = 1;
inline constexpr int kLoginModeAnonymous = 8;
inline constexpr int kLoginModeLdap = 16;
inline constexpr int kLoginModeApiToken = 4096;
inline constexpr int kLoginModeSaml = 1048576;
inline constexpr int kLoginModeOidc = 4194304;

struct LoginRequest {
  int login_mode = kLoginModeStandard;
  std::string username;
  std::string password;
  int application_type = 76;
  std::string client_address;  // for throttling failed logins
};

struct Session {
  std::string token_hash;
  std::string session_id;
  int application_type = 76;
  int idle_timeout_seconds = 0;
  Principal principal;
};

class SessionService {
 public:
  SessionService(storage::MetadataStore& store, DirectoryService& directory,
                 SessionOptions options);

  // Returns the new token. Throws kAuthenticationFailed (bad credentials), kLoginModeDisabled
  // (a known mode this server does not enable), kInvalidInput (unknown mode), kTooManyRequests
  // while the user or the client address is locked out after failed logins (LoginThrottle).
  std::string Login(const LoginRequest& request);

  // Lifts a user's lockout after failed logins (an administrator changed the user).
  void UnlockLogins(std::string_view username) { throttle_.Unlock(username); }

  // Ends every session of the user (its password changed, it was disabled or deleted); returns
  // how many.
  int EndSessionsOf(const std::string& user_id);

  // The live session of `token`, its idle timer reset. Throws kSessionInvalid when the token is
  // empty, unknown, logged out or idle for longer than the timeout.
  std::shared_ptr<const Session> Authenticate(std::string_view token);

  // Returns the id of the session ended; throws kSessionInvalid like Authenticate.
  std::string Logout(std::string_view token);

  // Deletes expired sessions from the storage service; returns how many.
  int PurgeExpired();

  // A notice on kSessionNoticeChannel drops what it names from the cache; a "may have missed
  // notices" one drops the whole cache.
  void HearNotice(const storage::Notice& notice);

  const SessionOptions& options() const { return options_; }

 private:
  struct CacheEntry {
    std::shared_ptr<const Session> session;
    std::chrono::steady_clock::time_point validated_at;
    Timestamp last_active;
    Timestamp last_persisted;
  };

  std::shared_ptr<const Session> LoadSession(const std::string& token_hash, Timestamp now);
  bool RecordActivity(CacheEntry& entry, Timestamp now);  // true when it is time to persist
  void ForgetUser(const std::string& user_id);
  void PersistActivity(const std::string& token_hash, Timestamp now);
  std::chrono::milliseconds TouchInterval() const;
  [[noreturn]] static void ThrowSessionInvalid();

  storage::MetadataStore& store_;
  DirectoryService& directory_;
  SessionOptions options_;
  LoginThrottle throttle_;
  std::mutex mutex_;
  std::unordered_map<std::string, CacheEntry> cache_;
  std::atomic<uint64_t> notices_heard_{0};
};

}  // namespace tessera::service::session
