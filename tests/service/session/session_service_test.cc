// Login sessions without the HTTP stack, on SQLite and PostgreSQL: login with right and wrong
// credentials, the login modes refused, lockout after failed logins, token validation, logout,
// sessions shared by nodes through the storage service, idle expiry (the stored last-activity
// time is moved into the past, so no test waits), purging expired sessions, and ending every
// session of a user whose password changed or who was disabled.
#include "service/session/session_service.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <optional>
#include <thread>

#include "core/error.h"
#include "core/hash.h"
#include "model/well_known.h"
#include "service/directory_service.h"
#include "storage/memory_only.h"
#include "support/error_from.h"
#include "support/store_backend_test.h"

namespace tessera::testing {
namespace {

using service::session::LoginRequest;
using service::session::SessionOptions;
using service::session::SessionService;
using std::chrono::minutes;
using std::chrono::seconds;

constexpr char kPassword[] = "correct horse 7";

LoginRequest Credentials(const std::string& username, const std::string& password) {
  LoginRequest request;
  request.username = username;
  request.password = password;
  request.client_address = "192.0.2.10";
  return request;
}

// Every call reads the storage service, as a node that has not seen the session lately does.
SessionOptions Uncached(int idle_timeout_seconds = 60) {
  SessionOptions options;
  options.idle_timeout_seconds = idle_timeout_seconds;
  options.cache_ttl = std::chrono::milliseconds(0);
  return options;
}

class SessionServiceTest : public StoreBackendTest {
 protected:
  void SetUp() override {
    StoreBackendTest::SetUp();
    if (IsSkipped()) return;
    store_ = OpenStore();
    directory_ = std::make_unique<service::DirectoryService>(*store_);
    directory_->Bootstrap(std::nullopt);
    admin_ = directory_->LoadPrincipal(std::string(model::kAdministratorUserId));
    service::NewUser ann;
    ann.username = "ann";
    ann.password = kPassword;
    ann.full_name = "Ann Lee";
    ann_id_ = directory_->CreateUser(admin_, ann).id;
  }

  std::unique_ptr<SessionService> Node(SessionOptions options = {}) {
    return std::make_unique<SessionService>(*store_, *directory_, options);
  }

  std::optional<storage::SessionRecord> StoredSession(const std::string& token) {
    std::optional<storage::SessionRecord> record;
    store_->Read(
        [&](storage::MetadataTransaction& tx) { record = tx.FindSession(Sha256Hex(token)); });
    return record;
  }

  // As if the session's last request had come `idle` ago.
  void LastActiveAgo(const std::string& token, std::chrono::milliseconds idle) {
    const Timestamp then = std::chrono::time_point_cast<std::chrono::milliseconds>(Now() - idle);
    store_->Write(
        [&](storage::MetadataTransaction& tx) { tx.TouchSession(Sha256Hex(token), then); });
  }

  static ErrorCode CodeOf(const std::function<void()>& call) {
    auto error = ErrorFrom(call);
    EXPECT_TRUE(error) << "expected an error";
    return error ? error->code() : ErrorCode::kInternal;
  }

  std::unique_ptr<storage::MetadataStore> store_;
  std::unique_ptr<service::DirectoryService> directory_;
  service::session::Principal admin_;
  std::string ann_id_;
};

TEST_P(SessionServiceTest, TheRightPasswordGivesATokenThatAuthenticatesAsTheUser) {
  SessionOptions options;
  options.idle_timeout_seconds = 900;
  auto sessions = Node(options);
  LoginRequest request = Credentials("ann", kPassword);
  request.application_type = 35;
  const std::string token = sessions->Login(request);
  EXPECT_EQ(token.size(), 26u);
  EXPECT_TRUE(std::all_of(token.begin(), token.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '2' && c <= '7');
  })) << token;

  auto session = sessions->Authenticate(token);
  ASSERT_NE(session, nullptr);
  EXPECT_EQ(session->principal.user_id, ann_id_);
  EXPECT_EQ(session->principal.username, "ann");
  EXPECT_EQ(session->principal.full_name, "Ann Lee");
  EXPECT_EQ(session->idle_timeout_seconds, 900);
  EXPECT_EQ(session->application_type, 35);
  EXPECT_EQ(session->session_id.size(), 32u);
  // Only the token's digest is stored.
  auto stored = StoredSession(token);
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->session_id, session->session_id);
  EXPECT_EQ(stored->user_id, ann_id_);
}

TEST_P(SessionServiceTest, TheUserNameIsMatchedIgnoringCase) {
  auto sessions = Node();
  const std::string token = sessions->Login(Credentials("ANN", kPassword));
  EXPECT_EQ(sessions->Authenticate(token)->principal.user_id, ann_id_);
}

TEST_P(SessionServiceTest, EachLoginIsASessionOfItsOwn) {
  auto sessions = Node();
  const std::string first = sessions->Login(Credentials("ann", kPassword));
  const std::string second = sessions->Login(Credentials("ann", kPassword));
  EXPECT_NE(first, second);
  EXPECT_NE(sessions->Authenticate(first)->session_id, sessions->Authenticate(second)->session_id);
}

TEST_P(SessionServiceTest, AWrongPasswordAnUnknownUserAndADisabledUserFailAlike) {
  service::NewUser bob;
  bob.username = "bob";
  bob.password = kPassword;
  bob.enabled = false;
  directory_->CreateUser(admin_, bob);
  auto sessions = Node();
  for (const auto& [username, password] : std::vector<std::pair<std::string, std::string>>{
           {"ann", "wrong"}, {"ann", ""}, {"nobody", kPassword}, {"bob", kPassword}}) {
    auto error = ErrorFrom([&] { sessions->Login(Credentials(username, password)); });
    ASSERT_TRUE(error) << username << " logged in with '" << password << "'";
    EXPECT_EQ(error->code(), ErrorCode::kAuthenticationFailed) << username;
    EXPECT_EQ(error->message(), "Login failed") << username;
  }
  store_->Write([&](storage::MetadataTransaction& tx) {
    EXPECT_EQ(tx.DeleteSessionsOfUser(ann_id_), 0);  // no session was stored
  });
}

TEST_P(SessionServiceTest, OnlyStandardLoginIsAccepted) {
  auto sessions = Node();
  for (int mode : {service::session::kLoginModeAnonymous, service::session::kLoginModeLdap,
                   service::session::kLoginModeApiToken, service::session::kLoginModeSaml,
                   service::session::kLoginModeOidc}) {
    LoginRequest request = Credentials("ann", kPassword);
    request.login_mode = mode;
    auto error = ErrorFrom([&] { sessions->Login(request); });
    ASSERT_TRUE(error) << mode;
    EXPECT_EQ(error->code(), ErrorCode::kLoginModeDisabled) << mode;
    EXPECT_NE(error->message().find(std::to_string(mode)), std::string_view::npos)
        << error->message();
  }
  LoginRequest request = Credentials("ann", kPassword);
  request.login_mode = 2;
  auto error = ErrorFrom([&] { sessions->Login(request); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->code(), ErrorCode::kInvalidInput);
  EXPECT_NE(error->message().find("loginMode"), std::string_view::npos) << error->message();
}

TEST_P(SessionServiceTest, RepeatedFailuresLockTheUserOutUntilUnlocked) {
  SessionOptions options;
  options.throttle.max_failures_per_user = 2;
  options.throttle.lockout_seconds = 30;
  auto sessions = Node(options);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(CodeOf([&] { sessions->Login(Credentials("ann", "guess")); }),
              ErrorCode::kAuthenticationFailed);
  }
  // Even the right password is refused now, with the time to wait.
  auto locked = ErrorFrom([&] { sessions->Login(Credentials("ann", kPassword)); });
  ASSERT_TRUE(locked);
  EXPECT_EQ(locked->code(), ErrorCode::kTooManyRequests);
  ASSERT_TRUE(locked->retry_after_seconds());
  EXPECT_GT(*locked->retry_after_seconds(), 0);
  EXPECT_LE(*locked->retry_after_seconds(), 31);
  // Another user is not affected.
  EXPECT_FALSE(ErrorFrom([&] { sessions->Login(Credentials("administrator", "")); }));

  sessions->UnlockLogins("ann");
  const std::string token = sessions->Login(Credentials("ann", kPassword));
  EXPECT_EQ(sessions->Authenticate(token)->principal.user_id, ann_id_);
}

TEST_P(SessionServiceTest, EmptyUnknownAndAlteredTokensAreRefused) {
  auto sessions = Node();
  const std::string token = sessions->Login(Credentials("ann", kPassword));
  std::string altered = token;
  altered[0] = altered[0] == 'a' ? 'b' : 'a';
  std::string upper = token;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (const std::string& bad :
       {std::string(), std::string("abcdefghijklmnopqrstuvwxyz"), altered, upper, token + "a"}) {
    auto error = ErrorFrom([&] { sessions->Authenticate(bad); });
    ASSERT_TRUE(error) << "'" << bad << "' was accepted";
    EXPECT_EQ(error->code(), ErrorCode::kSessionInvalid) << bad;
    EXPECT_EQ(error->message(), "The user's session has expired, please reauthenticate");
  }
  EXPECT_EQ(sessions->Authenticate(token)->principal.user_id, ann_id_);
}

TEST_P(SessionServiceTest, LogoutEndsThatSessionAtOnceAndNoOther) {
  auto sessions = Node();
  const std::string token = sessions->Login(Credentials("ann", kPassword));
  const std::string other = sessions->Login(Credentials("ann", kPassword));
  const std::string session_id = sessions->Authenticate(token)->session_id;

  EXPECT_EQ(sessions->Logout(token), session_id);
  EXPECT_EQ(CodeOf([&] { sessions->Authenticate(token); }), ErrorCode::kSessionInvalid);
  EXPECT_FALSE(StoredSession(token));
  EXPECT_EQ(CodeOf([&] { sessions->Logout(token); }), ErrorCode::kSessionInvalid);
  EXPECT_EQ(sessions->Authenticate(other)->principal.user_id, ann_id_);
}

TEST_P(SessionServiceTest, AnotherNodeAndARestartedNodeAcceptTheTokenAndSeeTheLogout) {
  auto first = Node();
  const std::string token = first->Login(Credentials("ann", kPassword));
  auto second = Node(Uncached(1800));
  EXPECT_EQ(second->Authenticate(token)->principal.user_id, ann_id_);
  first.reset();  // the node that issued the token stops
  auto restarted = Node();
  EXPECT_EQ(restarted->Authenticate(token)->principal.user_id, ann_id_);

  restarted->Logout(token);
  EXPECT_EQ(CodeOf([&] { second->Authenticate(token); }), ErrorCode::kSessionInvalid);
}

TEST_P(SessionServiceTest, ASessionIdleForLongerThanItsTimeoutHasEnded) {
  auto sessions = Node(Uncached(60));
  const std::string token = sessions->Login(Credentials("ann", kPassword));
  sessions->Authenticate(token);
  LastActiveAgo(token, minutes(10));
  auto error = ErrorFrom([&] { sessions->Authenticate(token); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->code(), ErrorCode::kSessionInvalid);
  EXPECT_FALSE(StoredSession(token));  // removed when found expired
  EXPECT_EQ(CodeOf([&] { sessions->Logout(token); }), ErrorCode::kSessionInvalid);
}

TEST_P(SessionServiceTest, ARequestWithinTheTimeoutKeepsTheSessionAndRestartsTheTimer) {
  auto sessions = Node(Uncached(60));
  const std::string token = sessions->Login(Credentials("ann", kPassword));
  LastActiveAgo(token, seconds(59));
  const Timestamp before = Now();
  EXPECT_EQ(sessions->Authenticate(token)->principal.user_id, ann_id_);
  auto stored = StoredSession(token);
  ASSERT_TRUE(stored);
  EXPECT_GE(stored->last_active, before);  // the timer started again
}

TEST_P(SessionServiceTest, PurgingRemovesOnlyExpiredSessions) {
  auto sessions = Node(Uncached(60));
  const std::string idle = sessions->Login(Credentials("ann", kPassword));
  const std::string busy = sessions->Login(Credentials("ann", kPassword));
  LastActiveAgo(idle, minutes(10));
  EXPECT_EQ(sessions->PurgeExpired(), 1);
  EXPECT_FALSE(StoredSession(idle));
  EXPECT_TRUE(StoredSession(busy));
  EXPECT_EQ(sessions->Authenticate(busy)->principal.user_id, ann_id_);
  EXPECT_EQ(sessions->PurgeExpired(), 0);
}

TEST_P(SessionServiceTest, APasswordChangeEndsEverySessionOfThatUserOnly) {
  auto sessions = Node();  // the default cache: ending sessions must not wait for it
  const std::string first = sessions->Login(Credentials("ann", kPassword));
  const std::string second = sessions->Login(Credentials("ann", kPassword));
  const std::string admin = sessions->Login(Credentials("administrator", ""));
  sessions->Authenticate(first);
  sessions->Authenticate(second);

  service::UserPatch patch;
  patch.password = "a new password 8";
  directory_->UpdateUser(admin_, ann_id_, patch);
  EXPECT_EQ(sessions->EndSessionsOf(ann_id_), 2);

  EXPECT_EQ(CodeOf([&] { sessions->Authenticate(first); }), ErrorCode::kSessionInvalid);
  EXPECT_EQ(CodeOf([&] { sessions->Authenticate(second); }), ErrorCode::kSessionInvalid);
  EXPECT_EQ(sessions->Authenticate(admin)->principal.user_id, model::kAdministratorUserId);
  EXPECT_EQ(CodeOf([&] { sessions->Login(Credentials("ann", kPassword)); }),
            ErrorCode::kAuthenticationFailed);
  const std::string fresh = sessions->Login(Credentials("ann", "a new password 8"));
  EXPECT_EQ(sessions->Authenticate(fresh)->principal.user_id, ann_id_);
  EXPECT_EQ(sessions->EndSessionsOf("0123456789ABCDEF0123456789ABCDEF"), 0);
}

TEST_P(SessionServiceTest, ADisabledUsersSessionIsRefused) {
  auto sessions = Node(Uncached(1800));
  const std::string token = sessions->Login(Credentials("ann", kPassword));
  service::UserPatch patch;
  patch.enabled = false;
  directory_->UpdateUser(admin_, ann_id_, patch);
  EXPECT_EQ(CodeOf([&] { sessions->Authenticate(token); }), ErrorCode::kSessionInvalid);
}

TEST_P(SessionServiceTest, ANoticeOfAnEndedSessionDropsItFromAnotherNodesCache) {
  auto first = Node();
  SessionOptions cached;
  cached.cache_ttl = std::chrono::minutes(10);  // only a notice can make it forget
  auto second = Node(cached);
  const std::string token = first->Login(Credentials("ann", kPassword));
  second->Authenticate(token);
  first->Logout(token);
  EXPECT_NO_THROW(second->Authenticate(token)) << "a cache that is not told keeps the session";

  second->HearNotice({service::session::kSessionNoticeChannel, "token:" + Sha256Hex(token)});
  EXPECT_EQ(CodeOf([&] { second->Authenticate(token); }), ErrorCode::kSessionInvalid);
}

TEST_P(SessionServiceTest, ANoticeThatAUsersSessionsEndedDropsThemAllAndOnlyThem) {
  auto first = Node();
  SessionOptions cached;
  cached.cache_ttl = std::chrono::minutes(10);
  auto second = Node(cached);
  const std::string ann = first->Login(Credentials("ann", kPassword));
  const std::string admin = first->Login(Credentials("administrator", ""));
  second->Authenticate(ann);
  second->Authenticate(admin);
  first->EndSessionsOf(ann_id_);

  second->HearNotice({service::session::kSessionNoticeChannel, "user:" + ann_id_});
  EXPECT_EQ(CodeOf([&] { second->Authenticate(ann); }), ErrorCode::kSessionInvalid);
  EXPECT_NO_THROW(second->Authenticate(admin));
}

TEST_P(SessionServiceTest, ANoticeThatNoticesWereMissedValidatesEveryCachedSessionAgain) {
  auto first = Node();
  SessionOptions cached;
  cached.cache_ttl = std::chrono::minutes(10);
  auto second = Node(cached);
  const std::string token = first->Login(Credentials("ann", kPassword));
  second->Authenticate(token);
  first->Logout(token);

  second->HearNotice({});
  EXPECT_EQ(CodeOf([&] { second->Authenticate(token); }), ErrorCode::kSessionInvalid);
}

TEST_P(SessionServiceTest,
       AValidatedSessionAuthenticatesFromMemoryUntilItsActivityIsDueInTheStore) {
  SessionOptions options;
  options.idle_timeout_seconds = 3;  // activity is written at most every 300 ms
  options.cache_ttl = std::chrono::hours(1);
  auto sessions = Node(options);
  const std::string token = sessions->Login(Credentials("ann", kPassword));
  const std::string unseen = sessions->Login(Credentials("ann", kPassword));
  EXPECT_EQ(sessions->Authenticate(token)->principal.user_id, ann_id_);
  {
    storage::MemoryOnlyScope memory_only;
    EXPECT_EQ(sessions->Authenticate(token)->principal.user_id, ann_id_);
    EXPECT_THROW(sessions->Authenticate(unseen), storage::StoreNeeded)
        << "a token this node never validated is looked up in the store";
    EXPECT_EQ(CodeOf([&] { sessions->Authenticate(""); }), ErrorCode::kSessionInvalid);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(400));  // past the write interval
  const Timestamp due = Now();
  {
    storage::MemoryOnlyScope memory_only;
    EXPECT_THROW(sessions->Authenticate(token), storage::StoreNeeded);
  }
  EXPECT_LT(StoredSession(token)->last_active, due) << "the refused call recorded nothing";
  EXPECT_EQ(sessions->Authenticate(token)->principal.user_id, ann_id_);
  EXPECT_GE(StoredSession(token)->last_active, due);
}

INSTANTIATE_TEST_SUITE_P(Backends, SessionServiceTest, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
