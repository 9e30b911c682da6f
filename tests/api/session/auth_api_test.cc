// Login, logout and sessions over HTTP.
#include <regex>
#include <thread>

#include "api/api_fixture.h"

namespace tessera::testing {
namespace {

class AuthApi : public ApiTest {};

http::Response PostForm(ApiClient& client, const std::string& body,
                        const http::Headers& extra = {}) {
  http::Headers headers = extra;
  headers.Set("Content-Type", "application/x-www-form-urlencoded");
  return client.Send("POST", "/api/auth/login", headers, body);
}

TEST_P(AuthApi, FormLoginAnswers204WithTokenInBothHeaderSpellingsAndACookie) {
  auto response =
      PostForm(client(), "loginMode=1&applicationType=76&username=administrator&password=");
  EXPECT_EQ(response.status, 204);
  EXPECT_TRUE(response.body.empty());
  auto token = response.headers.Get("X-MSTR-AuthToken");
  ASSERT_TRUE(token);
  EXPECT_TRUE(std::regex_match(std::string(*token), std::regex("[a-z2-7]{26}")));
  EXPECT_EQ(response.headers.Get("X-SVC-AuthToken"), token);
  auto cookie = response.headers.Get("Set-Cookie");
  ASSERT_TRUE(cookie);
  EXPECT_TRUE(std::regex_search(std::string(*cookie),
                                std::regex("^JSESSIONID=[0-9A-F]{32}; Path=/; HttpOnly")));
}

TEST_P(AuthApi, JsonLoginWorksAndEachLoginGetsItsOwnToken) {
  auto first = client().PostJson(
      "/api/auth/login", {{"loginMode", 1}, {"username", "administrator"}, {"password", ""}});
  auto second =
      client().PostJson("/api/auth/login", {{"username", "Administrator"}, {"password", ""}});
  ASSERT_EQ(first.status, 204);
  ASSERT_EQ(second.status, 204);
  EXPECT_NE(first.headers.Get("X-MSTR-AuthToken"), second.headers.Get("X-MSTR-AuthToken"));
}

TEST_P(AuthApi, LoginIgnoresAStaleTokenAndCookieSentAlong) {
  http::Headers stale;
  stale.Set("X-MSTR-AuthToken", "aaaaaaaaaaaaaaaaaaaaaaaaaa");
  stale.Set("Cookie", "JSESSIONID=0123456789ABCDEF0123456789ABCDEF");
  EXPECT_EQ(PostForm(client(), "username=administrator&password=", stale).status, 204);
}

TEST_P(AuthApi, WrongPasswordUnknownUserAndEmptyCredentialsAre401Err003) {
  CreateUser("bob", "s3cret");
  ExpectError(PostForm(client(), "username=bob&password=wrong"), 401, "ERR003");
  ExpectError(PostForm(client(), "username=nobody&password=x"), 401, "ERR003");
  ExpectError(PostForm(client(), "username=&password="), 401, "ERR003");
  ExpectError(PostForm(client(), ""), 401, "ERR003");
  EXPECT_EQ(PostForm(client(), "username=bob&password=s3cret").status, 204);
}

TEST_P(AuthApi, DisabledUserCannotLogIn) {
  CreateUser("carol", "pw", {{"enabled", false}});
  ExpectError(PostForm(client(), "username=carol&password=pw"), 401, "ERR003");
}

TEST_P(AuthApi, ModesThatAreNotEnabledAre401Err001AndUnknownModes400) {
  for (const char* mode : {"8", "16", "4096", "1048576", "4194304"}) {
    ExpectError(PostForm(client(), std::string("loginMode=") + mode + "&username=administrator"),
                401, "ERR001");
  }
  ExpectError(PostForm(client(), "loginMode=999&username=administrator"), 400, "ERR006");
  ExpectError(PostForm(client(), "loginMode=abc&username=administrator"), 400, "ERR006");
  ExpectError(client().PostJson("/api/auth/login", {{"loginMode", "x"}, {"username", "a"}}), 400,
              "ERR006");
}

TEST_P(AuthApi, MalformedJsonAndWrongTypesAre400Err006) {
  http::Headers json;
  json.Set("Content-Type", "application/json");
  ExpectError(client().Send("POST", "/api/auth/login", json, "{\"username\": "), 400, "ERR006");
  ExpectError(client().Send("POST", "/api/auth/login", json, "[1,2]"), 400, "ERR006");
  ExpectError(client().PostJson("/api/auth/login", {{"username", Json::array()}}), 400, "ERR006");
}

TEST_P(AuthApi, ACallWithoutATokenIs401Err009SayingTheTokenIsMissing) {
  const std::string missing =
      "No authentication token: send X-MSTR-AuthToken (from POST /api/auth/login)";
  ExpectError(client().Get("/api/projects"), 401, "ERR009", missing);
  ExpectError(client().Get("/api/sessions", AuthHeaders("")), 401, "ERR009", missing);
  http::Headers blank;
  blank.Set("X-SVC-AuthToken", "  ");
  ExpectError(client().Get("/api/sessions", blank), 401, "ERR009", missing);
}

TEST_P(AuthApi, ABodyWithoutATokenIsRefusedAndChangesNothing) {
  http::Headers json;
  json.Set("Content-Type", "application/json");
  ExpectError(client().Send("POST", "/api/users", json,
                            R"({"username": "eve", "fullName": "Eve", "password": "pw"})"),
              401, "ERR009",
              "No authentication token: send X-MSTR-AuthToken (from POST /api/auth/login)");
  ExpectError(PostForm(client(), "username=eve&password=pw"), 401, "ERR003");  // no such user
}

TEST_P(AuthApi, AnUnknownOrEndedTokenKeepsTheSessionExpiredMessage) {
  const std::string expired = "The user's session has expired, please reauthenticate";
  ExpectError(client().Get("/api/projects", AuthHeaders("notatoken")), 401, "ERR009", expired);
  std::string token = client().Login();
  ASSERT_EQ(client().Send("POST", "/api/auth/logout", AuthHeaders(token)).status, 204);
  ExpectError(client().Get("/api/sessions", AuthHeaders(token)), 401, "ERR009", expired);
}

TEST_P(AuthApi, SvcHeaderSpellingIsAcceptedForTheToken) {
  std::string token = client().Login();
  http::Headers headers;
  headers.Set("x-svc-authtoken", token);
  EXPECT_EQ(client().Get("/api/sessions", headers).status, 200);
}

TEST_P(AuthApi, SessionInfoReportsTheConfiguredTimeoutAndClientFields) {
  std::string token = client().Login();
  auto response = client().Get("/api/sessions", AuthHeaders(token));
  ASSERT_EQ(response.status, 200);
  Json body = BodyOf(response);
  EXPECT_EQ(body["timeout"], config().session_idle_timeout_seconds);
  EXPECT_GE(body["workingSet"].get<int>(), 3);
  EXPECT_TRUE(body["maxSearch"].is_number_integer());
  EXPECT_EQ(body["userId"], "54F3D26011D2896560009A8E67019608");
}

TEST_P(AuthApi, RenewAnswers204AndLogoutEndsOnlyThatSession) {
  std::string first = client().Login();
  std::string second = client().Login();
  auto renew = client().Send("PUT", "/api/sessions", AuthHeaders(first));
  EXPECT_EQ(renew.status, 204);
  EXPECT_TRUE(renew.body.empty());
  EXPECT_EQ(client().Send("POST", "/api/auth/logout", AuthHeaders(first)).status, 204);
  ExpectError(client().Get("/api/sessions", AuthHeaders(first)), 401, "ERR009");
  ExpectError(client().Send("PUT", "/api/sessions", AuthHeaders(first)), 401, "ERR009");
  ExpectError(client().Send("POST", "/api/auth/logout", AuthHeaders(first)), 401, "ERR009");
  EXPECT_EQ(client().Get("/api/sessions", AuthHeaders(second)).status, 200);
}

TEST_P(AuthApi, UserInfoNamesTheLoggedInUser) {
  CreateUser("dave", "pw");
  std::string token = client().Login("dave", "pw");
  auto response = client().Get("/api/sessions/userInfo", AuthHeaders(token));
  ASSERT_EQ(response.status, 200);
  Json body = BodyOf(response);
  EXPECT_EQ(body["fullName"], "dave Tester");
  EXPECT_EQ(body["initials"], "DT");
  EXPECT_EQ(body["username"], "dave");
  EXPECT_EQ(body["id"].get<std::string>().size(), 32u);
}

TEST_P(AuthApi, PrivilegesComeFromSecurityRoles) {
  std::string admin = client().Login();
  Json privileges = BodyOf(client().Get("/api/sessions/privileges", AuthHeaders(admin)));
  bool has_create_package = false;
  for (const auto& privilege : privileges)
    has_create_package |= privilege["name"] == "Create package";
  EXPECT_TRUE(has_create_package);
  EXPECT_EQ(client().Get("/api/sessions/privileges/286", AuthHeaders(admin)).status, 200);

  CreateUser("erin", "pw");
  std::string erin = client().Login("erin", "pw");
  ExpectError(client().Get("/api/sessions/privileges/286", AuthHeaders(erin)), 403, "ERR014");
  EXPECT_EQ(client().Get("/api/sessions/privileges/290", AuthHeaders(erin)).status, 200);
  ExpectError(client().Get("/api/sessions/privileges/99999", AuthHeaders(erin)), 404, "ERR004");
}

TEST_P(AuthApi, UserCreationNeedsAdministerUsersAndAUniqueName) {
  CreateUser("frank", "pw");
  std::string frank = client().Login("frank", "pw");
  ExpectError(
      client().PostJson("/api/users", {{"username", "x"}, {"password", "y"}}, AuthHeaders(frank)),
      403, "ERR014");
  std::string admin = client().Login();
  ExpectError(client().PostJson("/api/users", {{"username", "FRANK"}, {"password", "y"}},
                                AuthHeaders(admin)),
              409, "ERR015");
  ExpectError(client().PostJson("/api/users", {{"password", "y"}}, AuthHeaders(admin)), 400,
              "ERR007");
}

class ShortSessionApi : public ApiTest {
  void Configure(app::Config& config) override { config.session_idle_timeout_seconds = 1; }
};

TEST_P(ShortSessionApi, AnIdleSessionExpiresAfterItsTimeout) {
  std::string token = client().Login();
  EXPECT_EQ(BodyOf(client().Get("/api/sessions", AuthHeaders(token)))["timeout"], 1);
  // Idle time is what expires a session, so this test sleeps: past the 1 s timeout and the tenth
  // of it a node adds as slack to a stored activity time. Asking in between would reset the timer.
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  ExpectError(client().Get("/api/projects", AuthHeaders(token)), 401, "ERR009");
}

TEST_P(ShortSessionApi, EveryRequestResetsTheIdleTimer) {
  std::string token = client().Login();
  // Time must pass for a timer to be reset, so this test sleeps: requests half a timeout apart,
  // for three timeouts, longer than the 2 s a node keeps a validated session in its cache.
  for (int i = 0; i < 6; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    ASSERT_EQ(client().Get("/api/projects", AuthHeaders(token)).status, 200) << "request " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, AuthApi, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);
INSTANTIATE_TEST_SUITE_P(Backends, ShortSessionApi, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
