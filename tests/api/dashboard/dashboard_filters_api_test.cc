// PUT .../instances/{id}/filters for every selector type, in the new and the old body format,
// checked on the visualizations against independent SQL; and bad inputs, each refused with the
// instance left as it was.
#include <cstdio>

#include "api/dashboard/dashboard_api.h"

namespace tessera::testing {
namespace {

constexpr const char* kRecentYears = "year_id >= 2023";

class DashboardFiltersApi : public DashboardApi {
 protected:
  void SetUp() override {
    DashboardApi::SetUp();
    if (IsSkipped()) return;
    mid_ = CreateInstance(overview_, {{"enableParallelRendering", false}});
  }

  void Put(const Json& body, const std::string& query = "") {
    auto response = PutFilters(overview_, mid_, body, query);
    ASSERT_EQ(response.status, 204) << body.dump() << ": " << response.body;
  }

  std::vector<GridRow> ProfitByRegion(const std::string& where, const std::string& having = "") {
    return Expected(
        "SELECT region_id, region_name, country_id, country_name, sum(revenue), "
        "sum(revenue) - sum(cost), count(DISTINCT customer_id) FROM flat WHERE " +
            where + " GROUP BY 1, 2, 3, 4 " + having + " ORDER BY 1, 3",
        4, {0, 2});
  }

  std::vector<GridRow> RevenueByCategory(const std::string& where, const std::string& having = "") {
    return Expected("SELECT category_id, category_name, sum(revenue) FROM flat WHERE " + where +
                        " GROUP BY 1, 2 " + having + " ORDER BY 1",
                    2, {0});
  }

  Json Elements(const std::vector<std::string>& values) {
    Json elements = Json::array();
    for (const auto& value : values) elements.push_back({{"id", ElementId("Region", value)}});
    return elements;
  }

  Json RegionSelection(const std::string& status, const std::vector<std::string>& values) {
    return {{{"key", "W10"},
             {"currentSelection", {{"selectionStatus", status}, {"elements", Elements(values)}}}}};
  }

  std::string mid_;
};

TEST_P(DashboardFiltersApi, ElementListIncludedAndExcluded) {
  const auto item_sales = VizRows(overview_, mid_, "W8");
  Put(RegionSelection("included", {"1", "2"}));
  ExpectSameRows(VizRows(overview_, mid_, "W5"),
                 ProfitByRegion(std::string("region_id IN (1, 2) AND ") + kRecentYears));
  // The Item Sales Cube has no Region: untouched.
  ExpectSameRows(VizRows(overview_, mid_, "W8"), item_sales);

  Put(RegionSelection("excluded", {"1", "2"}));
  ExpectSameRows(VizRows(overview_, mid_, "W5"),
                 ProfitByRegion(std::string("region_id NOT IN (1, 2) AND ") + kRecentYears));
  const Json definition = InstanceDefinition(overview_, mid_);
  const Json& region = definition["chapters"][0]["filters"][0];
  EXPECT_EQ(region["currentSelection"]["selectionStatus"], "excluded");
  EXPECT_EQ(region["include"], false);
  const std::string first_name = Query("SELECT region_name FROM flat WHERE region_id = 1")[0][0];
  EXPECT_EQ(region["currentSelection"]["elements"][0]["name"], first_name);
  EXPECT_EQ(region["summary"].get<std::string>().rfind("Region Not In List " + first_name, 0), 0u);
}

TEST_P(DashboardFiltersApi, OldFormatAndEveryWayToNameASelectorOrAnElement) {
  const std::string region = AttributeId("Region");
  const std::string name_of_3 = Query("SELECT region_name FROM flat WHERE region_id = 3")[0][0];
  const std::vector<GridRow> included =
      ProfitByRegion(std::string("region_id IN (1, 3) AND ") + kRecentYears);
  const std::vector<Json> bodies = {
      {{{"key", "W10"}, {"selections", Elements({"1", "3"})}}},
      {{{"name", "Region"}, {"selections", Elements({"1", "3"})}}},
      {{{"source", {{"id", region}}},
        {"selections", {{{"id", region + ":1"}}, {{"id", "h3;;" + name_of_3}}}}}},
      {{{"key", "W10"},
        {"selections", {{{"id", "h1;" + region + ";Display text"}}, {{"name", name_of_3}}}}}},
  };
  for (const auto& body : bodies) {
    Put(body);
    ExpectSameRows(VizRows(overview_, mid_, "W5"), included);
  }
  Put({{{"key", "W10"}, {"include", false}, {"selections", Elements({"1", "3"})}}});
  ExpectSameRows(VizRows(overview_, mid_, "W5"),
                 ProfitByRegion(std::string("region_id NOT IN (1, 3) AND ") + kRecentYears));
  Put({{{"key", "W10"}, {"unset", true}}});
  ExpectSameRows(VizRows(overview_, mid_, "W5"), ProfitByRegion(kRecentYears));
}

TEST_P(DashboardFiltersApi, AttributeQualification) {
  Put({{{"key", "W11"},
        {"currentSelection",
         {{"selectionStatus", "included"},
          {"expression",
           {{"operator", "Between"},
            {"operands",
             {{{"type", "form"},
               {"attribute", {{"id", AttributeId("Year")}}},
               {"form", {{"id", kIdFormId}}}},
              {{"type", "constant"}, {"dataType", "Real"}, {"value", "2022"}},
              {{"type", "constant"}, {"dataType", "Real"}, {"value", "2023"}}}}}}}}}});
  ExpectSameRows(VizRows(overview_, mid_, "W4"),
                 RevenueByCategory("year_id BETWEEN 2022 AND 2023"));
  // Clearing the chapter filter shows every year.
  Put({{{"key", "W11"}}});
  ExpectSameRows(VizRows(overview_, mid_, "W4"), RevenueByCategory("1 = 1"));
}

TEST_P(DashboardFiltersApi, MetricQualificationAtEachVisualizationsLevel) {
  const std::string revenue = MetricId("Revenue");
  // A threshold halfway between two categories' revenues, so no sum sits on it.
  Rows totals = Query(std::string("SELECT sum(revenue) FROM flat WHERE ") + kRecentYears +
                      " GROUP BY category_id ORDER BY 1");
  ASSERT_GE(totals.size(), 3u);
  auto halfway = [&](size_t low) {
    char text[64];
    std::snprintf(text, sizeof text, "%.4f",
                  (std::stod(totals[low][0]) + std::stod(totals[low + 1][0])) / 2);
    return std::string(text);
  };
  const std::string threshold = halfway(totals.size() / 2 - 1);
  Put({{{"key", "W12"},
        {"currentSelection",
         {{"selectionStatus", "included"},
          {"expression",
           {{"operator", "GreaterEqual"},
            {"operands",
             {{{"type", "metric"}, {"id", revenue}},
              {{"type", "constant"}, {"dataType", "Real"}, {"value", threshold}}}}}}}}}});
  const std::string having = "HAVING sum(revenue) >= " + threshold;
  ExpectSameRows(VizRows(overview_, mid_, "W4"), RevenueByCategory(kRecentYears, having));
  ExpectSameRows(VizRows(overview_, mid_, "W5"), ProfitByRegion(kRecentYears, having));
  // Units by Channel does not show Revenue: it is computed for the qualification only.
  ExpectSameRows(
      VizRows(overview_, mid_, "W6"),
      Expected(std::string("SELECT quarter_id, channel_id, channel_name, sum(units) FROM "
                           "flat WHERE ") +
                   kRecentYears + " GROUP BY 1, 2, 3 " + having + " ORDER BY 1, 2",
               3, {1}));

  // Rank.Top 2 keeps the two best categories; Rank.ExcludeTop 2 the others.
  auto rank = [&](const std::string& op) {
    return Json{{{"key", "W12"},
                 {"currentSelection",
                  {{"selectionStatus", "included"},
                   {"expression",
                    {{"operator", op},
                     {"operands",
                      {{{"type", "metric"}, {"id", revenue}},
                       {{"type", "constant"}, {"dataType", "Real"}, {"value", "2"}}}}}}}}}};
  };
  const std::string between_second_and_third = halfway(totals.size() - 3);
  Put(rank("Rank.Top"));
  ExpectSameRows(
      VizRows(overview_, mid_, "W4"),
      RevenueByCategory(kRecentYears, "HAVING sum(revenue) > " + between_second_and_third));
  Put(rank("Rank.ExcludeTop"));
  ExpectSameRows(
      VizRows(overview_, mid_, "W4"),
      RevenueByCategory(kRecentYears, "HAVING sum(revenue) < " + between_second_and_third));

  // The old format: qualifier and constants.
  Put({{{"key", "W12"},
        {"qualifier", "Between"},
        {"constants", {halfway(0), threshold}},
        {"dataType", "Real"}}});
  ExpectSameRows(VizRows(overview_, mid_, "W4"),
                 RevenueByCategory(kRecentYears, "HAVING sum(revenue) BETWEEN " + halfway(0) +
                                                     " AND " + threshold));
}

TEST_P(DashboardFiltersApi, ObjectReplacementSwapsTheTargetsMetric) {
  const std::string profit = MetricId("Profit");
  const auto profit_by_region = VizRows(overview_, mid_, "W5");
  Put({{{"key", "W13"},
        {"currentSelection",
         {{"selectionStatus", "included"},
          {"objectItems", {{{"id", "i" + profit + ";" + profit}, {"name", "Profit"}}}}}}}});
  auto response = GetViz(overview_, mid_, "W4");
  ASSERT_EQ(response.status, 200);
  const Json body = BodyOf(response);
  ASSERT_EQ(body["definition"]["grid"]["columns"][0]["elements"].size(), 1u);
  EXPECT_EQ(body["definition"]["grid"]["columns"][0]["elements"][0]["id"], profit);
  ExpectSameRows(RowsOfV2(body),
                 Expected(std::string("SELECT category_id, category_name, sum(revenue) - sum(cost) "
                                      "FROM flat WHERE ") +
                              kRecentYears + " GROUP BY 1, 2 ORDER BY 1",
                          2, {0}));
  ExpectSameRows(VizRows(overview_, mid_, "W5"), profit_by_region);  // not a target
  // Clearing brings the saved objects back.
  Put({{{"name", "Measure"}}});
  ExpectSameRows(VizRows(overview_, mid_, "W4"), RevenueByCategory(kRecentYears));
}

TEST_P(DashboardFiltersApi, AVisualizationFiltersItsTargets) {
  const std::string year = AttributeId("Year");
  const auto by_category = VizRows(overview_, mid_, "W4");
  Json expression = {{"operator", "Or"},
                     {"operands",
                      {{{"operator", "In"},
                        {"operands",
                         {{{"type", "attribute"}, {"id", year}},
                          {{"type", "elements"}, {"elements", {{{"id", year + ":2023"}}}}}}}}}}};
  Put({{{"visualizationKey", "W2"},
        {"currentSelection", {{"selectionStatus", "included"}, {"expression", expression}}}}});
  ExpectSameRows(VizRows(overview_, mid_, "W3"),
                 Expected("SELECT month_id, month_name, sum(revenue), sum(cost) FROM flat WHERE "
                          "year_id = 2023 GROUP BY 1, 2 ORDER BY 1",
                          2, {}));
  ExpectSameRows(VizRows(overview_, mid_, "W6"),
                 Expected("SELECT quarter_id, channel_id, channel_name, sum(units) FROM flat WHERE "
                          "year_id = 2023 GROUP BY 1, 2, 3 ORDER BY 1, 2",
                          3, {1}));
  ExpectSameRows(VizRows(overview_, mid_, "W4"), by_category);  // not a target
  const Json definition = InstanceDefinition(overview_, mid_);
  EXPECT_EQ(definition["chapters"][0]["pages"][0]["visualizations"][1]["selector"]
                      ["currentSelection"]["expression"],
            expression);
  Put({{{"visualizationKey", "W2"}, {"currentSelection", {{"selectionStatus", "unfiltered"}}}}});
  EXPECT_EQ(VizRows(overview_, mid_, "W3").size(),
            Query(std::string("SELECT DISTINCT month_id FROM flat WHERE ") + kRecentYears).size());
}

TEST_P(DashboardFiltersApi, SingleSelectionElementListAndAllOption) {
  Put({{{"key", "W14"},
        {"currentSelection",
         {{"selectionStatus", "included"}, {"elements", {{{"id", ElementId("Channel", "2")}}}}}}}});
  ExpectSameRows(
      VizRows(overview_, mid_, "W6"),
      Expected(std::string("SELECT quarter_id, channel_id, channel_name, sum(units) FROM "
                           "flat WHERE channel_id = 2 AND ") +
                   kRecentYears + " GROUP BY 1, 2, 3 ORDER BY 1, 2",
               3, {1}));
  Put({{{"key", "W14"}, {"currentSelection", {{"allSelected", true}}}}});
  EXPECT_EQ(InstanceDefinition(
                overview_,
                mid_)["chapters"][0]["pages"][0]["selectors"][1]["currentSelection"]["allSelected"],
            true);
}

TEST_P(DashboardFiltersApi, ParameterSelectors) {
  const std::string mid = CreateInstance(regional_);
  const std::string profit_margin = MetricId("Profit Margin");
  auto put = [&](const Json& body) {
    auto response = PutFilters(regional_, mid, body);
    EXPECT_EQ(response.status, 204) << body.dump() << ": " << response.body;
  };
  // The value parameter W12 drives the metric limit of W3, Profit Margin >= the value.
  auto margins_above = [&](const std::string& value) {
    return Expected(
        "SELECT country_id, country_name, sum(revenue), (sum(revenue) - sum(cost)) / "
        "sum(revenue) FROM flat WHERE region_name = 'Western Europe' GROUP BY 1, 2 "
        "HAVING (sum(revenue) - sum(cost)) / sum(revenue) >= " +
            value + " ORDER BY 1",
        2, {0});
  };
  ExpectSameRows(VizRows(regional_, mid, "W3"), margins_above("0.25"));
  put({{{"key", "W10"},
        {"currentSelection",
         {{"selectionStatus", "included"}, {"elements", Elements({"2", "4"})}}}},
       {{"key", "W11"},
        {"currentSelection",
         {{"objectItems", {{{"id", "U" + profit_margin + ";" + profit_margin}}}}}}},
       {{"key", "W12"}, {"currentSelection", {{"values", {0.3}}}}}});
  auto response = GetViz(regional_, mid, "W1");
  ASSERT_EQ(response.status, 200) << response.body;
  const Json body = BodyOf(response);
  EXPECT_EQ(body["definition"]["grid"]["columns"][0]["elements"][0]["id"], profit_margin);
  ExpectSameRows(RowsOfV2(body),
                 Expected("SELECT region_id, region_name, (sum(revenue) - sum(cost)) / "
                          "sum(revenue), sum(revenue) - sum(cost) FROM flat WHERE region_id IN "
                          "(2, 4) GROUP BY 1, 2 ORDER BY 1",
                          2, {0}));
  const Json definition = InstanceDefinition(regional_, mid);
  const Json& filters = definition["chapters"][0]["filters"];
  EXPECT_FALSE(filters[0]["currentSelection"].contains("dynamicSelectionApplied"));
  EXPECT_EQ(filters[2]["currentSelection"]["values"], Json::parse(R"(["0.3"])"));
  ExpectSameRows(VizRows(regional_, mid, "W3"), margins_above("0.3"));
  put({{{"key", "W12"}}});  // cleared: back to the saved 0.25
  ExpectSameRows(VizRows(regional_, mid, "W3"), margins_above("0.25"));
  for (const Json& bad : {Json("abc"), Json("1.5"), Json("2024-01-01")}) {
    auto refused =
        PutFilters(regional_, mid, {{{"key", "W12"}, {"currentSelection", {{"values", {bad}}}}}});
    ExpectError(refused, 400, "ERR006");
  }
  ExpectError(
      PutFilters(regional_, mid, {{{"key", "W10"}, {"currentSelection", {{"allSelected", true}}}}}),
      400, "ERR006");
}

// Every refused body leaves the instance as it was.
TEST_P(DashboardFiltersApi, BadFiltersAreRefusedAndChangeNothing) {
  Put(RegionSelection("included", {"1"}));
  const Json before = InstanceDefinition(overview_, mid_);
  const auto rows_before = VizRows(overview_, mid_, "W5");
  const std::string revenue = MetricId("Revenue");
  const std::string units = MetricId("Units Sold");
  const std::string year = AttributeId("Year");
  auto metric_expression = [&](const std::string& op, const Json& first, Json constants) {
    Json operands = Json::array({first});
    for (auto& constant : constants) operands.push_back(constant);
    return Json{
        {{"key", "W12"},
         {"currentSelection", {{"expression", {{"operator", op}, {"operands", operands}}}}}}};
  };
  const Json real = {{"type", "constant"}, {"dataType", "Real"}, {"value", "5"}};
  const Json metric = {{"type", "metric"}, {"id", revenue}};
  const std::vector<std::pair<std::string, Json>> cases = {
      {"no lookup member", {{{"currentSelection", {{"selectionStatus", "unfiltered"}}}}}},
      {"unknown key", {{{"key", "W404"}, {"selections", Json::array()}}}},
      {"a valid entry then an unknown one",
       {RegionSelection("included", {"2"})[0], {{"key", "W404"}, {"unset", true}}}},
      {"excluded qualification",
       {{{"key", "W11"}, {"currentSelection", {{"selectionStatus", "excluded"}}}}}},
      {"excluded metric qualification",
       {{{"key", "W12"}, {"currentSelection", {{"selectionStatus", "excluded"}}}}}},
      {"dynamicSelectionApplied",
       {{{"key", "W10"}, {"currentSelection", {{"dynamicSelectionApplied", true}}}}}},
      {"two elements on a single selection",
       {{{"key", "W14"},
         {"currentSelection",
          {{"elements",
            {{{"id", ElementId("Channel", "1")}}, {{"id", ElementId("Channel", "2")}}}}}}}}},
      {"two objects on a single selection",
       {{{"key", "W13"},
         {"currentSelection",
          {{"objectItems", {{{"id", revenue}}, {{"id", MetricId("Profit")}}}}}}}}},
      {"object not offered",
       {{{"key", "W13"}, {"currentSelection", {{"objectItems", {{{"id", units}}}}}}}}},
      {"unknown operator", metric_expression("Greatest", metric, {real})},
      {"Between with one constant", metric_expression("Between", metric, {real})},
      {"rank of an attribute",
       metric_expression("Rank.Top", {{"type", "attribute"}, {"id", year}}, {real})},
      {"bad qualifier", {{{"key", "W12"}, {"qualifier", "Betwen"}, {"constants", {"1", "2"}}}}},
      {"old Between with one constant",
       {{{"key", "W12"}, {"qualifier", "Between"}, {"constants", {"1"}}}}},
      {"malformed element id",
       {{{"key", "W10"}, {"currentSelection", {{"elements", {{{"id", "xyz"}}}}}}}}},
      {"element of another attribute",
       {{{"key", "W10"},
         {"currentSelection", {{"elements", {{{"id", ElementId("Year", "2023")}}}}}}}}},
      {"old format on an object replacement", {{{"key", "W13"}, {"selections", Json::array()}}}},
      {"wrong constant type on a form",
       {{{"key", "W11"},
         {"currentSelection",
          {{"expression",
            {{"operator", "Greater"},
             {"operands",
              {{{"type", "form"}, {"attribute", {{"id", year}}}, {"form", {{"id", kIdFormId}}}},
               {{"type", "constant"}, {"dataType", "Real"}, {"value", "abc"}}}}}}}}}}},
      {"(All) without the option",
       {{{"key", "W11"}, {"currentSelection", {{"allSelected", true}}}}}},
      {"a string body", Json("x")},
      {"a number body", Json(5)},
  };
  for (const auto& [what, body] : cases) {
    SCOPED_TRACE(what);
    ExpectError(PutFilters(overview_, mid_, body), 400, "ERR006");
    // The same entries at creation create nothing.
    ExpectError(client().PostJson(Instances(overview_), {{"filters", body}}, Headers()), 400,
                "ERR006");
  }
  ExpectError(
      client().Send("PUT", Instances(overview_) + "/" + mid_ + "/filters", Headers(), "{oops"), 400,
      "ERR006");
  ExpectError(
      PutFilters(overview_, mid_, RegionSelection("included", {"2"}), "?executionMode=SCHEMA"), 400,
      "ERR006");
  ExpectError(PutFilters(overview_, "0123456789ABCDEF0123456789ABCDEF", Json::array()), 404,
              "ERR004");
  EXPECT_TRUE(InstanceDefinition(overview_, mid_) == before) << "the instance changed";
  ExpectSameRows(VizRows(overview_, mid_, "W5"), rows_before);

  // A well-formed element that does not exist is kept and selects nothing.
  Put(RegionSelection("included", {"999999"}));
  EXPECT_TRUE(VizRows(overview_, mid_, "W5").empty());
  // With ignoreMissingFilter the unknown entry is skipped and the others applied.
  Put({RegionSelection("included", {"2"})[0], {{"key", "W404"}, {"unset", true}}},
      "?ignoreMissingFilter=true");
  ExpectSameRows(VizRows(overview_, mid_, "W5"),
                 ProfitByRegion(std::string("region_id = 2 AND ") + kRecentYears));
}

INSTANTIATE_TEST_SUITE_P(Backends, DashboardFiltersApi, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
