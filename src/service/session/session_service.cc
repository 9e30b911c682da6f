#include "service/session/session_service.h"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "core/error.h"
#include "core/hash.h"
#include "core/ids.h"
#include "storage/memory_only.h"

namespace tessera::service::session {

namespace {

constexpr std::string_view kSessionExpiredMessage =
    "The user's session has expired, please reauthenticate";

bool IsIdleLongerThan(Timestamp last_active, Timestamp now, std::chrono::milliseconds limit) {
  return now - last_active > limit;
}

}  // namespace

SessionService::SessionService(storage::MetadataStore& store, DirectoryService& directory,
                               SessionOptions options)
    : store_(store), directory_(directory), options_(options), throttle_(options.throttle) {}

void SessionService::ThrowSessionInvalid() {
  throw Error(ErrorCode::kSessionInvalid, std::string(kSessionExpiredMessage));
}

std::chrono::milliseconds SessionService::TouchInterval() const {
  // A tenth of the timeout, at most five seconds: small next to the timeout, rare next to requests.
  auto tenth = std::chrono::milliseconds(options_.idle_timeout_seconds * 100LL);
  return std::min(tenth, std::chrono::milliseconds(5000));
}

std::string SessionService::Login(const LoginRequest& request) {
  switch (request.login_mode) {
    case kLoginModeStandard:
      break;
    case kLoginModeAnonymous:
    case kLoginModeLdap:
    case kLoginModeApiToken:
    case kLoginModeSaml:
    case kLoginModeOidc:
      throw Error(ErrorCode::kLoginModeDisabled,
                  "The server is not configured for login mode " +
                      std::to_string(request.login_mode) +
                      "; this server accepts standard login (loginMode 1)");
    default:
      throw Error(ErrorCode::kInvalidInput, "loginMode: " + std::to_string(request.login_mode) +
                                                " is not a login mode; expected 1 (standard)");
  }
  throttle_.Check(request.username, request.client_address);
  std::string user_id;
  try {
    user_id = directory_.VerifyCredentials(request.username, request.password);
  } catch (const Error& error) {
    if (error.code() == ErrorCode::kAuthenticationFailed) {
      throttle_.RecordFailure(request.username, request.client_address);
    }
    throw;
  }
  throttle_.RecordSuccess(request.username);

  std::string token = NewAuthToken();
  storage::SessionRecord record;
  record.token_hash = Sha256Hex(token);
  record.session_id = NewObjectId();
  record.user_id = user_id;
  record.application_type = request.application_type;
  record.created = record.last_active = Now();
  record.idle_timeout_seconds = options_.idle_timeout_seconds;
  store_.Write([&](storage::MetadataTransaction& tx) { tx.PutSession(record); });
  return token;
}

std::shared_ptr<const Session> SessionService::LoadSession(const std::string& token_hash,
                                                           Timestamp now) {
  const uint64_t notices_before = notices_heard_;
  std::optional<storage::SessionRecord> record;
  store_.Read([&](storage::MetadataTransaction& tx) { record = tx.FindSession(token_hash); });
  if (!record) ThrowSessionInvalid();
  auto timeout = std::chrono::seconds(record->idle_timeout_seconds);
  if (IsIdleLongerThan(record->last_active, now, timeout + TouchInterval())) {
    store_.Write([&](storage::MetadataTransaction& tx) {
      tx.DeleteSession(token_hash);
      tx.DeleteSearchesOfSession(record->session_id);
      tx.DeleteInstancesOfSession(record->session_id);
      tx.Notify(kSessionNoticeChannel, "token:" + token_hash);
    });
    ThrowSessionInvalid();
  }
  auto session = std::make_shared<Session>();
  session->token_hash = token_hash;
  session->session_id = record->session_id;
  session->application_type = record->application_type;
  session->idle_timeout_seconds = record->idle_timeout_seconds;
  session->principal = directory_.LoadPrincipal(record->user_id);

  std::lock_guard lock(mutex_);
  auto& entry = cache_[token_hash];
  Timestamp known_activity = std::max(entry.last_active, record->last_active);
  entry.session = session;
  // A notice heard while the record was read may be about this session: validate it again.
  entry.validated_at = notices_heard_ == notices_before ? std::chrono::steady_clock::now()
                                                        : std::chrono::steady_clock::time_point();
  entry.last_active = known_activity;
  entry.last_persisted = std::max(entry.last_persisted, record->last_active);
  return session;
}

bool SessionService::RecordActivity(CacheEntry& entry, Timestamp now) {
  entry.last_active = now;
  if (now - entry.last_persisted < TouchInterval()) return false;
  entry.last_persisted = now;
  return true;
}

void SessionService::PersistActivity(const std::string& token_hash, Timestamp now) {
  // Best effort: a failed write only shortens the slack other nodes see, by one interval.
  try {
    store_.Write([&](storage::MetadataTransaction& tx) { tx.TouchSession(token_hash, now); });
  } catch (const Error& e) {
    spdlog::warn("could not record session activity: {}", e.message());
  }
}

std::shared_ptr<const Session> SessionService::Authenticate(std::string_view token) {
  if (token.empty()) ThrowSessionInvalid();
  const std::string token_hash = Sha256Hex(token);
  const Timestamp now = Now();
  std::shared_ptr<const Session> session;
  bool should_persist = false;
  {
    std::lock_guard lock(mutex_);
    auto it = cache_.find(token_hash);
    if (it != cache_.end() &&
        std::chrono::steady_clock::now() - it->second.validated_at < options_.cache_ttl) {
      auto timeout = std::chrono::seconds(it->second.session->idle_timeout_seconds);
      if (IsIdleLongerThan(it->second.last_active, now, timeout)) {
        cache_.erase(it);
        ThrowSessionInvalid();
      }
      // Recording this activity would write to the store: leave the entry as it is for the
      // thread that may write.
      if (now - it->second.last_persisted >= TouchInterval()) storage::RequireStoreAccess();
      should_persist = RecordActivity(it->second, now);
      session = it->second.session;
    }
  }
  if (!session) {
    session = LoadSession(token_hash, now);
    std::lock_guard lock(mutex_);
    auto it = cache_.find(token_hash);
    if (it != cache_.end()) should_persist = RecordActivity(it->second, now);
  }
  if (should_persist) PersistActivity(token_hash, now);
  return session;
}

std::string SessionService::Logout(std::string_view token) {
  auto session = Authenticate(token);
  {
    std::lock_guard lock(mutex_);
    cache_.erase(session->token_hash);
  }
  store_.Write([&](storage::MetadataTransaction& tx) {
    tx.DeleteSession(session->token_hash);
    tx.DeleteSearchesOfSession(session->session_id);
    tx.DeleteInstancesOfSession(session->session_id);
    tx.Notify(kSessionNoticeChannel, "token:" + session->token_hash);
  });
  return session->session_id;
}

int SessionService::EndSessionsOf(const std::string& user_id) {
  int ended = 0;
  store_.Write([&](storage::MetadataTransaction& tx) {
    ended = tx.DeleteSessionsOfUser(user_id);
    tx.Notify(kSessionNoticeChannel, "user:" + user_id);
  });
  ForgetUser(user_id);
  return ended;
}

void SessionService::ForgetUser(const std::string& user_id) {
  std::lock_guard lock(mutex_);
  std::erase_if(cache_, [&](const auto& entry) {
    return entry.second.session->principal.user_id == user_id;
  });
}

void SessionService::HearNotice(const storage::Notice& notice) {
  constexpr std::string_view kToken = "token:", kUser = "user:";
  std::string_view payload = notice.payload;
  ++notices_heard_;
  if (notice.channel.empty()) {
    std::lock_guard lock(mutex_);
    cache_.clear();
  } else if (payload.starts_with(kToken)) {
    std::lock_guard lock(mutex_);
    cache_.erase(std::string(payload.substr(kToken.size())));
  } else if (payload.starts_with(kUser)) {
    ForgetUser(std::string(payload.substr(kUser.size())));
  }
}

int SessionService::PurgeExpired() {
  int removed = 0;
  store_.Write([&](storage::MetadataTransaction& tx) {
    removed = tx.DeleteExpiredSessions(Now() - TouchInterval());
  });
  std::lock_guard lock(mutex_);
  const Timestamp now = Now();
  for (auto it = cache_.begin(); it != cache_.end();) {
    auto timeout = std::chrono::seconds(it->second.session->idle_timeout_seconds);
    it = IsIdleLongerThan(it->second.last_active, now, timeout) ? cache_.erase(it) : std::next(it);
  }
  return removed;
}

}  // namespace tessera::service::session
