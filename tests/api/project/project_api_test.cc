// Status, routing errors, projects and partial responses.
#include <regex>

#include "api/api_fixture.h"
#include "core/strings.h"

namespace tessera::testing {
namespace {

const std::regex kTimestamp(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+0000)");
const std::regex kId("[0-9A-F]{32}");

class ProjectApi : public ApiTest {
 protected:
  void SetUp() override {
    ApiTest::SetUp();
    if (IsSkipped()) return;
    retail_id_ = CreateProject("Retail Analytics", "Sales and inventory");
    other_id_ = CreateProject("Another Project");
    token_ = client().Login();
  }
  std::string retail_id_, other_id_, token_;
};

TEST_P(ProjectApi, StatusNeedsNoTokenAndIgnoresAStaleOne) {
  auto response = client().Get("/api/status", AuthHeaders("stale-token"));
  ASSERT_EQ(response.status, 200);
  Json body = BodyOf(response);
  EXPECT_EQ(body["iServerVersion"], "11.6.0200.0001");
  EXPECT_EQ(body["webVersion"], "11.6.0200.0001");
}

TEST_P(ProjectApi, UnknownRouteIs404Err004AndWrongMethod405Err001WithExactMessages) {
  auto missing = client().Get("/api/nothingHere", AuthHeaders(token_));
  ExpectError(missing, 404, "ERR004");
  EXPECT_EQ(BodyOf(missing)["message"], "HTTP 404 Not Found");
  auto wrong_method = client().Send("DELETE", "/api/projects", AuthHeaders(token_));
  ExpectError(wrong_method, 405, "ERR001");
  EXPECT_EQ(BodyOf(wrong_method)["message"], "HTTP 405 Method Not Allowed");
  ExpectError(client().Get("/nothing"), 404, "ERR004");
  ExpectError(client().Get("/api"), 404, "ERR004");
}

TEST_P(ProjectApi, EveryErrorCarriesADistinctTicketId) {
  auto first = BodyOf(client().Get("/api/projects/Nope", AuthHeaders(token_)));
  auto second = BodyOf(client().Get("/api/projects/Nope", AuthHeaders(token_)));
  EXPECT_TRUE(std::regex_match(first["ticketId"].get<std::string>(), std::regex("[0-9a-f]{32}")));
  EXPECT_NE(first["ticketId"], second["ticketId"]);
}

TEST_P(ProjectApi, ListsProjectsByNameWithEveryField) {
  auto response = client().Get("/api/projects", AuthHeaders(token_));
  ASSERT_EQ(response.status, 200);
  Json projects = BodyOf(response);
  ASSERT_EQ(projects.size(), 2u);
  EXPECT_EQ(projects[0]["name"], "Another Project");
  const Json& retail = projects[1];
  EXPECT_EQ(retail["id"], retail_id_);
  EXPECT_EQ(retail["name"], "Retail Analytics");
  EXPECT_EQ(retail["description"], "Sales and inventory");
  EXPECT_EQ(retail["status"], 0);
  EXPECT_EQ(retail["alias"], "");
  EXPECT_EQ(retail["acg"], 255);
  EXPECT_TRUE(std::regex_match(retail["dateCreated"].get<std::string>(), kTimestamp));
  EXPECT_TRUE(std::regex_match(retail["dateModified"].get<std::string>(), kTimestamp));
  EXPECT_EQ(retail["owner"]["id"], "54F3D26011D2896560009A8E67019608");
  EXPECT_EQ(retail["owner"]["name"], "Administrator");
}

TEST_P(ProjectApi, GetsAProjectByIdLowerCaseIdOrEncodedName) {
  for (std::string target : {"/api/projects/" + retail_id_, "/api/projects/" + ToLower(retail_id_),
                             std::string("/api/projects/Retail%20Analytics"),
                             std::string("/api/projects/Retail%20Analytics/")}) {
    auto response = client().Get(target, AuthHeaders(token_));
    ASSERT_EQ(response.status, 200) << target;
    EXPECT_EQ(BodyOf(response)["id"], retail_id_) << target;
  }
  auto missing = client().Get("/api/projects/No%20Such%20Project", AuthHeaders(token_));
  ExpectError(missing, 404, "ERR004");
  EXPECT_NE(BodyOf(missing)["message"], "HTTP 404 Not Found");
}

TEST_P(ProjectApi, FieldsKeepsOnlyTheListedRootFieldsInResponseOrder) {
  auto one =
      client().Get("/api/projects/Retail%20Analytics?fields=owner,id,name", AuthHeaders(token_));
  ASSERT_EQ(one.status, 200);
  Json body = BodyOf(one);
  std::vector<std::string> keys;
  for (auto& [key, value] : body.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"id", "name", "owner"}));
  EXPECT_EQ(body["owner"]["name"], "Administrator");  // nested values stay whole

  Json list = BodyOf(client().Get("/api/projects?fields=name&fields=status", AuthHeaders(token_)));
  ASSERT_EQ(list.size(), 2u);
  for (const auto& item : list) EXPECT_EQ(item.size(), 2u);

  Json none =
      BodyOf(client().Get("/api/projects/" + retail_id_ + "?fields=nothing", AuthHeaders(token_)));
  EXPECT_EQ(none, Json::object());
  Json encoded = BodyOf(
      client().Get("/api/projects/" + retail_id_ + "?fields=id%2Cname", AuthHeaders(token_)));
  EXPECT_EQ(encoded.size(), 2u);
}

TEST_P(ProjectApi, InvalidFieldsIs400WithTheReferenceMessageAndErrorsAreNeverTrimmed) {
  auto invalid = client().Get("/api/projects?fields=id,na%20me", AuthHeaders(token_));
  ExpectError(invalid, 400, "ERR006");
  EXPECT_EQ(BodyOf(invalid)["message"],
            "Invalid \"fields\" param. It should be either empty, or a comma-separated list of "
            "field names without whitespace. A field name can only contain alphanumeric character "
            "and must start with a letter.");
  ExpectError(client().Get("/api/projects?fields=1abc", AuthHeaders(token_)), 400, "ERR006");
  auto error = client().Get("/api/projects/Nope?fields=id", AuthHeaders(token_));
  ExpectError(error, 404, "ERR004");
}

TEST_P(ProjectApi, MonitorsListingWrapsProjectsAndCountsThem) {
  auto response = client().Get("/api/monitors/projects?offset=0&limit=1", AuthHeaders(token_));
  ASSERT_EQ(response.status, 200);
  EXPECT_EQ(response.headers.Get("X-MSTR-Total-Count"), "2");
  Json body = BodyOf(response);
  ASSERT_EQ(body["projects"].size(), 1u);
  EXPECT_EQ(body["projects"][0]["type"], 32);
  EXPECT_EQ(body["projects"][0]["subtype"], 8192);
}

TEST_P(ProjectApi, EveryProjectIsLoadedOnTheNodeThatServesIt) {
  Json listed =
      BodyOf(client().Get("/api/monitors/projects?offset=0&limit=10", AuthHeaders(token_)));
  ASSERT_EQ(listed["projects"].size(), 2u);
  for (const auto& project : listed["projects"]) {
    ASSERT_EQ(project["nodes"].size(), 1u) << project;
    EXPECT_EQ(project["nodes"][0]["projects"][0]["id"], project["id"]);
    EXPECT_EQ(project["nodes"][0]["projects"][0]["status"], "loaded");
  }
  const std::string node = listed["projects"][0]["nodes"][0]["name"];
  EXPECT_FALSE(node.empty());

  Json nodes = BodyOf(
      client().Get("/api/monitors/iServer/nodes?projects.id=" + retail_id_, AuthHeaders(token_)));
  ASSERT_EQ(nodes["nodes"].size(), 1u);
  EXPECT_EQ(nodes["nodes"][0]["name"], node);
  EXPECT_EQ(nodes["nodes"][0]["status"], "running");
  ASSERT_EQ(nodes["nodes"][0]["projects"].size(), 1u);
  EXPECT_EQ(nodes["nodes"][0]["projects"][0]["name"], "Retail Analytics");
  Json all = BodyOf(client().Get("/api/monitors/iServer/nodes", AuthHeaders(token_)));
  EXPECT_EQ(all["nodes"][0]["projects"].size(), 2u);
  Json other =
      BodyOf(client().Get("/api/monitors/iServer/nodes?name=elsewhere:1", AuthHeaders(token_)));
  EXPECT_TRUE(other["nodes"].empty());
}

TEST_P(ProjectApi, ProjectAsObjectAnswersTheConnectCall) {
  auto response = client().Get("/api/objects/" + retail_id_ + "?type=32&comments=True",
                               AuthHeaders(token_, retail_id_));
  ASSERT_EQ(response.status, 200);
  Json body = BodyOf(response);
  EXPECT_EQ(body["type"], 32);
  EXPECT_EQ(body["subtype"], 8192);
  EXPECT_EQ(body["name"], "Retail Analytics");
  EXPECT_TRUE(std::regex_match(body["version"].get<std::string>(), kId));
  EXPECT_TRUE(body["comments"].is_array());
}

TEST_P(ProjectApi, ProjectHeaderMissingUnknownOrMalformedIs400) {
  ExpectError(client().Get("/api/folders/preDefined/7", AuthHeaders(token_)), 400, "ERR005");
  ExpectError(client().Get("/api/folders/preDefined/7",
                           AuthHeaders(token_, "0123456789ABCDEF0123456789ABCDEF")),
              400, "ERR006");
  ExpectError(client().Get("/api/folders/preDefined/7", AuthHeaders(token_, "not-an-id")), 400,
              "ERR006");
  http::Headers svc = AuthHeaders(token_);
  svc.Set("X-SVC-ProjectID", ToLower(retail_id_));
  EXPECT_EQ(client().Get("/api/folders/preDefined/7", svc).status, 200);
}

TEST_P(ProjectApi, AUserWithoutAccessDoesNotSeeTheProject) {
  std::string user_id = CreateUser("grace", "pw");
  std::string grace = client().Login("grace", "pw");
  ASSERT_EQ(BodyOf(client().Get("/api/projects", AuthHeaders(grace))).size(), 2u);
  Json change = {
      {"acl",
       {{{"op", "REMOVE"}, {"trustee", "C82C6B1011D2894CC0009D9F29718E4F"}, {"rights", 255}}}}};
  http::Headers admin = AuthHeaders(token_, retail_id_);
  admin.Set("Content-Type", "application/json");
  auto changed =
      client().Send("PUT", "/api/objects/" + retail_id_ + "/acl?type=32", admin, DumpJson(change));
  ASSERT_EQ(changed.status, 200) << changed.body;
  // Sessions are cached briefly; a new login sees the change at once.
  grace = client().Login("grace", "pw");
  Json visible = BodyOf(client().Get("/api/projects", AuthHeaders(grace)));
  ASSERT_EQ(visible.size(), 1u);
  EXPECT_EQ(visible[0]["name"], "Another Project");
  ExpectError(client().Get("/api/projects/" + retail_id_, AuthHeaders(grace)), 403, "ERR014");
  ExpectError(client().Get("/api/folders/preDefined/7", AuthHeaders(grace, retail_id_)), 403,
              "ERR014");
}

INSTANTIATE_TEST_SUITE_P(Backends, ProjectApi, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
