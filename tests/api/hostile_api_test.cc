// What a hostile client sends: nesting, sizes, wrong types, numbers out of range, bad encodings and
// protocol abuse. Each request gets its 4xx with a JSON error body (code, message, ticketId), and
// the server goes on answering. The counts of answers by status are printed at the end of each
// test.
#include <chrono>
#include <map>
#include <thread>

#include "api/demo_api.h"
#include "support/raw_connection.h"

namespace tessera::testing {
namespace {

std::string Nested(int depth, const std::string& open, const std::string& close,
                   const std::string& middle = "") {
  std::string text;
  text.reserve(depth * (open.size() + close.size()) + middle.size());
  for (int i = 0; i < depth; ++i) text += open;
  text += middle;
  for (int i = 0; i < depth; ++i) text += close;
  return text;
}

class HostileApi : public DemoApi {
 protected:
  void Configure(app::Config& config) override {
    DemoApi::Configure(config);
    config.read_timeout_seconds = 2;
  }

  // Sends `body` as JSON and expects a 4xx with the error shape; tallies the status.
  http::Response Expect4xx(const std::string& method, const std::string& target,
                           const std::string& body, int status, const std::string& code,
                           const http::Headers& headers) {
    http::Headers with_type = headers;
    with_type.Set("Content-Type", "application/json");
    auto response = client().Send(method, target, with_type, body);
    ++counts_[response.status];
    ExpectError(response, status, code);
    EXPECT_LT(BodyOf(response)["message"].get<std::string>().size(), 600u)
        << "the message must not repeat the input";
    ExpectStillServing();
    return response;
  }
  http::Response Expect4xx(const std::string& method, const std::string& target,
                           const std::string& body, int status, const std::string& code) {
    return Expect4xx(method, target, body, status, code, Headers());
  }

  void ExpectStillServing() {
    ApiClient fresh(port());
    EXPECT_EQ(fresh.Get("/api/projects", AuthHeaders(token())).status, 200);
  }

  std::string ReportInstances() {
    return "/api/v2/reports/" + ReportId("Revenue by Year") + "/instances";
  }

  void TearDown() override {
    if (!counts_.empty()) {
      std::string tally;
      for (const auto& [status, count] : counts_) {
        tally += std::to_string(status) + ": " + std::to_string(count) + "  ";
      }
      std::cout << "[hostile] answers by status: " << tally << "\n";
    }
    DemoApi::TearDown();
  }

  std::map<int, int> counts_;
};

TEST_P(HostileApi, DeepNestingIsRefusedWhereverABodyIsParsed) {
  const std::string deep_array = Nested(100000, "[", "]");
  auto refused =
      Expect4xx("POST", ReportInstances(), "{\"viewFilter\":" + deep_array + "}", 400, "ERR006");
  EXPECT_NE(BodyOf(refused)["message"].get<std::string>().find("deeper than 256"),
            std::string::npos)
      << refused.body;
  Expect4xx("POST", ReportInstances(), "{\"metricLimits\":" + deep_array + "}", 400, "ERR006");
  const std::string deep_not =
      Nested(20000, R"({"operator":"Not","operands":[)", "]}", R"({"operator":"And"})");
  Expect4xx("POST", ReportInstances(), "{\"viewFilter\":" + deep_not + "}", 400, "ERR006");
  Expect4xx("POST", "/api/datasets/models", "{\"tables\":" + deep_array + "}", 400, "ERR006");
  Expect4xx("POST", "/api/migrations",
            "{\"packageInfo\":" + Nested(50000, "{\"a\":", "}", "1") + "}", 400, "ERR006");
  // At the limit itself the document is accepted as JSON (and refused for what it says).
  Expect4xx("POST", ReportInstances(), "{\"viewFilter\":" + Nested(200, "[", "]") + "}", 400,
            "ERR006");
}

TEST_P(HostileApi, FiltersBeyondTheSizeLimitAreRefusedNamingTheLimit) {
  std::string operands;
  const std::string year = AttributeId("Year");
  for (int i = 0; i < 1500; ++i) {
    if (i) operands += ",";
    operands += R"({"operator":"In","operands":[{"type":"attribute","id":")" + year +
                R"("},{"type":"elements","elements":[{"id":"h2023;)" + year + R"("}]}]})";
  }
  auto refused = Expect4xx("POST", ReportInstances(),
                           R"({"viewFilter":{"operator":"And","operands":[)" + operands + "]}}",
                           400, "ERR006");
  EXPECT_NE(BodyOf(refused)["message"].get<std::string>().find("at most 1000"), std::string::npos)
      << refused.body;
}

TEST_P(HostileApi, NumbersOutOfRangeAndWrongTypesAre400) {
  http::Headers none;
  Expect4xx("POST", "/api/auth/login", R"({"username":"administrator","password":1e999})", 400,
            "ERR006", none);
  Expect4xx("POST", ReportInstances(), R"({"a":1e999})", 400, "ERR006");
  Expect4xx("POST", ReportInstances(), "{\"a\":1" + std::string(100000, '0') + "e99999}", 400,
            "ERR006");
  const std::string year = AttributeId("Year");
  const std::vector<std::string> filters = {
      R"({"operator":"In","operands":[{"type":5,"id":")" + year + R"("},{"type":"elements"}]})",
      R"({"operator":"In","operands":[{"type":"attribute","id":7},{"type":"elements","elements":3}]})",
      R"({"operator":5,"operands":[]})", R"({"operator":"And","operands":"x"})",
      R"({"operator":"Greater","operands":[{"type":"metric","id":[]},{"type":"constant","value":{}}]})"};
  for (const std::string& filter : filters) {
    Expect4xx("POST", ReportInstances(), "{\"viewFilter\":" + filter + "}", 400, "ERR006");
  }
  for (const std::string type : {"\"x\"", "1e999", "[]", "3.5"}) {
    Expect4xx(
        "POST", "/api/dossiers/instances",
        R"({"objects":[{"id":")" + ReportId("Revenue by Year") + R"(","type":)" + type + "}]}", 400,
        "ERR006");
  }
  Expect4xx("POST", ReportInstances(), R"({"metricLimits":{"nope":{"operator":7}}})", 400,
            "ERR006");
  Expect4xx("POST", ReportInstances(), R"({"requestedObjects":{"attributes":"all"}})", 400,
            "ERR006");
}

TEST_P(HostileApi, BadEncodingsAre400) {
  Expect4xx("POST", ReportInstances(), "{\"viewFilter\":\"\xff\xfe\"}", 400, "ERR006");
  Expect4xx("POST", ReportInstances(), std::string("{\"a\":\"x\0y\"}", 12), 400, "ERR006");
  Expect4xx("POST", ReportInstances(), "{\"a\":\"\\ud800\"}", 400, "ERR006");
  auto unknown = client().Get("/api/objects/%ZZ%00?type=8", Headers());
  EXPECT_EQ(unknown.status / 100, 4) << unknown.body;
  ExpectStillServing();
}

TEST_P(HostileApi, ATokenlessBodyIsRefused401BeforeItIsRead) {
  RawConnection connection(port());
  const auto started = std::chrono::steady_clock::now();
  connection.Write("POST " + ReportInstances() +
                   " HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
                   "Content-Length: 209715200\r\n\r\n");
  auto refused = connection.ReadResponse(std::chrono::seconds(5));
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->status, 401);
  EXPECT_EQ(BodyOf(*refused)["code"], "ERR009");
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(4));
  ExpectStillServing();
}

TEST_P(HostileApi, BodiesOverTheLimitOfTheirRouteAre413) {
  std::string big = "{\"viewFilter\":\"" + std::string(5 << 20, 'x') + "\"}";
  Expect4xx("POST", ReportInstances(), big, 413, "ERR006");
}

TEST_P(HostileApi, ProtocolAbuseGetsItsAnswerAndTheServerGoesOn) {
  {  // headers that never end: the read timeout closes the connection
    RawConnection slow(port());
    slow.Write("GET /api/status HTTP/1.1\r\nHost: t\r\nX-Slow: ");
    EXPECT_TRUE(slow.ReadUntilClosed(std::chrono::seconds(8)).has_value());
  }
  {  // a header beyond the header limit
    RawConnection huge(port());
    huge.Write("GET /api/status HTTP/1.1\r\nHost: t\r\nX-Big: " + std::string(100000, 'a') +
               "\r\n\r\n");
    auto closed = huge.ReadUntilClosed();
    ASSERT_TRUE(closed.has_value());
    EXPECT_NE(closed->find("HTTP/1.1 431"), std::string::npos) << closed->substr(0, 200);
  }
  {  // a body shorter than its declared length: the read timeout closes the connection
    RawConnection short_body(port());
    short_body.Write("POST /api/auth/login HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\nab");
    EXPECT_TRUE(short_body.ReadUntilClosed(std::chrono::seconds(8)).has_value());
  }
  {  // a body longer than declared: the rest is read as a request, which is malformed
    RawConnection long_body(port());
    long_body.Write(
        "POST /api/auth/login HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\n{}garbage\r\n\r\n");
    auto first = long_body.ReadResponse();
    ASSERT_TRUE(first.has_value());
    EXPECT_EQ(first->status / 100, 4);
    auto second = long_body.ReadResponse();
    ASSERT_TRUE(second.has_value());
    EXPECT_EQ(second->status, 400);
  }
  {  // a length and a chunked encoding at once
    RawConnection both(port());
    both.Write(
        "POST /api/auth/login HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n"
        "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n");
    auto answer = both.ReadResponse();
    ASSERT_TRUE(answer.has_value());
    EXPECT_EQ(answer->status, 400);
  }
  {  // fifty pipelined requests are answered in order
    RawConnection pipelined(port());
    std::string requests;
    for (int i = 0; i < 50; ++i) {
      requests += "GET /api/status?n=" + std::to_string(i) + " HTTP/1.1\r\nHost: t\r\n\r\n";
    }
    pipelined.Write(requests);
    for (int i = 0; i < 50; ++i) {
      auto answer = pipelined.ReadResponse();
      ASSERT_TRUE(answer.has_value()) << i;
      EXPECT_EQ(answer->status, 200) << i;
    }
  }
  ExpectStillServing();
}

TEST_P(HostileApi, RepeatedWrongPasswordsLockTheUserOutUntilAnAdministratorUnlocksIt) {
  std::string victim = CreateUser("victim", "right");
  http::Headers none;
  const std::string wrong = "username=victim&password=wrong";
  http::Headers form;
  form.Set("Content-Type", "application/x-www-form-urlencoded");
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(client().Send("POST", "/api/auth/login", form, wrong).status, 401) << i;
  }
  auto locked = client().Send("POST", "/api/auth/login", form, "username=victim&password=right");
  ExpectError(locked, 429, "ERR003");
  ASSERT_TRUE(locked.headers.Get("Retry-After").has_value());
  EXPECT_GE(std::stoi(std::string(*locked.headers.Get("Retry-After"))), 1);
  // Other users are not affected.
  EXPECT_EQ(
      client().Send("POST", "/api/auth/login", form, "username=administrator&password=").status,
      204);

  http::Headers admin = AuthHeaders(token());
  admin.Set("Content-Type", "application/json");
  auto unlocked =
      client().Send("PATCH", "/api/users/" + victim, admin,
                    R"({"operationList":[{"op":"replace","path":"/enabled","value":true}]})");
  ASSERT_EQ(unlocked.status, 200) << unlocked.body;
  EXPECT_EQ(client().Send("POST", "/api/auth/login", form, "username=victim&password=right").status,
            204);
}

TEST_P(HostileApi, ANewPasswordEndsTheUsersSessions) {
  std::string id = CreateUser("rotating", "old");
  std::string session = client().Login("rotating", "old");
  ASSERT_EQ(client().Get("/api/sessions", AuthHeaders(session)).status, 200);
  http::Headers admin = AuthHeaders(token());
  admin.Set("Content-Type", "application/json");
  ASSERT_EQ(client()
                .Send("PATCH", "/api/users/" + id, admin,
                      R"({"operationList":[{"op":"replace","path":"/password","value":"new"}]})")
                .status,
            200);
  ExpectError(client().Get("/api/sessions", AuthHeaders(session)), 401, "ERR009");
  EXPECT_FALSE(client().Login("rotating", "new").empty());
}

TEST_P(HostileApi, PublishingACubeNeedsThePublishPrivilege) {
  CreateUser("viewer", "pw");
  std::string viewer = client().Login("viewer", "pw");
  auto refused = client().Send("POST", "/api/v2/cubes/" + ReportId("Sales Cube"),
                               AuthHeaders(viewer, project()));
  ExpectError(refused, 403, "ERR014");
  EXPECT_NE(BodyOf(refused)["message"].get<std::string>().find("Publish cubes"), std::string::npos)
      << refused.body;
  ExpectError(client().Get(std::string("/api/users/") + kAdministratorId, AuthHeaders(viewer)), 403,
              "ERR014");
}

INSTANTIATE_TEST_SUITE_P(Backends, HostileApi, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
