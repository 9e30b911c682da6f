// The project header on calls that reach into a project: objects that live only in projects,
// and searches for them, are refused without X-MSTR-ProjectID, with a message naming the header;
// configuration objects and configuration searches need none.
#include <algorithm>

#include "api/demo_api.h"

namespace tessera::testing {
namespace {

constexpr const char* kHowToSend = ": send the id of the project (GET /api/projects lists them)";

class ProjectHeaderApi : public DemoApi {
 protected:
  http::Headers NoProject() const { return AuthHeaders(token()); }

  std::string ReportPath() const {
    return "/api/objects/" + ReportId("Western Europe by Country") + "?type=3";
  }

  static std::string Required(const std::string& needed_for) {
    return "The X-MSTR-ProjectID header is required for " + needed_for + kHowToSend;
  }
};

TEST_P(ProjectHeaderApi, AReportLookedUpWithoutTheHeaderIs400Err005NamingIt) {
  ExpectError(client().Get(ReportPath(), NoProject()), 400, "ERR005",
              Required("objects of type 3, which live in a project"));
  EXPECT_EQ(GetJson(ReportPath())["name"], "Western Europe by Country");
}

TEST_P(ProjectHeaderApi, ARenameOrDeleteWithoutTheHeaderIsRefusedAndChangesNothing) {
  const Json before = GetJson(ReportPath());
  http::Headers json = NoProject();
  json.Set("Content-Type", "application/json");
  const std::string message = Required("objects of type 3, which live in a project");
  ExpectError(client().Send("PUT", ReportPath(), json, R"({"name": "Renamed"})"), 400, "ERR005",
              message);
  ExpectError(client().Send("DELETE", ReportPath(), NoProject()), 400, "ERR005", message);
  const Json after = GetJson(ReportPath());
  EXPECT_EQ(after["name"], "Western Europe by Country");
  EXPECT_EQ(after["version"], before["version"]);
}

TEST_P(ProjectHeaderApi, ConfigurationObjectsNeedNoHeader) {
  auto user =
      client().Get(std::string("/api/objects/") + kAdministratorId + "?type=34", NoProject());
  ASSERT_EQ(user.status, 200) << user.body;
  EXPECT_EQ(BodyOf(user)["name"], "Administrator");
  auto project_object = client().Get("/api/objects/" + project() + "?type=32", NoProject());
  ASSERT_EQ(project_object.status, 200) << project_object.body;
  EXPECT_EQ(BodyOf(project_object)["name"], "Tutorial");
}

TEST_P(ProjectHeaderApi, AQuickSearchForProjectTypesWithoutTheHeaderIs400Err005) {
  const std::string configuration_only =
      " (without it a search finds configuration objects only: users, user groups, security "
      "roles, projects)";
  ExpectError(client().Get("/api/searches/results?name=Western&type=3", NoProject()), 400, "ERR005",
              Required("a search for objects of type 3" + configuration_only));
  ExpectError(client().Get("/api/searches/results?name=Western&type=768", NoProject()), 400,
              "ERR005", Required("a search for objects of type 768" + configuration_only));

  Json found = GetJson("/api/searches/results?name=Western&type=3");
  ASSERT_EQ(found["result"].size(), 1u) << found;
  EXPECT_EQ(found["result"][0]["name"], "Western Europe by Country");
}

TEST_P(ProjectHeaderApi, AQuickSearchForConfigurationObjectsNeedsNoHeader) {
  auto response = client().Get("/api/searches/results?name=administrator&type=34", NoProject());
  ASSERT_EQ(response.status, 200) << response.body;
  const Json body = BodyOf(response);
  std::vector<std::string> names;
  for (const auto& item : body["result"]) names.push_back(item["name"]);
  EXPECT_NE(std::find(names.begin(), names.end(), "Administrator"), names.end()) << response.body;
}

TEST_P(ProjectHeaderApi, AMetadataSearchOutsideTheConfigurationDomainNeedsTheHeader) {
  ExpectError(client().Send("POST", "/api/metadataSearches/results?type=3", NoProject()), 400,
              "ERR005",
              Required("a search in domain 2 (domain=4 searches the configuration without it)"));
  auto configuration =
      client().Send("POST", "/api/metadataSearches/results?domain=4&type=34", NoProject());
  ASSERT_EQ(configuration.status, 200) << configuration.body;
  EXPECT_GE(BodyOf(configuration)["totalItems"].get<int>(), 1);
}

INSTANTIATE_TEST_SUITE_P(Backends, ProjectHeaderApi, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
