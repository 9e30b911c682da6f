// The exact request sequences of the official Python client, replayed as the client sends them:
// headers, query spellings and all.
#include <regex>

#include "api/api_fixture.h"
#include "core/ids.h"

namespace tessera::testing {
namespace {

class PythonClientFlow : public ApiTest {
 protected:
  void SetUp() override {
    ApiTest::SetUp();
    if (IsSkipped()) return;
    project_ = CreateProject("Tutorial Project");
  }
  std::string project_;
};

http::Headers ClientHeaders(const std::string& token, const std::string& cookie,
                            const std::string& project = "") {
  http::Headers headers = AuthHeaders(token, project);
  headers.Set("Accept", "*/*");
  if (!cookie.empty()) headers.Set("Cookie", cookie);
  return headers;
}

TEST_P(PythonClientFlow, ConnectionWithProjectNameThenUseAndClose) {
  // 1. login, form-encoded
  http::Headers form;
  form.Set("Content-Type", "application/x-www-form-urlencoded");
  auto login = client().Send("POST", "/api/auth/login", form,
                             "loginMode=1&applicationType=76&username=administrator&password=");
  ASSERT_EQ(login.status, 204);
  std::string token(*login.headers.Get("X-MSTR-AuthToken"));
  std::string cookie(login.headers.Get("Set-Cookie")->substr(0, 43));  // JSESSIONID=<32 hex>

  // 2. session info, without the project header
  Json session = BodyOf(client().Get("/api/sessions", ClientHeaders(token, cookie)));
  ASSERT_TRUE(session["timeout"].is_number_integer());
  ASSERT_TRUE(session["workingSet"].is_number_integer());
  ASSERT_TRUE(session["maxSearch"].is_number_integer());

  // 3. status: the first 9 characters must read as a release number >= 11.5.0600
  Json status = BodyOf(client().Get("/api/status", ClientHeaders(token, cookie)));
  EXPECT_TRUE(std::regex_match(status["iServerVersion"].get<std::string>().substr(0, 9),
                               std::regex(R"(\d\d\.\d\.\d{4})")));
  EXPECT_GE(status["webVersion"].get<std::string>().substr(0, 9), "11.5.0600");

  // 4. project by name: exactly one entry with that exact name
  Json projects = BodyOf(client().Get("/api/projects", ClientHeaders(token, cookie)));
  int matches = 0;
  std::string project_id;
  for (const auto& project : projects) {
    if (project["name"] == "Tutorial Project") {
      ++matches;
      project_id = project["id"];
    }
  }
  ASSERT_EQ(matches, 1);
  EXPECT_TRUE(std::regex_match(project_id, std::regex("^[0-9A-F]{32}$")));

  // 5. project as object, with the project header
  auto object = client().Get("/api/objects/" + project_id + "?type=32&comments=True",
                             ClientHeaders(token, cookie, project_id));
  ASSERT_EQ(object.status, 200);
  EXPECT_EQ(BodyOf(object)["name"], "Tutorial Project");

  // later: user info (sent with the project header), monitors listing, project by name
  Json user =
      BodyOf(client().Get("/api/sessions/userInfo", ClientHeaders(token, cookie, project_id)));
  EXPECT_EQ(user["fullName"], "Administrator");
  auto monitors =
      client().Get("/api/monitors/projects?offset=0&limit=1000", ClientHeaders(token, cookie));
  ASSERT_EQ(monitors.status, 200);
  EXPECT_TRUE(std::regex_match(std::string(*monitors.headers.Get("X-MSTR-Total-Count")),
                               std::regex("\\d+")));
  Json monitored = BodyOf(monitors);
  for (const auto& project : monitored["projects"]) {
    EXPECT_TRUE(std::set<int>({0, 1, 2, 4, 7, -1, -2, -3, -4}).count(project["status"].get<int>()));
  }
  EXPECT_EQ(client()
                .Get("/api/projects/Tutorial%20Project", ClientHeaders(token, cookie, project_id))
                .status,
            200);

  // renewal with a 2-second client timeout, then close
  EXPECT_EQ(client().Send("PUT", "/api/sessions", ClientHeaders(token, cookie)).status, 204);
  EXPECT_EQ(client().Send("POST", "/api/auth/logout", ClientHeaders(token, cookie)).status, 204);
  auto again = client().Send("POST", "/api/auth/logout", ClientHeaders(token, cookie));
  ExpectError(again, 401, "ERR009");  // the pair the client whitelists on close
}

model::ObjectRecord ContentObject(const std::string& project, const std::string& name,
                                  int subtype) {
  model::ObjectRecord object;
  object.project_id = project;
  object.id = NewObjectId();
  object.type = subtype >> 8;
  object.subtype = subtype;
  object.name = name;
  object.folder_id = kReportsFolderId;
  object.owner_id = kAdministratorId;
  object.version = NewObjectId();
  object.created = object.modified = Now();
  return object;
}

TEST_P(PythonClientFlow, ListingCubesFindsOnlyCubeSubtypes) {
  auto cube = ContentObject(project_, "Sales Cube", 776);
  auto super_cube = ContentObject(project_, "Pushed Data", 779);
  auto report = ContentObject(project_, "Sales Report", 768);
  auto dashboard = ContentObject(project_, "Sales Dashboard", 14081);
  dashboard.definition = {{"isDashboard", true}};
  PutObjects({cube, super_cube, report, dashboard});
  std::string token = client().Login();
  http::Headers headers = AuthHeaders(token, project_);
  headers.Set("Content-Type", "application/json");
  auto started = client().Send(
      "POST",
      "/api/v2/metadataSearches/results?pattern=4&domain=2&type=776&type=779&usesRecursive=False"
      "&usedByRecursive=False&usesOneOf=False&usedByOneOf=False",
      headers, "{}");
  ASSERT_EQ(started.status, 200) << started.body;
  auto fetched = client().Get(
      "/api/metadataSearches/results?searchId=" + BodyOf(started)["id"].get<std::string>(),
      AuthHeaders(token, project_));
  ASSERT_EQ(fetched.status, 200);
  Json hits = BodyOf(fetched);
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_EQ(hits[0]["id"], super_cube.id);  // "Pushed Data" sorts before "Sales Cube"
  EXPECT_EQ(hits[0]["subtype"], 779);
  EXPECT_EQ(hits[1]["id"], cube.id);
  EXPECT_EQ(fetched.headers.Get("X-MSTR-Total-Count"), "2");

  auto documents = client().Get("/api/searches/results?type=14081", AuthHeaders(token, project_));
  Json result = BodyOf(documents)["result"];
  ASSERT_EQ(result.size(), 1u);
  // list_dashboards keeps entries where viewMedia & 0xE8000000 == 0x60000000
  EXPECT_EQ(result[0]["viewMedia"].get<int64_t>() & 0xE8000000, 0x60000000);
  Json reports = BodyOf(client().Get("/api/searches/results?type=3&name=Sales%20Report",
                                     AuthHeaders(token, project_)))["result"];
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_TRUE(reports[0].contains("viewMedia"));
}

INSTANTIATE_TEST_SUITE_P(Backends, PythonClientFlow, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

class ContextPathApi : public ApiTest {
  void Configure(app::Config& config) override { config.context_path = "/MicroStrategyLibrary"; }
};

TEST_P(ContextPathApi, TheApiLivesUnderTheContextPathOnly) {
  EXPECT_EQ(client().Get("/MicroStrategyLibrary/api/status").status, 200);
  ExpectError(client().Get("/api/status"), 404, "ERR004");
  http::Headers form;
  form.Set("Content-Type", "application/x-www-form-urlencoded");
  auto login = client().Send("POST", "/MicroStrategyLibrary/api/auth/login/", form,
                             "username=administrator&password=");
  ASSERT_EQ(login.status, 204);
  EXPECT_NE(login.headers.Get("Set-Cookie")->find("Path=/MicroStrategyLibrary/;"),
            std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Backends, ContextPathApi, ::testing::Values(StoreBackend::kSqlite),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
