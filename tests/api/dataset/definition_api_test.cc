// Report and cube definitions, cube info, status and publish, attribute elements and dataset
// definitions, on the demo project over the demo warehouse, spoken to as the Python client does.
#include <chrono>
#include <cmath>
#include <ctime>
#include <map>
#include <regex>
#include <set>

#include "api/demo_api.h"
#include "core/ids.h"
#include "engine/demo_fixture.h"
#include "model/object_types.h"
#include "model/well_known.h"
#include "support/wait.h"

namespace tessera::testing {
namespace {

class DefinitionApi : public DemoApi {
 protected:
  // Every element of `path` (.../attributes/{id}/elements), fetched in pages of `page_size`,
  // as form values; checks each page's total and each element's id along the way.
  Rows AllElements(const std::string& path, const std::string& attribute_id, int page_size) {
    Rows elements;
    int64_t total = -1;
    for (int offset = 0; total < 0 || offset < total; offset += page_size) {
      auto response =
          Get(path + "?offset=" + std::to_string(offset) + "&limit=" + std::to_string(page_size));
      EXPECT_EQ(response.status, 200) << response.body;
      auto header = response.headers.Get("X-MSTR-Total-Count");
      if (response.status != 200 || !header) {
        ADD_FAILURE() << "no X-MSTR-Total-Count on " << path;
        return elements;
      }
      const int64_t page_total = std::stoll(std::string(*header));
      if (total >= 0) {
        EXPECT_EQ(page_total, total) << "the total changed between pages";
      }
      total = page_total;
      Json page = BodyOf(response);
      EXPECT_EQ(static_cast<int64_t>(page.size()), std::min<int64_t>(page_size, total - offset));
      for (const auto& element : page) {
        auto values = element["formValues"].get<std::vector<std::string>>();
        EXPECT_EQ(element["id"], attribute_id + ":" + values.front());
        elements.push_back(std::move(values));
      }
      if (page.empty()) break;
    }
    return elements;
  }
};

std::vector<std::string> IdsOf(const Json& objects) {
  std::vector<std::string> ids;
  for (const auto& object : objects) ids.push_back(object["id"].get<std::string>());
  return ids;
}

std::vector<std::string> NamesOf(const Json& objects) {
  std::vector<std::string> names;
  for (const auto& object : objects) names.push_back(object["name"].get<std::string>());
  return names;
}

// Seconds between `text`, read as UTC in `format` (strptime), and now.
double SecondsFromNow(const std::string& text, const char* format) {
  std::tm parts{};
  const char* end = strptime(text.c_str(), format, &parts);
  if (end == nullptr || *end != '\0') return 1e9;
  const auto at = std::chrono::system_clock::from_time_t(timegm(&parts));
  return std::abs(std::chrono::duration<double>(std::chrono::system_clock::now() - at).count());
}

TEST_P(DefinitionApi, AReportDefinitionListsExactlyItsTemplateWithEveryKeyThePythonClientReads) {
  ASSERT_FALSE(model().reports().empty());
  for (const auto& [id, report] : model().reports()) {
    SCOPED_TRACE(report.name);
    Json body = GetJson("/api/v2/reports/" + id);
    EXPECT_EQ(body["id"], id);
    EXPECT_EQ(body["name"], report.name);
    const Json& grid = body["definition"]["grid"];
    EXPECT_EQ(grid["crossTab"], false);
    EXPECT_TRUE(grid["subtotals"].is_object());
    EXPECT_EQ(grid["pageBy"], Json::array());
    EXPECT_EQ(IdsOf(grid["rows"]), report.attribute_ids);
    for (const auto& row : grid["rows"]) EXPECT_EQ(row["type"], "attribute");
    // PY: the metrics are grid[metricsPosition.axis][metricsPosition.index].elements
    const Json& position = grid["metricsPosition"];
    const Json& metrics = grid[position["axis"].get<std::string>()][position["index"].get<int>()];
    EXPECT_EQ(metrics["type"], "templateMetrics");
    EXPECT_EQ(IdsOf(metrics["elements"]), report.metric_ids);
    const Json& available = body["definition"]["availableObjects"];
    EXPECT_EQ(available["consolidations"], Json::array());  // PY refuses a report otherwise
    EXPECT_EQ(IdsOf(available["attributes"]), report.attribute_ids);
    EXPECT_EQ(IdsOf(available["metrics"]), report.metric_ids);
  }
}

TEST_P(DefinitionApi, NamesInDefinitionsAreThoseOfTheObjectsThemselves) {
  Json grid =
      GetJson("/api/v2/reports/" + ReportId("Profit by Region and Category"))["definition"]["grid"];
  for (const auto& attribute : grid["rows"]) {
    Json object = GetJson("/api/objects/" + attribute["id"].get<std::string>() + "?type=12");
    EXPECT_EQ(attribute["name"], object["name"]);
  }
  for (const auto& metric : grid["columns"][0]["elements"]) {
    Json object = GetJson("/api/objects/" + metric["id"].get<std::string>() + "?type=4");
    EXPECT_EQ(metric["name"], object["name"]);
  }
}

TEST_P(DefinitionApi, FormsCarryTheWellKnownIdsAndTheirLookupColumnsTypes) {
  Json cube = GetJson("/api/v2/cubes/" + ReportId("Sales Cube"));
  std::map<std::string, Json> by_name;
  for (const auto& attribute : cube["definition"]["availableObjects"]["attributes"]) {
    by_name[attribute["name"].get<std::string>()] = attribute;
    ASSERT_FALSE(attribute["forms"].empty());
    EXPECT_EQ(attribute["forms"][0]["id"], kIdFormId);
    EXPECT_EQ(attribute["forms"][0]["baseFormCategory"], "ID");
    EXPECT_EQ(attribute["forms"].size(),
              model().attribute(attribute["id"].get<std::string>()).forms.size());
  }
  const Json& region = by_name["Region"]["forms"];  // region_id integer, region_name string
  EXPECT_EQ(region[0]["dataType"], "integer");
  EXPECT_EQ(region[0]["baseFormType"], "number");
  EXPECT_EQ(region[1]["id"], kDescFormId);
  EXPECT_EQ(region[1]["dataType"], "UTF8Char");
  EXPECT_EQ(region[1]["baseFormType"], "text");
  const Json& month = by_name["Month"]["forms"];  // month_id is a string 'YYYY-MM'
  EXPECT_EQ(month[0]["dataType"], "UTF8Char");

  Json v1 = GetJson("/api/cubes/" + ReportId("Sales Cube"));
  for (const auto& attribute : v1["result"]["definition"]["availableObjects"]["attributes"]) {
    EXPECT_EQ(attribute["type"], "Attribute");
    if (attribute["name"] != "Region") continue;
    EXPECT_EQ(attribute["forms"][0]["dataType"], "Real");
    EXPECT_EQ(attribute["forms"][0]["baseFormType"], "Number");
    EXPECT_EQ(attribute["forms"][1]["dataType"], "Char");
  }
}

TEST_P(DefinitionApi, CubeDefinitionsListEveryObjectOfTheCube) {
  ASSERT_FALSE(model().cubes().empty());
  for (const auto& [id, cube] : model().cubes()) {
    SCOPED_TRACE(cube.name);
    Json v2 = GetJson("/api/v2/cubes/" + id);
    EXPECT_EQ(v2["name"], cube.name);
    const Json& available = v2["definition"]["availableObjects"];
    EXPECT_EQ(IdsOf(available["attributes"]), cube.attribute_ids);
    EXPECT_EQ(IdsOf(available["metrics"]), cube.metric_ids);
    for (const char* key : {"customGroups", "consolidations", "hierarchies"}) {
      EXPECT_EQ(available[key], Json::array()) << key;
    }
    Json v1 = GetJson("/api/cubes/" + id);
    const Json& v1_available = v1["result"]["definition"]["availableObjects"];
    EXPECT_EQ(IdsOf(v1_available["attributes"]), cube.attribute_ids);
    EXPECT_EQ(NamesOf(v1_available["metrics"]), NamesOf(available["metrics"]));
    for (const auto& metric : v1_available["metrics"]) EXPECT_EQ(metric["type"], "Metric");
  }
}

TEST_P(DefinitionApi, TheV1ReportDefinitionListsTheReportsObjects) {
  const std::string id = ReportId("Western Europe by Country");
  Json body = GetJson("/api/reports/" + id);
  const Json& available = body["result"]["definition"]["availableObjects"];
  EXPECT_EQ(IdsOf(available["attributes"]), model().report(id).attribute_ids);
  EXPECT_EQ(IdsOf(available["metrics"]), model().report(id).metric_ids);
}

TEST_P(DefinitionApi, TheGeneralFieldsRuleTrimsDefinitionsButNeverErrors) {
  const std::string id = ReportId("Revenue by Year");
  Json trimmed = GetJson("/api/v2/reports/" + id + "?fields=id,name");
  EXPECT_EQ(trimmed, Json({{"id", id}, {"name", "Revenue by Year"}}));
  ExpectError(Get("/api/v2/reports/" + id + "?fields=definition.grid"), 400, "ERR006");
  ExpectError(Get("/api/v2/reports/" + NewObjectId() + "?fields=id"), 404, "ERR004");
}

TEST_P(DefinitionApi, WarehouseReportElementsAreTheLookupTablesElementsInIdOrder) {
  const std::string report = ReportId("Profit by Region and Category");
  for (const auto& [attribute, sql] : std::vector<std::pair<std::string, std::string>>{
           {"Region", "SELECT region_id, region_name FROM lu_region ORDER BY region_id"},
           {"Category",
            "SELECT category_id, category_name FROM lu_category ORDER BY category_id"}}) {
    SCOPED_TRACE(attribute);
    const std::string attribute_id = AttributeId(attribute);
    Rows expected = Query(sql);
    ASSERT_FALSE(expected.empty());
    EXPECT_EQ(AllElements("/api/reports/" + report + "/attributes/" + attribute_id + "/elements",
                          attribute_id, 1000),
              expected);
  }
}

TEST_P(DefinitionApi, PagingReturnsEveryElementOnceWhateverThePageSize) {
  const std::string report = ReportId("Electronics and Apparel by Month");
  const std::string month = AttributeId("Month");
  const std::string path = "/api/reports/" + report + "/attributes/" + month + "/elements";
  Rows expected = Query("SELECT month_id, month_name FROM lu_month ORDER BY month_id");
  for (int page_size : {1, 7, static_cast<int>(expected.size()) + 5}) {
    SCOPED_TRACE(page_size);
    Rows all = AllElements(path, month, page_size);
    EXPECT_EQ(all, expected);
    EXPECT_EQ(std::set<Rows::value_type>(all.begin(), all.end()).size(), all.size());
  }
  auto beyond = Get(path + "?offset=" + std::to_string(expected.size() + 3) + "&limit=10");
  ASSERT_EQ(beyond.status, 200);
  EXPECT_EQ(BodyOf(beyond), Json::array());
  EXPECT_EQ(beyond.headers.Get("X-MSTR-Total-Count"), std::to_string(expected.size()));
  auto unpaged = Get(path);  // no offset or limit: everything
  EXPECT_EQ(BodyOf(unpaged).size(), expected.size());
}

TEST_P(DefinitionApi, CubeElementsNeedAPublishAndThenComeFromThePublishedData) {
  const std::string cube = ReportId("Sales Cube");
  const std::string channel = AttributeId("Channel");
  const std::string path = "/api/cubes/" + cube + "/attributes/" + channel + "/elements";
  auto before = Get(path);
  ExpectError(before, 500, "ERR002");
  EXPECT_EQ(BodyOf(before)["iServerCode"], kCubeNotPublishedIServerCode);
  const std::string message = BodyOf(before)["message"];
  EXPECT_NE(message.find("not published"), std::string::npos) << message;
  EXPECT_NE(message.find("POST /api/v2/cubes/" + cube), std::string::npos) << message;

  PublishAndWait(cube);
  EXPECT_EQ(AllElements(path, channel, 2),
            Query("SELECT DISTINCT channel_id, channel_name FROM flat ORDER BY channel_id"));
  const std::string country = AttributeId("Country");
  EXPECT_EQ(AllElements("/api/cubes/" + cube + "/attributes/" + country + "/elements", country, 9),
            Query("SELECT DISTINCT country_id, country_name FROM flat ORDER BY country_id"));
}

TEST_P(DefinitionApi, APublishJobCanBeFollowedInTheJobMonitor) {
  const std::string cube = ReportId("Sales Cube");
  auto started = client().Send("POST", "/api/v2/cubes/" + cube, Headers());
  ASSERT_EQ(started.status, 202) << started.body;
  const std::string job_id = BodyOf(started)["id"];
  const std::string path = "/api/v2/monitors/jobs/" + job_id;
  http::Response response;
  Json job;
  ASSERT_TRUE(WaitUntil(
      [&] {
        response = client().Get(path, AuthHeaders(token()));  // no project header, as the client
        job = response.status == 200 ? BodyOf(response) : Json();
        return job["status"] != "executing";
      },
      std::chrono::minutes(2), "job " + job_id + " was no longer executing"))
      << job;
  ASSERT_EQ(response.status, 200) << response.body;
  ASSERT_EQ(job["status"], "completed") << job;
  EXPECT_EQ(job["id"], job_id);
  EXPECT_EQ(job["objectId"], cube);
  EXPECT_EQ(job["objectName"], "Sales Cube");
  EXPECT_EQ(job["objectType"], "cube");
  EXPECT_EQ(job["projectName"], "Tutorial");
  EXPECT_EQ(CubeStatus(cube), kPublishedStatus);
  ExpectError(client().Get("/api/v2/monitors/jobs/12:nope", AuthHeaders(token())), 404, "ERR004");
}

TEST_P(DefinitionApi, AReportOnACubeListsTheCubesElements) {
  const std::string report = ReportId("Quarterly Sales by Channel");
  const std::string quarter = AttributeId("Quarter");
  const std::string path = "/api/reports/" + report + "/attributes/" + quarter + "/elements";
  ExpectError(Get(path), 500, "ERR002");
  PublishAndWait(ReportId("Sales Cube"));
  EXPECT_EQ(AllElements(path, quarter, 5),
            Query("SELECT DISTINCT quarter_id FROM flat ORDER BY quarter_id"));
}

TEST_P(DefinitionApi, CubeStatusAndInfoFollowThePublish) {
  const std::string cube = ReportId("Item Sales Cube");
  EXPECT_EQ(CubeStatus(cube), 0);
  Json before = GetJson("/api/cubes/?id=" + cube);  // PY's spelling, trailing slash
  ASSERT_EQ(before["cubesInfos"].size(), 1u);
  EXPECT_EQ(before["cubesInfos"][0]["status"], 0);
  EXPECT_EQ(before["cubesInfos"][0]["size"], 0);

  PublishAndWait(cube);
  Json after = GetJson("/api/cubes?id=" + cube + "&id=" + NewObjectId());
  ASSERT_EQ(after["cubesInfos"].size(), 1u) << "an unknown id is left out";
  const Json& info = after["cubesInfos"][0];
  EXPECT_EQ(info["cubeId"], cube);
  EXPECT_EQ(info["cubeName"], "Item Sales Cube");
  EXPECT_EQ(info["ownerId"], kAdministratorId);
  EXPECT_EQ(info["status"], kPublishedStatus);
  EXPECT_GT(info["size"].get<int64_t>(), 0);
  EXPECT_EQ(info["serverMode"], 1);
  const std::string path = info["path"].get<std::string>();
  EXPECT_EQ(path.substr(path.rfind('\\') + 1), "Item Sales Cube");
  const std::string updated = info["lastUpdateTime"].get<std::string>();
  EXPECT_TRUE(std::regex_match(updated, std::regex(R"(\d\d/\d\d/\d{4} \d\d:\d\d:\d\d)")))
      << updated;
  EXPECT_LT(SecondsFromNow(updated, "%m/%d/%Y %H:%M:%S"), 600) << updated;
  EXPECT_TRUE(std::regex_match(info["modificationTime"].get<std::string>(),
                               std::regex(R"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)")));
}

TEST_P(DefinitionApi, CubeInfoListsSeveralCubesAndLeavesOutWhatIsNoCube) {
  const std::string sales = ReportId("Sales Cube");
  const std::string items = ReportId("Item Sales Cube");
  const std::string report = ReportId("Revenue by Year");
  Json body = GetJson("/api/cubes?id=" + sales + "&id=" + report + "&id=" + items);
  std::vector<std::string> ids;
  for (const auto& info : body["cubesInfos"]) ids.push_back(info["cubeId"].get<std::string>());
  EXPECT_EQ(ids, (std::vector<std::string>{sales, items}));
}

TEST_P(DefinitionApi, DatasetDefinitionSelectsTheObjectTypesAsked) {
  const std::string cube = ReportId("Sales Cube");
  // PY: fields=tables&fields=columns; a model cube has no tables of its own
  Json tables = GetJson("/api/datasets/" + cube + "?fields=tables&fields=columns");
  EXPECT_EQ(tables["id"], cube);
  EXPECT_EQ(tables["result"]["definition"]["availableObjects"],
            Json({{"tables", Json::array()}, {"columns", Json::array()}}));

  Json objects = GetJson("/api/dataset/" + cube + "?fields=attributes%2Cmetrics");
  const Json& available = objects["result"]["definition"]["availableObjects"];
  EXPECT_EQ(IdsOf(available["attributes"]), model().cube(cube).attribute_ids);
  EXPECT_EQ(IdsOf(available["metrics"]), model().cube(cube).metric_ids);
  EXPECT_FALSE(available.contains("tables"));

  Json plain = GetJson("/api/datasets/" + cube);
  EXPECT_EQ(plain["result"]["definition"]["availableObjects"], available);

  auto unknown = Get("/api/datasets/" + cube + "?fields=tables,rows");
  ExpectError(unknown, 400, "ERR006");
  EXPECT_NE(BodyOf(unknown)["message"].get<std::string>().find("rows"), std::string::npos);
}

TEST_P(DefinitionApi, ReportsAndCubesAreObjectsThePythonClientAccepts) {
  for (const auto& [id, report] : model().reports()) {
    Json info = GetJson("/api/objects/" + id + "?type=3&comments=true");
    EXPECT_EQ(info["subtype"], 768) << report.name;
    EXPECT_EQ(info["extType"], 0) << report.name;
  }
  for (const auto& [id, cube] : model().cubes()) {
    Json info = GetJson("/api/objects/" + id + "?type=3&comments=true");
    EXPECT_EQ(info["subtype"], 776) << cube.name;
    EXPECT_EQ(info["extType"], 0) << cube.name;
  }
}

TEST_P(DefinitionApi, UnknownIdsAreNotFound) {
  const std::string unknown = NewObjectId();
  const std::string region = AttributeId("Region");
  for (const std::string& target :
       {"/api/v2/reports/" + unknown, "/api/reports/" + unknown, "/api/cubes/" + unknown,
        "/api/v2/cubes/" + unknown, "/api/datasets/" + unknown,
        "/api/reports/" + unknown + "/attributes/" + region + "/elements",
        "/api/cubes/" + unknown + "/attributes/" + region + "/elements"}) {
    ExpectError(Get(target), 404, "ERR004");
  }
  ExpectError(client().Send("POST", "/api/v2/cubes/" + unknown, Headers()), 404, "ERR004");
  EXPECT_EQ(client().Send("HEAD", "/api/cubes/" + unknown, Headers()).status, 404);
  // a report is not a cube, nor a cube a report
  ExpectError(Get("/api/v2/cubes/" + ReportId("Revenue by Year")), 404, "ERR004");
  ExpectError(Get("/api/v2/reports/" + ReportId("Sales Cube")), 404, "ERR004");
}

TEST_P(DefinitionApi, MalformedIdsAreInvalidInput) {
  const std::string report = ReportId("Revenue by Year");
  for (const std::string& target :
       {std::string("/api/v2/reports/not-an-id"), std::string("/api/cubes/12345"),
        std::string("/api/datasets/XYZ"), "/api/cubes?id=" + report.substr(1),
        "/api/reports/" + report + "/attributes/nope/elements"}) {
    ExpectError(Get(target), 400, "ERR006");
  }
  ExpectError(client().Send("POST", "/api/v2/cubes/abc", Headers()), 400, "ERR006");
  ExpectError(Get("/api/cubes"), 400, "ERR005");  // no id at all
}

TEST_P(DefinitionApi, ElementRequestsRefuseBadPagesAndForeignAttributes) {
  const std::string report = ReportId("Profit by Region and Category");
  const std::string base = "/api/reports/" + report + "/attributes/";
  const std::string region = base + AttributeId("Region") + "/elements";
  for (const char* query : {"?offset=-1", "?limit=-2", "?limit=abc", "?offset=1.5"}) {
    ExpectError(Get(region + query), 400, "ERR006");
  }
  // City is an attribute of the project but not of this report
  ExpectError(Get(base + AttributeId("City") + "/elements"), 404, "ERR004");
  ExpectError(Get(base + NewObjectId() + "/elements"), 404, "ERR004");
}

INSTANTIATE_TEST_SUITE_P(Backends, DefinitionApi, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
