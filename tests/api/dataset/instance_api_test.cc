// Report and cube instances over HTTP on the demo project: every answer is checked against SQL
// written independently on the flattened demo warehouse.
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "api/demo_api.h"
#include "api/grid_rows.h"
#include "core/strings.h"

namespace tessera::testing {
namespace {

constexpr const char* kExcludeValues =
    "fields=-data.metricValues.extras,-data.metricValues.formatted";

class InstanceApi : public DemoApi {
 protected:
  void Configure(app::Config& config) override {
    DemoApi::Configure(config);
    config.instance_async_after_ms = 0;
  }

  http::Response Post(const std::string& target, const Json& body, const std::string& prefer = "") {
    http::Headers headers = Headers();
    if (!prefer.empty()) headers.Set("Prefer", prefer);
    return client().Send("POST", target, headers, body.dump());
  }

  Json PostJson(const std::string& target, const Json& body) {
    auto response = Post(target, body);
    EXPECT_EQ(response.status, 200) << target << ": " << response.body;
    return response.status == 200 ? BodyOf(response) : Json::object();
  }

  Json RequestedObjects(const std::vector<std::string>& attributes,
                        const std::vector<std::string>& metrics) {
    Json requested = {{"attributes", Json::array()}, {"metrics", Json::array()}};
    for (const auto& name : attributes) {
      requested["attributes"].push_back({{"id", AttributeId(name)}});
    }
    for (const auto& name : metrics) requested["metrics"].push_back({{"id", MetricId(name)}});
    return requested;
  }

  std::string MetricId(const std::string& name) const { return ObjectId(model::kTypeMetric, name); }

  // Region and Category with their ID and DESC forms, then sums of revenue and cost, profit and
  // margin, by region and category in ID order, with `where` applied to order lines.
  std::vector<GridRow> ProfitByRegionAndCategory(const std::string& where = "") {
    Rows rows = Query(
        "SELECT region_id, region_name, category_id, category_name, sum(revenue), sum(cost), "
        "sum(revenue) - sum(cost), (sum(revenue) - sum(cost)) / sum(revenue) FROM flat " +
        where + " GROUP BY region_id, region_name, category_id, category_name " +
        "ORDER BY region_id, category_id");
    for (auto& row : rows) {
      row[0] = IntegerText(row[0]);
      row[2] = IntegerText(row[2]);
    }
    return RowsOfSql(rows, 4);
  }
};

TEST_P(InstanceApi, AReportInstanceAnswersWhatTheWarehouseSays) {
  const std::string report = ReportId("Profit by Region and Category");
  Json body = PostJson("/api/v2/reports/" + report + "/instances/?offset=0&limit=1000", {});
  EXPECT_EQ(body["id"], report);
  EXPECT_EQ(body["status"], 1);
  EXPECT_EQ(body["instanceId"].get<std::string>().size(), 32u);
  const Json& grid = body["definition"]["grid"];
  ASSERT_EQ(grid["rows"].size(), 2u);
  EXPECT_EQ(grid["rows"][0]["name"], "Region");
  EXPECT_EQ(grid["rows"][0]["forms"][0]["id"], kIdFormId);
  EXPECT_EQ(grid["rows"][0]["forms"][1]["id"], kDescFormId);
  EXPECT_EQ(grid["columns"][0]["type"], "templateMetrics");
  EXPECT_EQ(grid["columns"][0]["elements"][3]["name"], "Profit Margin");
  EXPECT_EQ(grid["metricsPosition"]["axis"], "columns");
  EXPECT_EQ(grid["subtotals"]["visible"], false);
  const std::vector<GridRow> expected = ProfitByRegionAndCategory();
  EXPECT_EQ(body["data"]["paging"]["total"], expected.size());
  EXPECT_EQ(body["data"]["paging"]["current"], expected.size());
  EXPECT_TRUE(body["data"]["paging"]["next"].is_null());
  ExpectSameRows(RowsOfV2(body), expected);

  // Formatted values follow each metric's format; min and max span the whole result.
  const Json& first_formatted = body["data"]["metricValues"]["formatted"][0];
  const double margin = *expected[0].metrics[3];
  char percent[32];
  std::snprintf(percent, sizeof percent, "%.2f%%", margin * 100);
  EXPECT_EQ(first_formatted[3], percent);
  double max_revenue = 0;
  for (const auto& row : expected) max_revenue = std::max(max_revenue, *row.metrics[0]);
  EXPECT_NEAR(grid["columns"][0]["elements"][0]["max"].get<double>(), max_revenue, 1e-6);
  EXPECT_EQ(grid["columns"][0]["elements"][0]["numberFormatting"]["formatString"], "#,##0.00");
}

TEST_P(InstanceApi, PagesAreSlicesOfOneFrozenResultWithTheirOwnElementLists) {
  const std::string report = ReportId("Profit by Region and Category");
  Json first = PostJson("/api/v2/reports/" + report + "/instances?limit=5", {});
  const std::string instance = first["instanceId"];
  const size_t total = first["data"]["paging"]["total"];
  ASSERT_GT(total, 12u);
  EXPECT_EQ(first["data"]["paging"]["next"], 5);

  Json everything = GetJson("/api/v2/reports/" + report + "/instances/" + instance + "?limit=-1");
  const std::vector<GridRow> all = RowsOfV2(everything);
  ASSERT_EQ(all.size(), total);
  ExpectSameRows(all, ProfitByRegionAndCategory());

  for (int limit : {1, 3, 7, 1000}) {
    std::vector<GridRow> paged;
    for (size_t offset = 0; offset < total; offset += limit) {
      Json page = GetJson("/api/v2/reports/" + report + "/instances/" + instance +
                          "?offset=" + std::to_string(offset) + "&limit=" + std::to_string(limit) +
                          "&" + kExcludeValues);
      EXPECT_EQ(page["data"]["paging"]["current"], std::min<size_t>(limit, total - offset));
      EXPECT_FALSE(page["data"]["metricValues"].contains("formatted"));
      EXPECT_FALSE(page["data"]["metricValues"].contains("extras"));
      // Element lists hold only what the page uses.
      std::set<std::string> used;
      for (const auto& row : page["data"]["headers"]["rows"]) used.insert(row[0].dump());
      EXPECT_EQ(page["definition"]["grid"]["rows"][0]["elements"].size(), used.size());
      for (auto& row : RowsOfV2(page)) paged.push_back(std::move(row));
    }
    ExpectSameRows(paged, all);
  }
  Json beyond = GetJson("/api/v2/reports/" + report + "/instances/" + instance +
                        "?offset=" + std::to_string(total + 10));
  EXPECT_EQ(beyond["data"]["paging"]["current"], 0);
  EXPECT_TRUE(beyond["data"]["headers"]["rows"].empty());
}

TEST_P(InstanceApi, RequestedObjectsChooseTheGridInDefinitionOrder) {
  const std::string report = ReportId("Profit by Region and Category");
  // Asked in reverse order; the grid keeps the template's order.
  Json body = PostJson("/api/v2/reports/" + report + "/instances",
                       {{"requestedObjects", RequestedObjects({"Region"}, {"Cost", "Revenue"})}});
  const Json& grid = body["definition"]["grid"];
  ASSERT_EQ(grid["rows"].size(), 1u);
  EXPECT_EQ(grid["columns"][0]["elements"][0]["name"], "Revenue");
  EXPECT_EQ(grid["columns"][0]["elements"][1]["name"], "Cost");
  Rows rows = Query(
      "SELECT region_id, region_name, sum(revenue), sum(cost) FROM flat GROUP BY region_id, "
      "region_name ORDER BY region_id");
  for (auto& row : rows) row[0] = IntegerText(row[0]);
  ExpectSameRows(RowsOfV2(body), RowsOfSql(rows, 2));

  // One form, by id; the formValues follow it.
  Json one_form = {
      {"attributes", {{{"id", AttributeId("Region")}, {"forms", {{{"id", kDescFormId}}}}}}},
      {"metrics", Json::array()}};
  body = PostJson("/api/v2/reports/" + report + "/instances", {{"requestedObjects", one_form}});
  EXPECT_EQ(body["definition"]["grid"]["rows"][0]["forms"].size(), 1u);
  EXPECT_TRUE(body["definition"]["grid"]["columns"].empty());
  EXPECT_EQ(body["data"]["metricValues"]["raw"][0].size(), 0u);
  EXPECT_EQ(body["data"]["paging"]["total"], rows.size());

  // No attributes: the grand total; nothing at all: no rows.
  body = PostJson("/api/v2/reports/" + report + "/instances",
                  {{"requestedObjects", RequestedObjects({}, {"Revenue"})}});
  ASSERT_EQ(body["data"]["paging"]["total"], 1);
  EXPECT_TRUE(Near(body["data"]["metricValues"]["raw"][0][0].get<double>(),
                   std::stod(Query("SELECT sum(revenue) FROM flat")[0][0])));
  body =
      PostJson("/api/v2/reports/" + report + "/instances", {{"requestedObjects", Json::object()}});
  EXPECT_EQ(body["data"]["paging"]["total"], 0);
}

TEST_P(InstanceApi, ViewFiltersAndMetricLimitsMatchTheWarehouse) {
  const std::string report = ReportId("Profit by Region and Category");
  const std::string category = AttributeId("Category");
  // The Python client's element ids ("<attribute id>:<ID>"), and a metric qualification, which
  // applies at the report's own level (region and category), before the grid aggregates.
  std::vector<GridRow> in_categories = ProfitByRegionAndCategory("WHERE category_id IN (1, 3)");
  ASSERT_GT(in_categories.size(), 4u);
  std::vector<double> revenues;
  for (const auto& row : in_categories) revenues.push_back(*row.metrics[0]);
  std::sort(revenues.begin(), revenues.end());
  const double threshold = revenues[revenues.size() / 2];
  Json filter = {
      {"operator", "And"},
      {"operands",
       {{{"operator", "In"},
         {"operands",
          {{{"type", "attribute"}, {"id", category}},
           {{"type", "elements"},
            {"elements", {{{"id", category + ":1"}}, {{"id", category + ":3"}}}}}}}},
        {{"operator", "Greater"},
         {"operands",
          {{{"type", "metric"}, {"id", MetricId("Revenue")}},
           {{"type", "constant"}, {"dataType", "Real"}, {"value", std::to_string(threshold)}}}}}}}};
  Json body = PostJson("/api/v2/reports/" + report + "/instances", {{"viewFilter", filter}});
  std::vector<GridRow> expected;
  for (const auto& row : in_categories) {
    if (*row.metrics[0] > std::stod(std::to_string(threshold))) expected.push_back(row);
  }
  ASSERT_LT(expected.size(), in_categories.size());
  ExpectSameRows(RowsOfV2(body), expected);

  // A form qualification on text, case-insensitive.
  Json begins = {{"operator", "BeginsWith"},
                 {"operands",
                  {{{"type", "form"},
                    {"attribute", {{"id", AttributeId("Region")}}},
                    {"form", {{"id", kDescFormId}}}},
                   {{"type", "constant"}, {"dataType", "Char"}, {"value", "north"}}}}};
  body = PostJson("/api/v2/reports/" + report + "/instances", {{"viewFilter", begins}});
  ExpectSameRows(RowsOfV2(body),
                 ProfitByRegionAndCategory("WHERE lower(region_name) LIKE 'north%'"));

  // The three best rows by revenue, on the aggregated grid.
  Json limits = {{MetricId("Revenue"),
                  {{"operator", "Rank.Top"},
                   {"operands",
                    {{{"type", "metric"}, {"id", MetricId("Revenue")}},
                     {{"type", "constant"}, {"dataType", "Real"}, {"value", "3"}}}}}}};
  body = PostJson("/api/v2/reports/" + report + "/instances", {{"metricLimits", limits}});
  std::vector<GridRow> all = ProfitByRegionAndCategory();
  revenues.clear();
  for (const auto& row : all) revenues.push_back(*row.metrics[0]);
  std::sort(revenues.rbegin(), revenues.rend());
  std::vector<GridRow> top;
  for (const auto& row : all) {
    if (*row.metrics[0] >= revenues[2]) top.push_back(row);
  }
  ExpectSameRows(RowsOfV2(body), top);
}

TEST_P(InstanceApi, SortingOrdersRowsAndIsEchoed) {
  const std::string report = ReportId("Profit by Region and Category");
  Json sorting = {
      {"rows",
       {{{"type", "metric"}, {"metric", {{"id", MetricId("Profit")}}}, {"order", "descending"}}}}};
  Json body = PostJson("/api/v2/reports/" + report + "/instances", {{"sorting", sorting}});
  std::vector<GridRow> rows = RowsOfV2(body);
  ASSERT_FALSE(rows.empty());
  for (size_t r = 1; r < rows.size(); ++r) EXPECT_GE(*rows[r - 1].metrics[2], *rows[r].metrics[2]);
  EXPECT_EQ(body["definition"]["grid"]["sorting"]["rows"][0]["metric"]["name"], "Profit");

  // Re-sorting the instance by the region's name, descending (PUT).
  const std::string instance = body["instanceId"];
  Json by_name = {{"rows",
                   {{{"type", "form"},
                     {"attribute", {{"id", AttributeId("Region")}}},
                     {"form", {{"id", kDescFormId}}},
                     {"order", "descending"}}}}};
  auto response = client().Send("PUT", "/api/v2/reports/" + report + "/instances/" + instance,
                                Headers(), Json{{"sorting", by_name}}.dump());
  ASSERT_EQ(response.status, 200) << response.body;
  rows = RowsOfV2(BodyOf(response));
  for (size_t r = 1; r < rows.size(); ++r) EXPECT_GE(rows[r - 1].forms[1], rows[r].forms[1]);
  // Later pages read the new order.
  Json again = GetJson("/api/v2/reports/" + report + "/instances/" + instance);
  EXPECT_EQ(RowsOfV2(again).front().forms, rows.front().forms);

  ExpectError(Post("/api/v2/reports/" + report + "/instances",
                   {{"sorting", {{"rows", {{{"type", "metric"}, {"metric", {{"id", ""}}}}}}}}}),
              400, "ERR006");
  ExpectError(
      Post("/api/v2/reports/" + report + "/instances",
           {{"sorting",
             {{"pageBy", {{{"type", "metric"}, {"metric", {{"id", MetricId("Profit")}}}}}}}}}),
      400, "ERR006");
}

TEST_P(InstanceApi, TheV1FormatNestsRowsUnderTheirElements) {
  const std::string report = ReportId("Profit by Region and Category");
  Json body = PostJson("/api/reports/" + report + "/instances?limit=-1", {});
  EXPECT_EQ(body["id"], report);
  const Json& root = body["result"]["data"]["root"];
  EXPECT_EQ(root["isPartial"], false);
  std::vector<GridRow> expected = ProfitByRegionAndCategory();
  std::vector<GridRow> tree;
  for (const auto& region : root["children"]) {
    EXPECT_EQ(region["depth"], 0);
    for (const auto& category : region["children"]) {
      GridRow row;
      for (const auto* node : {&region, &category}) {
        const Json& values = (*node)["element"]["formValues"];
        row.forms.push_back(values["ID"]);
        row.forms.push_back(values["DESC"]);
      }
      for (const char* name : {"Revenue", "Cost", "Profit", "Profit Margin"}) {
        row.metrics.push_back(category["metrics"][name]["rv"].get<double>());
      }
      tree.push_back(std::move(row));
    }
  }
  ExpectSameRows(tree, expected);
  EXPECT_EQ(body["result"]["data"]["root"]["children"][0]["element"]["id"],
            "h" + expected[0].forms[0] + ";" + AttributeId("Region"));

  // A page cutting a region in two marks it partial; fields trim the top level.
  const std::string instance = body["instanceId"];
  Json page = GetJson("/api/reports/" + report + "/instances/" + instance + "?offset=1&limit=2");
  EXPECT_EQ(page["result"]["data"]["root"]["children"][0]["isPartial"], true);
  Json trimmed =
      GetJson("/api/reports/" + report + "/instances/" + instance + "?fields=instanceId,status");
  EXPECT_EQ(trimmed.size(), 2u);
}

TEST_P(InstanceApi, CubeInstancesNeedAPublishAndReadThePublishedData) {
  const std::string cube = ReportId("Sales Cube");
  ExpectError(Post("/api/v2/cubes/" + cube + "/instances", {}), 500, "ERR002");
  PublishAndWait(cube);
  Json body = PostJson(
      "/api/v2/cubes/" + cube + "/instances",
      {{"requestedObjects", RequestedObjects({"Channel"}, {"Units Sold", "Customer Count"})}});
  Rows rows = Query(
      "SELECT channel_id, channel_name, sum(units), count(DISTINCT customer_id) FROM flat "
      "GROUP BY channel_id, channel_name ORDER BY channel_id");
  for (auto& row : rows) row[0] = IntegerText(row[0]);
  ExpectSameRows(RowsOfV2(body), RowsOfSql(rows, 2));

  // A report on the cube reads it too.
  const std::string report = ReportId("Quarterly Sales by Channel");
  Json on_cube = PostJson("/api/v2/reports/" + report + "/instances", {});
  Rows by_quarter = Query(
      "SELECT quarter_id, channel_id, channel_name, sum(revenue), sum(units), count(*) FROM flat "
      "GROUP BY quarter_id, channel_id, channel_name ORDER BY quarter_id, channel_id");
  for (auto& row : by_quarter) row[1] = IntegerText(row[1]);
  ExpectSameRows(RowsOfV2(on_cube), RowsOfSql(by_quarter, 3));
}

TEST_P(InstanceApi, InstancesBelongToTheirSessionAndEndWithIt) {
  const std::string report = ReportId("Profit by Region and Category");
  Json body = PostJson("/api/v2/reports/" + report + "/instances", {});
  const std::string instance = body["instanceId"];
  const std::string path = "/api/v2/reports/" + report + "/instances/" + instance;

  const std::string other_token = client().Login();
  ExpectError(client().Get(path, AuthHeaders(other_token, project())), 404, "ERR004");
  ExpectError(Get("/api/v2/reports/" + report + "/instances/" + std::string(32, 'A')), 404,
              "ERR004");
  // Another object's path does not reach the instance.
  ExpectError(Get("/api/v2/reports/" + ReportId("Revenue by Year") + "/instances/" + instance), 404,
              "ERR004");
  EXPECT_EQ(Get(path).status, 200);
  // The v1 path reads the same instance.
  EXPECT_EQ(Get("/api/reports/" + report + "/instances/" + instance).status, 200);
  EXPECT_EQ(Get(path + "/pageBy/elements").status, 200);
  EXPECT_EQ(BodyOf(Get(path + "/pageBy/elements"))["validPageByElements"]["items"].size(), 0u);

  auto logout = client().Send("POST", "/api/auth/logout", AuthHeaders(token()));
  EXPECT_EQ(logout.status, 204);
  const std::string again = client().Login();
  ExpectError(client().Get(path, AuthHeaders(again, project())), 404, "ERR004");
}

TEST_P(InstanceApi, BadRequestsAreRefusedAndCreateNothing) {
  const std::string report = ReportId("Profit by Region and Category");
  const std::string path = "/api/v2/reports/" + report + "/instances";
  const std::string unknown = std::string(31, '0') + "1";
  auto bad = [&](const Json& body, const std::string& query = "") {
    ExpectError(Post(path + query, body), 400, "ERR006");
  };
  bad({{"requestedObjects", {{"attributes", {{{"id", unknown}}}}}}});
  bad({{"requestedObjects", {{"metrics", {{{"id", AttributeId("Region")}}}}}}});
  bad({{"requestedObjects",
        {{"attributes", {{{"id", AttributeId("Region")}, {"forms", {{{"id", unknown}}}}}}}}}});
  bad({{"requestedObjects", "everything"}});
  bad({{"viewFilter", {{"operator", "Sideways"}, {"operands", Json::array()}}}});
  bad({{"viewFilter",
        {{"operator", "Like"},
         {"operands",
          {{{"type", "metric"}, {"id", MetricId("Revenue")}},
           {{"type", "constant"}, {"dataType", "Char"}, {"value", "x"}}}}}}});
  bad({{"viewFilter",
        {{"operator", "In"},
         {"operands", {{{"type", "attribute"}, {"id", AttributeId("Region")}}}}}}});
  bad({{"metricLimits", {{unknown, {{"operator", "Greater"}}}}}});
  bad({{"currentPageBy", {{{"id", "h1;" + AttributeId("Region")}}}}});
  bad({}, "?offset=-1");
  bad({}, "?limit=0");
  bad({}, "?limit=-2");
  bad({}, "?limit=ten");
  auto malformed = client().Send("POST", path, Headers(), "{not json");
  ExpectError(malformed, 400, "ERR006");
  ExpectError(Post("/api/v2/reports/" + unknown + "/instances", {}), 404, "ERR004");
  ExpectError(Post("/api/v2/reports/" + ReportId("Sales Cube") + "/instances", {}), 404, "ERR004");
}

TEST_P(InstanceApi, AMisspeltBodyKeyIs400Err006NamingItAndTheAcceptedKeys) {
  const std::string report = ReportId("Profit by Region and Category");
  const std::string cube = ReportId("Sales Cube");
  const Json body = {
      {"viewFiltr",
       {{"operator", "In"},
        {"operands",
         {{{"type", "attribute"}, {"id", AttributeId("Region")}},
          {{"type", "elements"}, {"elements", {{{"id", "h1;" + AttributeId("Region")}}}}}}}}}};
  const std::string message =
      "'viewFiltr' is not a key of a report or cube instance body; accepted keys: "
      "requestedObjects, viewFilter, metricLimits, sorting, subtotals, currentPageBy";
  for (const std::string& path :
       {"/api/v2/reports/" + report + "/instances", "/api/reports/" + report + "/instances",
        "/api/v2/cubes/" + cube + "/instances", "/api/cubes/" + cube + "/instances"}) {
    ExpectError(Post(path, body), 400, "ERR006", message);
  }
}

TEST_P(InstanceApi, EveryBodyKeyThePythonClientSendsIsAccepted) {
  const std::string report = ReportId("Profit by Region and Category");
  const std::string region = AttributeId("Region");
  // Report.to_dataframe() with a filter on Region 1, as the client builds the body.
  const Json body = {
      {"requestedObjects", RequestedObjects({"Region"}, {"Revenue"})},
      {"viewFilter",
       {{"operator", "In"},
        {"operands",
         {{{"type", "attribute"}, {"id", region}},
          {{"type", "elements"}, {"elements", {{{"id", "h1;" + region}}}}}}}}},
      {"subtotals", {{"visible", false}}},
      {"currentPageBy", Json::array()},
      {"metricLimits", Json::object()},
      {"sorting",
       {{"rows", Json::array()}, {"columns", Json::array()}, {"pageBy", Json::array()}}}};
  const std::vector<GridRow> rows =
      RowsOfV2(PostJson("/api/v2/reports/" + report + "/instances", body));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].forms[0], "1");
}

TEST_P(InstanceApi, AResortWithAKeyItDoesNotTakeIsRefusedAndKeepsTheInstance) {
  const std::string report = ReportId("Profit by Region and Category");
  const Json created = PostJson("/api/v2/reports/" + report + "/instances", Json::object());
  const std::string path =
      "/api/v2/reports/" + report + "/instances/" + created["instanceId"].get<std::string>();
  const Json body = {{"requestedObjects", RequestedObjects({"Region"}, {})}};
  ExpectError(client().Send("PUT", path, Headers(), body.dump()), 400, "ERR006",
              "'requestedObjects' is not a key of the body that re-sorts an instance (to change "
              "its objects or filters, create a new instance); accepted keys: sorting, "
              "currentPageBy");
  EXPECT_EQ(RowsOfV2(GetJson(path)).size(), RowsOfV2(created).size());
  EXPECT_EQ(RowsOfV2(GetJson(path)).front().forms, RowsOfV2(created).front().forms);
}

TEST_P(InstanceApi, AsynchronousCreationAnswers202AndThenTheResult) {
  const std::string report = ReportId("Profit by Region and Category");
  auto response = Post("/api/v2/reports/" + report + "/instances", {}, "respond-async");
  ASSERT_TRUE(response.status == 202 || response.status == 200) << response.body;
  Json body = BodyOf(response);
  const std::string instance = body["instanceId"];
  if (response.status == 202) {
    EXPECT_EQ(body["status"], 4);
    EXPECT_TRUE(response.headers.Get("Retry-After").has_value());
  }
  const std::string status = "/api/reports/" + report + "/instances/" + instance + "/status";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  http::Response polled;
  do {
    polled = Get(status);
    ASSERT_LT(std::chrono::steady_clock::now(), deadline);
  } while (polled.status == 202);
  ASSERT_EQ(polled.status, 200) << polled.body;
  EXPECT_EQ(BodyOf(polled)["status"], 1);
  EXPECT_EQ(polled.headers.Get("X-MSTR-IStatus").value_or(""), "Result");
  Json result = GetJson("/api/v2/reports/" + report + "/instances/" + instance);
  ExpectSameRows(RowsOfV2(result), ProfitByRegionAndCategory());
}

TEST_P(InstanceApi, PromptsAreEmptyAndTheSqlViewShowsTheQuery) {
  const std::string report = ReportId("Profit by Region and Category");
  EXPECT_EQ(GetJson("/api/reports/" + report + "/prompts"), Json::array());
  Json body = PostJson("/api/v2/reports/" + report + "/instances", {});
  const std::string instance = body["instanceId"];
  EXPECT_EQ(GetJson("/api/reports/" + report + "/instances/" + instance + "/prompts"),
            Json::array());
  auto answered =
      client().Send("PUT", "/api/reports/" + report + "/instances/" + instance + "/prompts/answers",
                    Headers(), "{}");
  EXPECT_EQ(answered.status, 204);
  Json sql = GetJson("/api/v2/reports/" + report + "/instances/" + instance + "/sqlView");
  const std::string statement = sql["sqlStatement"];
  EXPECT_NE(ToLower(statement).find("sales_fact"), std::string::npos) << statement;
  EXPECT_NE(ToLower(statement).find("lu_region"), std::string::npos) << statement;
}

INSTANTIATE_TEST_SUITE_P(Backends, InstanceApi, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
