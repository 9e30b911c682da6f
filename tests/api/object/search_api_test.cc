// Quick search and the two-step metadata search.
#include <set>

#include "api/api_fixture.h"

namespace tessera::testing {
namespace {

class SearchApi : public ApiTest {
 protected:
  void SetUp() override {
    ApiTest::SetUp();
    if (IsSkipped()) return;
    project_ = CreateProject("Tutorial");
    token_ = client().Login();
    archive_ = Folder("Sales Archive", kReportsFolderId);
    Folder("Sales 2024", kReportsFolderId);
    Folder("Inventory", archive_);
    Folder("Wholesales", kPublicObjectsFolderId);
  }

  std::string Folder(const std::string& name, const std::string& parent) {
    auto response = client().PostJson("/api/folders", {{"name", name}, {"parent", parent}},
                                      AuthHeaders(token_, project_));
    EXPECT_EQ(response.status, 201) << response.body;
    return BodyOf(response).value("id", "");
  }

  std::vector<std::string> QuickNames(const std::string& query) {
    auto response = client().Get("/api/searches/results?" + query, AuthHeaders(token_, project_));
    EXPECT_EQ(response.status, 200) << response.body;
    Json body = BodyOf(response);
    std::vector<std::string> names;
    for (const auto& item : body["result"]) names.push_back(item["name"]);
    return names;
  }

  std::string project_, token_, archive_;
};

using Names = std::vector<std::string>;

TEST_P(SearchApi, QuickSearchMatchesNamesCaseInsensitivelyByPattern) {
  EXPECT_EQ(QuickNames("name=SALES&type=8"), (Names{"Sales 2024", "Sales Archive", "Wholesales"}));
  EXPECT_EQ(QuickNames("name=sales&pattern=1&type=8"), (Names{"Sales 2024", "Sales Archive"}));
  EXPECT_EQ(QuickNames("name=sales%202024&pattern=2"), (Names{"Sales 2024"}));
  EXPECT_EQ(QuickNames("name=archive&pattern=5"), (Names{"Sales Archive"}));
  EXPECT_EQ(QuickNames("name=inventory%20wholesale&pattern=0"), (Names{"Inventory", "Wholesales"}));
}

TEST_P(SearchApi, QuickSearchFiltersByTypeAndSubtypeAndRoot) {
  EXPECT_EQ(QuickNames("name=sales&type=3").size(), 0u);
  EXPECT_EQ(QuickNames("name=sales&type=2048").size(), 3u);
  EXPECT_EQ(QuickNames("name=sales&type=3&type=8").size(), 3u);
  EXPECT_EQ(QuickNames("name=sales&type=3,8").size(), 3u);
  EXPECT_EQ(QuickNames(std::string("type=8&root=") + kReportsFolderId),
            (Names{"Inventory", "Sales 2024", "Sales Archive"}));
}

TEST_P(SearchApi, QuickSearchPagesWithTotalAndAncestorsOnRequest) {
  auto response =
      client().Get("/api/searches/results?name=sales&offset=1&limit=1&getAncestors=True",
                   AuthHeaders(token_, project_));
  ASSERT_EQ(response.status, 200);
  EXPECT_EQ(response.headers.Get("X-MSTR-Total-Count"), "3");
  Json body = BodyOf(response);
  EXPECT_EQ(body["totalItems"], 3);
  ASSERT_EQ(body["result"].size(), 1u);
  EXPECT_EQ(body["result"][0]["name"], "Sales Archive");
  EXPECT_EQ(body["result"][0]["ancestors"].size(), 3u);
  Json without = BodyOf(client().Get("/api/searches/results?name=sales&getAncestors=False",
                                     AuthHeaders(token_, project_)));
  EXPECT_FALSE(without["result"][0].contains("ancestors"));
  Json trimmed = BodyOf(client().Get("/api/searches/results?name=sales&fields=result",
                                     AuthHeaders(token_, project_)));
  EXPECT_FALSE(trimmed.contains("totalItems"));
  EXPECT_EQ(trimmed["result"].size(), 3u);
}

TEST_P(SearchApi, QuickSearchRejectsBadParameters) {
  auto headers = AuthHeaders(token_, project_);
  ExpectError(client().Get("/api/searches/results?pattern=9", headers), 400, "ERR006");
  ExpectError(client().Get("/api/searches/results?pattern=x", headers), 400, "ERR006");
  ExpectError(client().Get("/api/searches/results?type=abc", headers), 400, "ERR006");
  ExpectError(client().Get("/api/searches/results?getAncestors=maybe", headers), 400, "ERR006");
  ExpectError(client().Get("/api/searches/results?certifiedStatus=SOME", headers), 400, "ERR006");
  ExpectError(client().Get("/api/searches/results?root=0123456789ABCDEF0123456789ABCDEF", headers),
              400, "ERR006");
}

TEST_P(SearchApi, MetadataSearchV2StoresHitsForTheSession) {
  auto headers = AuthHeaders(token_, project_);
  headers.Set("Content-Type", "application/json");
  auto started = client().Send(
      "POST",
      "/api/v2/metadataSearches/results?name=sales&pattern=4&domain=2&type=8&usesRecursive=False"
      "&usedByRecursive=False&usesOneOf=False&usedByOneOf=False",
      headers, "{}");
  ASSERT_EQ(started.status, 200) << started.body;
  Json search = BodyOf(started);
  EXPECT_EQ(search["totalItems"], 3);
  std::string id = search["id"];

  auto fetched =
      client().Get("/api/metadataSearches/results?searchId=" + id, AuthHeaders(token_, project_));
  ASSERT_EQ(fetched.status, 200);
  EXPECT_EQ(fetched.headers.Get("X-MSTR-Total-Count"), "3");
  Json hits = BodyOf(fetched);
  ASSERT_TRUE(hits.is_array());
  ASSERT_EQ(hits.size(), 3u);
  EXPECT_EQ(hits[0]["subtype"], 2048);
  EXPECT_TRUE(hits[0].contains("ancestors"));

  auto page = client().Get("/api/metadataSearches/results?searchId=" + id + "&offset=2&limit=5",
                           AuthHeaders(token_, project_));
  EXPECT_EQ(BodyOf(page).size(), 1u);

  std::string other = client().Login();
  ExpectError(
      client().Get("/api/metadataSearches/results?searchId=" + id, AuthHeaders(other, project_)),
      404, "ERR004");
  ExpectError(
      client().Get("/api/metadataSearches/results?searchId=ABC", AuthHeaders(token_, project_)),
      404, "ERR004");
  ExpectError(client().Get("/api/metadataSearches/results", AuthHeaders(token_, project_)), 400,
              "ERR005");
}

TEST_P(SearchApi, ATreeOfResultsNestsEachHitInItsFolders) {
  auto headers = AuthHeaders(token_, project_);
  headers.Set("Content-Type", "application/json");
  auto started = client().Send(
      "POST", "/api/v2/metadataSearches/results?name=Inventory&pattern=4&domain=2&type=8", headers,
      "{}");
  ASSERT_EQ(started.status, 200) << started.body;
  std::string id = BodyOf(started)["id"];
  auto tree = client().Get("/api/metadataSearches/results/tree?searchId=" + id,
                           AuthHeaders(token_, project_));
  ASSERT_EQ(tree.status, 200) << tree.body;
  // Tutorial > Public Objects > Reports > Sales Archive > Inventory
  Json node = BodyOf(tree);
  std::vector<std::string> path;
  while (node.is_array() && node.size() == 1) {
    path.push_back(node[0]["name"]);
    if (!node[0].contains("children")) break;
    node = node[0]["children"];
  }
  EXPECT_EQ(path, (Names{"Tutorial", "Public Objects", "Reports", "Sales Archive", "Inventory"}))
      << tree.body;
  ExpectError(client().Get("/api/metadataSearches/results/tree", AuthHeaders(token_, project_)),
              400, "ERR005");
}

TEST_P(SearchApi, MetadataSearchV2BodyFiltersApply) {
  auto headers = AuthHeaders(token_, project_);
  headers.Set("Content-Type", "application/json");
  Json body = {{"excludedFolders", {archive_}}, {"includeSubfolders", true}};
  auto started = client().Send("POST", "/api/v2/metadataSearches/results?type=8&name=e&pattern=4",
                               headers, DumpJson(body));
  ASSERT_EQ(started.status, 200) << started.body;
  std::string id = BodyOf(started)["id"];
  std::set<std::string> names;
  for (const auto& hit :
       BodyOf(client().Get("/api/metadataSearches/results?searchId=" + id, headers))) {
    names.insert(hit["name"]);
  }
  EXPECT_FALSE(names.count("Inventory"));  // under the excluded folder
  EXPECT_TRUE(names.count("Sales Archive"));
  ExpectError(client().Send("POST", "/api/v2/metadataSearches/results", headers, "{bad"), 400,
              "ERR006");
  ExpectError(client().Send("POST", "/api/v2/metadataSearches/results", headers,
                            R"({"excludedFolders": "x"})"),
              400, "ERR006");
}

TEST_P(SearchApi, MetadataSearchV1NeedsNoBodyAndLogoutForgetsSearches) {
  auto started = client().Send("POST", "/api/metadataSearches/results?name=Inventory&pattern=2",
                               AuthHeaders(token_, project_));
  ASSERT_EQ(started.status, 200);
  std::string id = BodyOf(started)["id"];
  EXPECT_EQ(BodyOf(client().Get("/api/metadataSearches/results?searchId=" + id,
                                AuthHeaders(token_, project_)))
                .size(),
            1u);
  ASSERT_EQ(client().Send("POST", "/api/auth/logout", AuthHeaders(token_)).status, 204);
  std::string again = client().Login();
  ExpectError(
      client().Get("/api/metadataSearches/results?searchId=" + id, AuthHeaders(again, project_)),
      404, "ERR004");
}

TEST_P(SearchApi, ConfigurationDomainFindsUsers) {
  CreateUser("ivan", "pw");
  auto started = client().Send("POST", "/api/metadataSearches/results?name=ivan&domain=4&type=34",
                               AuthHeaders(token_));
  ASSERT_EQ(started.status, 200) << started.body;
  EXPECT_EQ(BodyOf(started)["totalItems"], 1);
}

INSTANTIATE_TEST_SUITE_P(Backends, SearchApi, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
