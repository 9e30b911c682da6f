// Dashboards over HTTP: definitions, both instance flows of the seed, visualization results checked
// against independent SQL on the flattened warehouse, and the instance calls the Python client
// makes.
#include <functional>

#include "api/dashboard/dashboard_api.h"

namespace tessera::testing {
namespace {

class DashboardInstanceApi : public DashboardApi {};

// The default state of Sales Overview: the chapter filter W11 keeps the years from 2023.
constexpr const char* kRecent = "year_id >= 2023";

void ExpectNoNull(const Json& node, const std::string& path) {
  EXPECT_FALSE(node.is_null()) << path << " is null";
  if (node.is_object()) {
    for (const auto& [key, value] : node.items()) ExpectNoNull(value, path + "." + key);
  } else if (node.is_array()) {
    for (size_t i = 0; i < node.size(); ++i)
      ExpectNoNull(node[i], path + "[" + std::to_string(i) + "]");
  }
}

const Json* FindKey(const Json& list, const std::string& key) {
  for (const auto& item : list) {
    if (item.value("key", "") == key) return &item;
  }
  return nullptr;
}

TEST_P(DashboardInstanceApi, TheSavedDefinitionHasEveryMemberTheClientNeeds) {
  const Json definition = GetJson("/api/v2/dossiers/" + overview_ + "/definition/");
  ExpectNoNull(definition, "definition");
  EXPECT_EQ(definition["id"], overview_);
  EXPECT_EQ(definition["name"], "Sales Overview");
  EXPECT_EQ(definition["hasPrompt"], false);
  EXPECT_FALSE(definition.contains("subtype"));
  EXPECT_EQ(definition["currentChapter"], "K1");
  ASSERT_EQ(definition["chapters"].size(), 1u);
  const Json& chapter = definition["chapters"][0];
  ASSERT_EQ(chapter["pages"].size(), 2u);
  const Json& page = chapter["pages"][0];
  EXPECT_EQ(page["visualizations"].size(), 6u);
  EXPECT_EQ(page["selectors"], page["inCanvasSelectors"]);
  EXPECT_TRUE(chapter["pages"][1]["selectors"].is_array());

  // Chapter filters carry the legacy members too.
  const Json* region = FindKey(chapter["filters"], "W10");
  ASSERT_NE(region, nullptr);
  EXPECT_EQ((*region)["selectorType"], "attribute_element_list");
  EXPECT_EQ((*region)["source"]["id"], AttributeId("Region"));
  EXPECT_EQ((*region)["source"]["type"], 12);
  EXPECT_EQ((*region)["currentSelection"]["selectionStatus"], "unfiltered");
  EXPECT_EQ((*region)["unset"], true);
  EXPECT_EQ((*region)["include"], true);
  EXPECT_EQ((*region)["multiSelected"], true);
  EXPECT_EQ((*region)["selections"], Json::array());
  const Json* years = FindKey(chapter["filters"], "W11");
  ASSERT_NE(years, nullptr);
  EXPECT_EQ((*years)["unset"], false);
  EXPECT_EQ((*years)["expression"], (*years)["currentSelection"]["expression"]);
  EXPECT_EQ((*years)["summary"], "Recent Years >= 2023");

  const Json* measure = FindKey(page["selectors"], "W13");
  ASSERT_NE(measure, nullptr);
  const std::string revenue = MetricId("Revenue");
  EXPECT_EQ((*measure)["currentSelection"]["objectItems"][0]["id"], "i" + revenue + ";" + revenue);
  EXPECT_EQ((*measure)["availableObjectItems"].size(), 3u);
  EXPECT_EQ((*measure)["targets"], Json::parse(R"([{"key":"W4"}])"));
  const Json* channel = FindKey(page["selectors"], "W14");
  ASSERT_NE(channel, nullptr);
  EXPECT_EQ((*channel)["currentSelection"]["allSelected"], true);

  const Json* by_year = FindKey(page["visualizations"], "W2");
  ASSERT_NE(by_year, nullptr);
  EXPECT_EQ((*by_year)["selector"]["visualizationKey"], "W2");
  EXPECT_EQ((*by_year)["selector"]["selectorType"], "visualization_as_filter");
  EXPECT_EQ((*by_year)["filteredTargetVisualizations"],
            Json::parse(R"([{"key":"W3"},{"key":"W6"}])"));

  ASSERT_EQ(definition["datasets"].size(), 2u);
  EXPECT_EQ(definition["datasets"][0]["name"], "Sales Cube");
  EXPECT_EQ(definition["datasets"][1]["name"], "Item Sales Cube");
}

TEST_P(DashboardInstanceApi, ParameterSelectorsAndDynamicDefaults) {
  const Json definition = GetJson("/api/v2/dossiers/" + regional_ + "/definition");
  const Json& filters = definition["chapters"][0]["filters"];
  for (const char* key : {"W10", "W11", "W12"}) {
    const Json* filter = FindKey(filters, key);
    ASSERT_NE(filter, nullptr) << key;
    EXPECT_EQ((*filter)["isParameterBased"], true) << key;
    EXPECT_EQ((*filter)["parameterId"].get<std::string>().size(), 32u) << key;
  }
  // The same parameter id on every read.
  const Json again = GetJson("/api/v2/dossiers/" + regional_ + "/definition");
  EXPECT_EQ(again["chapters"][0]["filters"][0]["parameterId"], filters[0]["parameterId"]);

  // W10 selects the first 8 regions dynamically.
  const Json& selection = FindKey(filters, "W10")->at("currentSelection");
  EXPECT_EQ(selection["dynamicSelectionApplied"], true);
  Rows regions = Query("SELECT DISTINCT region_id, region_name FROM flat ORDER BY region_id");
  const size_t count = std::min<size_t>(8, regions.size());
  ASSERT_EQ(selection["elements"].size(), count);
  for (size_t i = 0; i < count; ++i) {
    EXPECT_EQ(selection["elements"][i]["id"], ElementId("Region", IntegerText(regions[i][0])));
    EXPECT_EQ(selection["elements"][i]["name"], regions[i][1]);
  }
  EXPECT_EQ(FindKey(filters, "W12")->at("currentSelection")["values"], Json::parse(R"(["0.25"])"));
}

TEST_P(DashboardInstanceApi, LegacyDefinitionListsUnits) {
  const Json definition = GetJson("/api/dossiers/" + overview_ + "/definition");
  const Json& visualization = definition["chapters"][0]["pages"][0]["visualizations"][4];
  EXPECT_EQ(visualization["key"], "W5");
  EXPECT_EQ(visualization["units"]["attributes"][0]["id"], AttributeId("Region"));
  EXPECT_EQ(visualization["units"]["attributes"][0]["name"], "Region");
  EXPECT_EQ(visualization["units"]["metrics"].size(), 3u);
  EXPECT_EQ(definition["chapters"][0]["filters"][1]["source"]["type"], 12);
  EXPECT_EQ(definition["chapters"][0]["filtersPanelStack"]["key"], "K1-fps");
}

TEST_P(DashboardInstanceApi, DefinitionErrors) {
  auto no_project =
      client().Get("/api/v2/dossiers/" + overview_ + "/definition", AuthHeaders(token()));
  ExpectError(no_project, 400, "ERR005");
  ExpectError(Get("/api/v2/dossiers/0123456789ABCDEF0123456789ABCDEF/definition"), 404, "ERR004");
  ExpectError(Get("/api/v2/dossiers/nothex/definition"), 404, "ERR004");
  // A cube is not a dashboard.
  ExpectError(Get("/api/v2/dossiers/" + ReportId("Sales Cube") + "/definition"), 404, "ERR004");
}

TEST_P(DashboardInstanceApi, EveryVisualizationOfTheDefaultStateMatchesTheWarehouse) {
  const std::string mid = CreateInstance(overview_);
  const std::string where = std::string(" FROM flat WHERE ") + kRecent;
  ExpectSameRows(VizRows(overview_, mid, "W1"),
                 Expected("SELECT sum(revenue), sum(revenue) - sum(cost)" + where, 0, {}));
  ExpectSameRows(
      VizRows(overview_, mid, "W2"),
      Expected("SELECT year_id, sum(revenue)" + where + " GROUP BY year_id ORDER BY 1", 1, {0}));
  ExpectSameRows(VizRows(overview_, mid, "W3"),
                 Expected("SELECT month_id, month_name, sum(revenue), sum(cost)" + where +
                              " GROUP BY month_id, month_name ORDER BY 1",
                          2, {}));
  ExpectSameRows(VizRows(overview_, mid, "W4"),
                 Expected("SELECT category_id, category_name, sum(revenue)" + where +
                              " GROUP BY category_id, category_name ORDER BY 1",
                          2, {0}));
  ExpectSameRows(VizRows(overview_, mid, "W5"),
                 Expected("SELECT region_id, region_name, country_id, country_name, sum(revenue), "
                          "sum(revenue) - sum(cost), count(DISTINCT customer_id)" +
                              where + " GROUP BY 1, 2, 3, 4 ORDER BY 1, 3",
                          4, {0, 2}));
  ExpectSameRows(VizRows(overview_, mid, "W6"),
                 Expected("SELECT quarter_id, channel_id, channel_name, sum(units)" + where +
                              " GROUP BY 1, 2, 3 ORDER BY 1, 2",
                          3, {1}));
  // The Item Sales Cube has no Year: the chapter filter leaves its visualizations untouched.
  ExpectSameRows(VizRows(overview_, mid, "W8"),
                 Expected("SELECT subcategory_id, subcategory_name, sum(revenue), sum(cost) FROM "
                          "flat GROUP BY 1, 2 ORDER BY 1",
                          2, {0}));
}

TEST_P(DashboardInstanceApi, VisualizationBodiesInBothFormats) {
  const std::string mid = CreateInstance(overview_);
  const std::string path =
      "/dossiers/" + overview_ + "/instances/" + mid + "/chapters/K1/visualizations/W4";
  const Json v2 = BodyOf(client().Get("/api/v2" + path, AuthHeaders(token())));
  EXPECT_EQ(v2["key"], "W4");
  EXPECT_EQ(v2["name"], "Revenue by Category");
  EXPECT_EQ(v2["visualizationType"], "pie_chart");
  EXPECT_FALSE(v2.contains("instanceId"));
  EXPECT_TRUE(v2["data"]["metricValues"].contains("formatted"));
  const Json values_only = BodyOf(client().Get(
      "/api/v2" + path + "?fields=-data.metricValues.formatted,name", AuthHeaders(token())));
  EXPECT_FALSE(values_only["data"]["metricValues"].contains("formatted"));
  EXPECT_TRUE(values_only.contains("definition"));  // general selection does not apply

  const Json v1 = BodyOf(client().Get("/api" + path, AuthHeaders(token())));
  EXPECT_EQ(v1["key"], "W4");
  EXPECT_EQ(v1["result"]["definition"]["elementFilterSummary"], "");
  EXPECT_EQ(v1["result"]["definition"]["viewFilterSummary"], "Recent Years");
  EXPECT_EQ(v1["result"]["data"]["root"]["children"].size(),
            Query(std::string("SELECT DISTINCT category_id FROM flat WHERE ") + kRecent).size());

  // Paging as report instances; a bad limit is refused.
  const Json page =
      BodyOf(client().Get("/api/v2" + path + "?offset=1&limit=2", AuthHeaders(token())));
  EXPECT_EQ(page["data"]["paging"]["offset"], 1);
  EXPECT_EQ(page["data"]["paging"]["current"], 2);
  ExpectError(client().Get("/api/v2" + path + "?limit=0", AuthHeaders(token())), 400, "ERR006");
  // Unknown chapter or visualization, or a visualization under another chapter key.
  const std::string base = "/api/v2/dossiers/" + overview_ + "/instances/" + mid + "/chapters/";
  ExpectError(client().Get(base + "K9/visualizations/W4", AuthHeaders(token())), 404, "ERR004",
              "'K9' is not a chapter key of this dashboard: visualization 'W4' is in chapter 'K1'");
  ExpectError(client().Get(base + "K1/visualizations/W99", AuthHeaders(token())), 404, "ERR004",
              "'W99' is not a visualization key of this dashboard");
  EXPECT_EQ(client().Get(base + "K1/visualizations/W7", AuthHeaders(token())).status, 200);
}

TEST_P(DashboardInstanceApi, APageKeyWhereTheChapterKeyBelongsIsNamedAsSuch) {
  const std::string mid = CreateInstance(overview_);
  const std::string message =
      "'K2' is a page key (of chapter 'K1'); the path takes a chapter key: visualization 'W4' is "
      "in chapter 'K1'";
  for (const std::string version : {"/api/v2", "/api"}) {
    ExpectError(client().Get(version + "/dossiers/" + overview_ + "/instances/" + mid +
                                 "/chapters/K2/visualizations/W4",
                             AuthHeaders(token())),
                404, "ERR004", message);
  }
}

TEST_P(DashboardInstanceApi, Flow1OneCallExecutesWithTheFilters) {
  const std::string region = AttributeId("Region");
  Json body = {{"persistViewState", true},
               {"resolveOnly", true},
               {"ignoreMissingFilter", true},
               {"enableParallelRendering", false},
               {"applyFilterResolveOnly", false},
               {"parallelRenderingAfterManipulation", true},
               {"filters",
                {{{"key", "W10"},
                  {"name", "Region"},
                  {"selections", {{{"id", ElementId("Region", "2")}, {"name", "x"}}}}},
                 {{"key", "W404"}, {"selections", Json::array()}}}}};
  auto response = client().PostJson(Instances(overview_), body, Headers());
  ASSERT_EQ(response.status, 201) << response.body;
  const std::string mid = BodyOf(response)["mid"];
  EXPECT_EQ(response.headers.Get("Location").value_or(""),
            "/api/dossiers/" + overview_ + "/instances/" + mid);
  const Json status = Status(overview_, mid);
  EXPECT_EQ(status["status"], 1);
  EXPECT_EQ(status["resolveOnly"], false);
  EXPECT_EQ(status["parallelRendering"], true);
  ExpectSameRows(VizRows(overview_, mid, "W4"),
                 Expected(std::string("SELECT category_id, category_name, sum(revenue) FROM flat "
                                      "WHERE region_id = 2 AND ") +
                              kRecent + " GROUP BY 1, 2 ORDER BY 1",
                          2, {0}));
}

TEST_P(DashboardInstanceApi, Flow2ResolveThenPutFiltersWithExecutionModeData) {
  Json body = {{"persistViewState", true},
               {"resolveOnly", true},
               {"enableParallelRendering", false},
               {"applyFilterResolveOnly", true},
               {"parallelRenderingAfterManipulation", false},
               {"filters",
                {{{"key", "W10"},
                  {"currentSelection",
                   {{"selectionStatus", "included"},
                    {"elements", {{{"id", ElementId("Region", "1")}}}}}}}}}};
  const std::string mid = CreateInstance(overview_, body);
  EXPECT_EQ(Status(overview_, mid)["resolveOnly"], true);
  const Json pending = InstanceDefinition(overview_, mid);
  EXPECT_EQ(pending["chapters"][0]["filters"][0]["currentSelection"]["elements"][0]["id"],
            ElementId("Region", "1"));

  // Without executionMode the instance stays resolved.
  Json final_filters = {
      {{"key", "W10"},
       {"currentSelection",
        {{"selectionStatus", "included"},
         {"elements", {{{"id", ElementId("Region", "1")}}, {{"id", ElementId("Region", "3")}}}}}}}};
  ASSERT_EQ(PutFilters(overview_, mid, final_filters).status, 204);
  EXPECT_EQ(Status(overview_, mid)["resolveOnly"], true);
  auto put = PutFilters(overview_, mid, final_filters,
                        "?ignoreMissingFilter=false&executionMode=DATA&"
                        "parallelRenderingAfterManipulation=true");
  ASSERT_EQ(put.status, 204) << put.body;
  EXPECT_TRUE(put.body.empty());
  const Json status = Status(overview_, mid);
  EXPECT_EQ(status["resolveOnly"], false);
  EXPECT_EQ(status["parallelRendering"], true);
  ExpectSameRows(VizRows(overview_, mid, "W5"),
                 Expected(std::string("SELECT region_id, region_name, country_id, country_name, "
                                      "sum(revenue), sum(revenue) - sum(cost), "
                                      "count(DISTINCT customer_id) FROM flat WHERE region_id IN "
                                      "(1, 3) AND ") +
                              kRecent + " GROUP BY 1, 2, 3, 4 ORDER BY 1, 3",
                          4, {0, 2}));
}

TEST_P(DashboardInstanceApi, AFirstDataReadExecutesAResolvedInstance) {
  const std::string mid = CreateInstance(overview_, {{"resolveOnly", true}});
  EXPECT_EQ(Status(overview_, mid)["resolveOnly"], true);
  EXPECT_EQ(VizRows(overview_, mid, "W2").size(),
            Query(std::string("SELECT DISTINCT year_id FROM flat WHERE ") + kRecent).size());
  const Json status = Status(overview_, mid);
  EXPECT_EQ(status["resolveOnly"], false);
  EXPECT_EQ(status["parallelRendering"], false);
}

TEST_P(DashboardInstanceApi, TargetPageKeyAndBookmarks) {
  Json linked = {{"linkingInfo", {{"targetPageKey", "K3"}}}};
  const std::string mid = CreateInstance(overview_, linked);
  EXPECT_EQ(InstanceDefinition(overview_, mid)["currentChapter"], "K1");
  ExpectError(client().PostJson(Instances(overview_),
                                {{"linkingInfo", {{"targetPageKey", "K404"}}}}, Headers()),
              400, "ERR006");
  ExpectError(client().PostJson(Instances(overview_),
                                {{"bookmarkInfo", {{"id", "0123456789ABCDEF0123456789ABCDEF"}}}},
                                Headers()),
              404, "ERR004");
  ExpectError(client().Send("POST", Instances(overview_), Headers(), "[1]"), 400, "ERR006");
  ExpectError(client().PostJson(Instances(overview_), Json::object(), AuthHeaders(token())), 400,
              "ERR005");
}

TEST_P(DashboardInstanceApi, InMemoryDashboardHasOneGridPerObject) {
  const std::string report = ReportId("Revenue by Year");
  Json body = {{"objects", {{{"type", 3}, {"id", report}}}}};
  auto response = client().PostJson("/api/dossiers/instances", body, Headers());
  ASSERT_EQ(response.status, 201) << response.body;
  const Json created = BodyOf(response);
  EXPECT_EQ(created["id"], "00000000000000000000000000000000");
  const std::string zeros = created["id"];
  const std::string mid = created["mid"];
  auto viz = GetViz(zeros, mid, "W1");
  ASSERT_EQ(viz.status, 200) << viz.body;
  const Json grid = BodyOf(viz);
  EXPECT_EQ(grid["name"], "Revenue by Year");
  EXPECT_EQ(grid["data"]["paging"]["total"], Query("SELECT DISTINCT year_id FROM flat").size());

  ExpectError(
      client().PostJson("/api/dossiers/instances",
                        {{"objects", {{{"type", 3}, {"id", "0123456789ABCDEF0123456789ABCDEF"}}}}},
                        Headers()),
      404, "ERR004");
  ExpectError(
      client().PostJson("/api/dossiers/instances",
                        {{"objects", {{{"type", 4}, {"id", MetricId("Revenue")}}}}}, Headers()),
      400, "ERR006");
  ExpectError(client().PostJson("/api/dossiers/instances", {{"objects", Json::array()}}, Headers()),
              400, "ERR006");
}

TEST_P(DashboardInstanceApi, InstancesBelongToTheirSessionAndDashboard) {
  const std::string mid = CreateInstance(overview_);
  const std::string other = client().Login();
  const std::string path = Instances(overview_) + "/" + mid;
  ExpectError(client().Get(path + "/status", AuthHeaders(other)), 404, "ERR004");
  ExpectError(client().Get("/api/v2/dossiers/" + overview_ + "/instances/" + mid +
                               "/chapters/K1/visualizations/W1",
                           AuthHeaders(other)),
              404, "ERR004");
  ExpectError(client().Send("PUT", path + "/filters", AuthHeaders(other), "[]"), 404, "ERR004");
  ExpectError(client().Get(Instances(regional_) + "/" + mid + "/status", AuthHeaders(token())), 404,
              "ERR004");
  // Instance calls work without the project header.
  EXPECT_EQ(client().Get(path + "/status", AuthHeaders(token())).status, 200);
  const Json summary = BodyOf(client().Get(path, AuthHeaders(token())));
  EXPECT_EQ(summary["mid"], mid);
  EXPECT_EQ(summary["id"], overview_);

  // Refresh keeps the selections and clears the flag; delete ends the instance.
  EXPECT_EQ(Status(overview_, mid)["parallelRendering"], true);
  ASSERT_EQ(client()
                .Send("PUT", "/api/documents/" + overview_ + "/instances/" + mid + "/refresh",
                      AuthHeaders(token()))
                .status,
            204);
  EXPECT_EQ(Status(overview_, mid)["parallelRendering"], false);
  EXPECT_EQ(VizRows(overview_, mid, "W2").size(),
            Query(std::string("SELECT DISTINCT year_id FROM flat WHERE ") + kRecent).size());
  ASSERT_EQ(
      client()
          .Send("DELETE", "/api/documents/" + overview_ + "/instances/" + mid, AuthHeaders(token()))
          .status,
      204);
  ExpectError(client().Get(path + "/status", AuthHeaders(token())), 404, "ERR004");
}

// The calls of the Python client's Dashboard object, in its order.
TEST_P(DashboardInstanceApi, ThePythonClientsDashboardCalls) {
  const Json object = GetJson("/api/objects/" + overview_ + "?type=55&comments=True");
  EXPECT_EQ(object["name"], "Sales Overview");
  const Json definition = GetJson("/api/v2/dossiers/" + overview_ + "/definition/");
  EXPECT_EQ(definition["currentChapter"], "K1");

  auto created = client().PostJson("/api/documents/" + overview_ + "/instances",
                                   {{"resolveOnly", true}, {"persistViewState", true}}, Headers());
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string mid = BodyOf(created)["mid"];

  const Json library = GetJson("/api/library/" + overview_);
  EXPECT_EQ(library,
            Json({{"id", overview_}, {"name", "Sales Overview"}, {"recipients", Json::array()}}));

  auto status = client().Get("/api/documents/" + overview_ + "/instances/" + mid + "/status",
                             AuthHeaders(token()));
  ASSERT_EQ(status.status, 200);
  EXPECT_EQ(BodyOf(status)["status"], 1);
  EXPECT_EQ(GetJson("/api/documents/" + overview_ + "/prompts"), Json::array());
  EXPECT_EQ(GetJson("/api/documents/" + overview_ + "/instances/" + mid + "/prompts?closed=false"),
            Json::array());
  ASSERT_EQ(
      client()
          .Send("PUT", "/api/documents/" + overview_ + "/instances/" + mid + "/prompts/answers",
                Headers(), R"({"prompts":[]})")
          .status,
      204);

  const Json cubes = GetJson("/api/documents/" + overview_ + "/cubes");
  ASSERT_EQ(cubes.size(), 2u);
  for (const auto& cube : cubes) {
    EXPECT_EQ(cube["subtype"], 776);
    EXPECT_EQ(cube["type"], 3);
  }
  // The Regional Performance reads a report besides its cube.
  EXPECT_EQ(GetJson("/api/documents/" + regional_ + "/cubes").size(), 1u);
}

class DashboardOnAnUnpublishedCubeApi : public DashboardApi {
 protected:
  DashboardOnAnUnpublishedCubeApi() { published_cubes_ = {"Item Sales Cube"}; }
};

// The Sales Cube was never published: its visualizations fail as cube instances do, the others
// answer.
TEST_P(DashboardOnAnUnpublishedCubeApi, OnlyItsVisualizationsFail) {
  const Json definition = GetJson("/api/v2/dossiers/" + overview_ + "/definition");
  EXPECT_EQ(definition["chapters"][0]["filters"][0]["key"], "W10");
  const std::string mid = CreateInstance(overview_);
  for (const char* key : {"W1", "W5"}) {
    auto failed = GetViz(overview_, mid, key);
    ExpectError(failed, 500, "ERR002");
    EXPECT_EQ(BodyOf(failed)["iServerCode"], kCubeNotPublishedIServerCode) << key;
  }
  ExpectSameRows(VizRows(overview_, mid, "W8"),
                 Expected("SELECT subcategory_id, subcategory_name, sum(revenue), sum(cost) FROM "
                          "flat GROUP BY 1, 2 ORDER BY 1",
                          2, {0}));
}

INSTANTIATE_TEST_SUITE_P(Backends, DashboardOnAnUnpublishedCubeApi,
                         ::testing::ValuesIn(kAllStoreBackends), BackendParamName);

INSTANTIATE_TEST_SUITE_P(Backends, DashboardInstanceApi, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
