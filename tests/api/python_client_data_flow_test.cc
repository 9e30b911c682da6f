// The request sequences of the Python client's report and cube calls, replayed call by call over
// HTTP on the demo project: Report.to_dataframe() with its page-by probes and parallel chunks,
// apply_filters and clear_filters, and OlapCube.to_dataframe(). Every frame is put together as the
// client's parser does and checked against SQL on the demo warehouse.
#include <cmath>
#include <future>
#include <optional>
#include <string>
#include <vector>

#include "api/demo_api.h"
#include "api/grid_rows.h"

namespace tessera::testing {
namespace {

constexpr const char* kClientFields =
    "fields=-data.metricValues.extras,-data.metricValues.formatted";
constexpr int kChunkRows = 7;  // small, so that every frame takes several chunks

// SQL rows whose first `keys` columns are form values (integers written plainly, as the engine
// writes ID forms) and the rest metric values.
std::vector<GridRow> FrameOfSql(const Rows& rows, size_t keys) {
  std::vector<GridRow> frame;
  for (const auto& row : rows) {
    GridRow out;
    for (size_t c = 0; c < row.size(); ++c) {
      if (c >= keys) {
        out.metrics.push_back(row[c] == "<null>" ? std::nullopt
                                                 : std::optional<double>(std::stod(row[c])));
      } else if (c % 2 == 0) {  // the ID form of an (ID, DESC) pair
        out.forms.push_back(std::to_string(static_cast<int64_t>(std::stod(row[c]))));
      } else {
        out.forms.push_back(row[c]);
      }
    }
    frame.push_back(std::move(out));
  }
  return frame;
}

class PythonClientDataFlow : public DemoApi {
 protected:
  std::string MetricId(const std::string& name) const { return ObjectId(model::kTypeMetric, name); }

  // Filter._requested_objects: every attribute chosen without forms carries "forms": [].
  Json RequestedObjects(const std::vector<std::string>& attributes,
                        const std::vector<std::string>& metrics) const {
    Json requested = {{"attributes", Json::array()}, {"metrics", Json::array()}};
    for (const auto& name : attributes) {
      requested["attributes"].push_back({{"id", AttributeId(name)}, {"forms", Json::array()}});
    }
    for (const auto& name : metrics) requested["metrics"].push_back({{"id", MetricId(name)}});
    return requested;
  }

  // Filter: an In or NotIn view filter on "attrId:ID" element ids.
  Json ElementFilter(const std::string& op, const std::string& attribute,
                     const std::vector<int>& ids) const {
    Json elements = Json::array();
    for (int id : ids)
      elements.push_back({{"id", AttributeId(attribute) + ":" + std::to_string(id)}});
    return {{"operator", op},
            {"operands",
             {{{"type", "attribute"}, {"id", AttributeId(attribute)}},
              {{"type", "elements"}, {"elements", elements}}}}};
  }

  // The first chunk: POST .../instances with the client's paging and fields. `kind` is
  // "reports/" ... "/instances/" (trailing slash, as report_instance sends it) or "cubes".
  Json CreateInstance(const std::string& path, const Json& body) {
    auto response = client().Send(
        "POST", path + "?offset=0&limit=" + std::to_string(kChunkRows) + "&" + kClientFields,
        Headers(), body.dump());
    EXPECT_EQ(response.status, 200) << path << ": " << response.body;
    return response.status == 200 ? BodyOf(response) : Json::object();
  }

  // The remaining chunks, fetched on parallel connections as the client's threads do, then
  // parsed page by page and concatenated in offset order.
  std::vector<GridRow> ReadFrame(const std::string& instance_path, const Json& first) {
    const Json& paging = first["data"]["paging"];
    EXPECT_EQ(paging["limit"], kChunkRows);
    const size_t total = paging["total"];
    std::vector<std::future<Json>> chunks;
    for (size_t offset = paging["current"].get<size_t>(); offset < total; offset += kChunkRows) {
      chunks.push_back(std::async(std::launch::async, [this, instance_path, offset] {
        ApiClient own(port());
        auto response = own.Get(instance_path + "?offset=" + std::to_string(offset) +
                                    "&limit=" + std::to_string(kChunkRows) + "&" + kClientFields,
                                Headers());
        EXPECT_EQ(response.status, 200) << response.body;
        return response.status == 200 ? BodyOf(response) : Json::object();
      }));
    }
    std::vector<GridRow> frame = RowsOfV2(first);
    size_t offset = frame.size();
    for (auto& chunk : chunks) {
      Json page = chunk.get();
      EXPECT_EQ(page["data"]["paging"]["offset"], offset);
      EXPECT_EQ(page["data"]["paging"]["current"], std::min<size_t>(kChunkRows, total - offset));
      for (auto& row : RowsOfV2(page)) frame.push_back(std::move(row));
      offset += kChunkRows;
    }
    EXPECT_EQ(frame.size(), total);
    return frame;
  }

  // Region and Category (ID, DESC) with revenue and cost, in ID order, `where` on order lines.
  std::vector<GridRow> RegionCategoryFrame(const std::string& where = "") {
    return FrameOfSql(Query("SELECT region_id, region_name, category_id, category_name, "
                            "sum(revenue), sum(cost) FROM flat " +
                            where +
                            " GROUP BY region_id, region_name, category_id, category_name "
                            "ORDER BY region_id, category_id"),
                      4);
  }
};

TEST_P(PythonClientDataFlow, ReportToDataframeReadsTheFirstChunkThenTheRestInParallel) {
  const std::string report = ReportId("Profit by Region and Category");
  // Report._get_definition.
  Json definition = GetJson("/api/v2/reports/" + report);
  const Json& grid = definition["definition"]["grid"];
  ASSERT_TRUE(definition["definition"]["availableObjects"]["consolidations"].is_array());
  EXPECT_TRUE(definition["definition"]["availableObjects"]["consolidations"].empty());
  const Json& position = grid["metricsPosition"];
  std::vector<std::string> metric_names;
  for (const auto& metric :
       grid[position["axis"].get<std::string>()][position["index"].get<size_t>()]["elements"]) {
    metric_names.push_back(metric["name"]);
  }
  EXPECT_EQ(metric_names, (std::vector<std::string>{"Revenue", "Cost", "Profit", "Profit Margin"}));

  // __initialize_report: every template object, subtotals hidden.
  Json body = {
      {"requestedObjects",
       RequestedObjects({"Region", "Category"}, {"Revenue", "Cost", "Profit", "Profit Margin"})},
      {"subtotals", {{"visible", false}}}};
  Json first = CreateInstance("/api/v2/reports/" + report + "/instances/", body);
  EXPECT_NE(first["status"], 2);  // 2 would be "unanswered prompts"
  const std::string instance = first["instanceId"];
  const std::string instance_path = "/api/v2/reports/" + report + "/instances/" + instance;

  // get_valid_page_by_elements, twice per to_dataframe().
  for (int probe = 0; probe < 2; ++probe) {
    Json page_by = GetJson(instance_path + "/pageBy/elements");
    EXPECT_EQ(page_by["pageBy"], Json::array());
    EXPECT_EQ(page_by["validPageByElements"]["items"], Json::array());
  }

  std::vector<GridRow> frame = ReadFrame(instance_path, first);
  std::vector<GridRow> expected = FrameOfSql(
      Query("SELECT region_id, region_name, category_id, category_name, sum(revenue), sum(cost), "
            "sum(revenue) - sum(cost), (sum(revenue) - sum(cost)) / sum(revenue) FROM flat "
            "GROUP BY region_id, region_name, category_id, "
            "category_name ORDER BY region_id, category_id"),
      4);
  ASSERT_GT(expected.size(), 3u * kChunkRows);
  ExpectSameRows(frame, expected);

  // A second to_dataframe() with unchanged filters reads the instance again.
  auto again = client().Get(
      instance_path + "?offset=0&limit=" + std::to_string(kChunkRows) + "&" + kClientFields,
      Headers());
  ASSERT_EQ(again.status, 200) << again.body;
  ExpectSameRows(RowsOfV2(BodyOf(again)),
                 std::vector<GridRow>(expected.begin(), expected.begin() + kChunkRows));
}

TEST_P(PythonClientDataFlow, ApplyFiltersAggregatesToTheObjectsLeftAndFiltersElements) {
  const std::string report = ReportId("Profit by Region and Category");
  const std::string instances = "/api/v2/reports/" + report + "/instances/";
  // apply_filters(attributes=[Category], metrics=[Cost, Revenue] from a set, attr_elements on
  // Region): Region is left out of the grid yet still filters; metrics keep the template order.
  Json body = {{"requestedObjects", RequestedObjects({"Category"}, {"Cost", "Revenue"})},
               {"viewFilter", ElementFilter("In", "Region", {1, 3})},
               {"subtotals", {{"visible", false}}}};
  Json first = CreateInstance(instances, body);
  std::vector<GridRow> frame = ReadFrame(instances + first["instanceId"].get<std::string>(), first);
  ExpectSameRows(frame,
                 FrameOfSql(Query("SELECT category_id, category_name, sum(revenue), sum(cost) "
                                  "FROM flat WHERE region_id IN (1, 3) GROUP BY category_id, "
                                  "category_name ORDER BY category_id"),
                            2));

  // operator="NotIn" on both attributes of the grid.
  body["requestedObjects"] = RequestedObjects({"Region", "Category"}, {"Revenue", "Cost"});
  body["viewFilter"] = {
      {"operator", "And"},
      {"operands",
       {ElementFilter("NotIn", "Region", {2}), ElementFilter("NotIn", "Category", {1, 4})}}};
  first = CreateInstance(instances, body);
  frame = ReadFrame(instances + first["instanceId"].get<std::string>(), first);
  ExpectSameRows(frame, RegionCategoryFrame("WHERE region_id <> 2 AND category_id NOT IN (1, 4)"));

  // clear_filters(): every template object again and no view filter.
  body = {{"requestedObjects", RequestedObjects({"Region", "Category"}, {"Revenue", "Cost"})},
          {"subtotals", {{"visible", false}}}};
  first = CreateInstance(instances, body);
  ExpectSameRows(ReadFrame(instances + first["instanceId"].get<std::string>(), first),
                 RegionCategoryFrame());

  // An element id of another attribute, or one that is not an element id at all, is refused.
  Json wrong = body;
  wrong["viewFilter"] = ElementFilter("In", "Region", {1});
  wrong["viewFilter"]["operands"][1]["elements"][0]["id"] = AttributeId("Category") + ":1";
  ExpectError(client().Send("POST", instances, Headers(), wrong.dump()), 400, "ERR006");
  wrong["viewFilter"]["operands"][1]["elements"][0]["id"] = "not an element";
  ExpectError(client().Send("POST", instances, Headers(), wrong.dump()), 400, "ERR006");
}

TEST_P(PythonClientDataFlow, OlapCubeToDataframeReadsThePublishedCube) {
  const std::string cube = ReportId("Sales Cube");
  PublishAndWait(cube);
  // OlapCube(...): the object, the definition, the (empty) table map of a cube that is no push
  // dataset.
  Json object = GetJson("/api/objects/" + cube + "?type=3");
  EXPECT_EQ(object["subtype"], 776);
  EXPECT_EQ(object["extType"], 0);
  Json definition = GetJson("/api/v2/cubes/" + cube);
  std::vector<std::string> attributes;
  for (const auto& attribute : definition["definition"]["availableObjects"]["attributes"]) {
    attributes.push_back(attribute["name"]);
  }
  EXPECT_EQ(attributes.size(), 9u);
  Json tables = GetJson("/api/datasets/" + cube + "?fields=tables&fields=columns");
  EXPECT_EQ(tables["result"]["definition"]["availableObjects"]["tables"], Json::array());
  EXPECT_EQ(tables["result"]["definition"]["availableObjects"]["columns"], Json::array());

  // apply_filters then to_dataframe: two attributes, one metric, 2023 only.
  Json body = {{"requestedObjects", RequestedObjects({"Channel", "Country"}, {"Units Sold"})},
               {"viewFilter", ElementFilter("In", "Year", {2023})}};
  Json first = CreateInstance("/api/v2/cubes/" + cube + "/instances", body);
  const std::string instance_path =
      "/api/v2/cubes/" + cube + "/instances/" + first["instanceId"].get<std::string>();
  // The cube's order: Country before Channel.
  EXPECT_EQ(first["definition"]["grid"]["rows"][0]["name"], "Country");
  ExpectSameRows(ReadFrame(instance_path, first),
                 FrameOfSql(Query("SELECT country_id, country_name, channel_id, channel_name, "
                                  "sum(units) FROM flat WHERE year_id = 2023 GROUP BY country_id, "
                                  "country_name, channel_id, channel_name "
                                  "ORDER BY country_id, channel_id"),
                            4));

  // clear_filters() on a cube: every metric and no attribute, one total row.
  Json metrics = Json::array();
  for (const auto& metric : definition["definition"]["availableObjects"]["metrics"]) {
    metrics.push_back({{"id", metric["id"]}});
  }
  Json total =
      CreateInstance("/api/v2/cubes/" + cube + "/instances",
                     {{"requestedObjects", {{"attributes", Json::array()}, {"metrics", metrics}}}});
  ASSERT_EQ(total["data"]["paging"]["total"], 1);
  std::vector<GridRow> row = RowsOfV2(total);
  Rows expected = Query(
      "SELECT sum(revenue), sum(cost), sum(revenue) - sum(cost), sum(units), "
      "count(DISTINCT customer_id), count(*) FROM flat");
  ASSERT_EQ(row[0].metrics.size(), expected[0].size());
  for (size_t m = 0; m < expected[0].size(); ++m) {
    EXPECT_TRUE(Near(row[0].metrics[m], std::stod(expected[0][m]))) << "metric " << m;
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, PythonClientDataFlow, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
