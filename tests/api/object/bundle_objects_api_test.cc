// Objects created by a project bundle, seen through the object, folder and search endpoints
// (issue: semantic layer item 6).
#include "api/api_fixture.h"
#include "core/ids.h"
#include "model/well_known.h"

namespace tessera::testing {
namespace {

class BundleObjectsApi : public ApiTest {
 protected:
  void SetUp() override {
    ApiTest::SetUp();
    if (IsSkipped()) return;
    project_ = ImportBundle(TESSERA_SOURCE_DIR "/demo/tutorial");
    token_ = client().Login();
  }
  std::string project_, token_;
};

TEST_P(BundleObjectsApi, AReportHasItsTypeSubtypeAncestorsOwnerAndVersion) {
  const std::string report = DeterministicObjectId("tessera:Tutorial:3:Revenue by Year");
  auto response = client().Get("/api/objects/" + report + "?type=3", AuthHeaders(token_, project_));
  ASSERT_EQ(response.status, 200) << response.body;
  Json body = BodyOf(response);
  EXPECT_EQ(body["name"], "Revenue by Year");
  EXPECT_EQ(body["subtype"], 768);
  EXPECT_EQ(body["owner"]["name"], "Administrator");
  EXPECT_EQ(body["version"].get<std::string>().size(), 32u);
  ASSERT_EQ(body["ancestors"].size(), 3u);
  EXPECT_EQ(body["ancestors"][0]["name"], "Tutorial");
  EXPECT_EQ(body["ancestors"][2]["id"], kReportsFolderId);
}

TEST_P(BundleObjectsApi, FoldersListTheBundlesSchemaObjects) {
  auto attributes = client().Get("/api/folders/preDefined/26", AuthHeaders(token_, project_));
  ASSERT_EQ(attributes.status, 200);
  EXPECT_EQ(attributes.headers.Get("X-MSTR-Total-Count"), "14");
  for (const auto& item : BodyOf(attributes)) EXPECT_EQ(item["type"], 12);
}

TEST_P(BundleObjectsApi, SearchTellsCubesReportsAndDashboardsApart) {
  auto cubes =
      BodyOf(client().Get("/api/searches/results?type=776", AuthHeaders(token_, project_)));
  EXPECT_EQ(cubes["totalItems"], 3);
  auto reports =
      BodyOf(client().Get("/api/searches/results?type=768", AuthHeaders(token_, project_)));
  EXPECT_GE(reports["totalItems"].get<int>(), 5);
  auto dashboards =
      BodyOf(client().Get("/api/searches/results?type=14081", AuthHeaders(token_, project_)));
  ASSERT_EQ(dashboards["totalItems"], 2);
  for (const auto& item : dashboards["result"]) {
    EXPECT_EQ(item["viewMedia"].get<int64_t>() & 0xE8000000, 0x60000000);
  }
  auto uses_revenue = client().Send("POST",
                                    "/api/metadataSearches/results?type=4&usesObject=" +
                                        DeterministicObjectId("tessera:Tutorial:4:Revenue") + ";4",
                                    AuthHeaders(token_, project_));
  ASSERT_EQ(uses_revenue.status, 200) << uses_revenue.body;
  EXPECT_GE(BodyOf(uses_revenue)["totalItems"].get<int>(), 2);  // Profit, Avg Unit Price, ...
}

INSTANTIATE_TEST_SUITE_P(Backends, BundleObjectsApi, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
