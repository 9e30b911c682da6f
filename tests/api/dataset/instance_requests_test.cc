// The bodies of report and cube instance calls read into typed requests: requested objects,
// sorting in its v2 and v1 shapes, and the refusals that name what is wrong before any report is
// looked at.
#include "api/dataset/instance_requests.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.h"

namespace tessera::api {
namespace {

using service::instance::SortItem;

// The message of the Error(kInvalidInput) that parsing `body` throws ("" when it throws none).
std::string RefusalOf(const Json& body) {
  try {
    dataset::ParseInstanceRequest(body);
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kInvalidInput) << error.message();
    return std::string(error.message());
  }
  return "";
}

TEST(InstanceRequests, ANullBodyAsksForEveryObjectInTheDefaultOrder) {
  const service::instance::InstanceRequest request = dataset::ParseInstanceRequest(Json());
  EXPECT_FALSE(request.requested_objects);
  EXPECT_TRUE(request.view_filter.is_null());
  EXPECT_TRUE(request.metric_limits.is_null());
  EXPECT_FALSE(request.sorting);
  EXPECT_FALSE(request.subtotals_visible);
}

TEST(InstanceRequests, RequestedObjectsKeepTheFirstRequestOfAnAttribute) {
  const service::instance::InstanceRequest request = dataset::ParseInstanceRequest(Json::parse(R"({
      "requestedObjects": {
        "attributes": [{"id": "8d679d3711d3e4981000e787ec6de8a4", "forms": [{"id": "DESC"}]},
                       {"id": "8D679D3711D3E4981000E787EC6DE8A4", "forms": 5},
                       {"id": "8D679D4F11D3E4981000E787EC6DE8A4", "forms": null}],
        "metrics": [{"id": "4c05177011d3e877c000b3b2d86c964f"}]},
      "subtotals": {"visible": true}})"));
  ASSERT_TRUE(request.requested_objects);
  const auto& attributes = request.requested_objects->attributes;
  ASSERT_EQ(attributes.size(), 2u);
  EXPECT_EQ(attributes[0].id, "8D679D3711D3E4981000E787EC6DE8A4");
  EXPECT_EQ(attributes[0].forms, std::vector<std::string>{"DESC"});
  EXPECT_EQ(attributes[1].id, "8D679D4F11D3E4981000E787EC6DE8A4");
  EXPECT_TRUE(attributes[1].forms.empty());
  EXPECT_EQ(request.requested_objects->metric_ids,
            std::vector<std::string>{"4C05177011D3E877C000B3B2D86C964F"});
  EXPECT_TRUE(request.subtotals_visible);
}

TEST(InstanceRequests, NullOrEmptyRequestedObjectsAskForNone) {
  for (const char* body : {R"({"requestedObjects": null})", R"({"requestedObjects": {}})",
                           R"({"requestedObjects": {"attributes": [], "metrics": null}})"}) {
    const service::instance::InstanceRequest request =
        dataset::ParseInstanceRequest(Json::parse(body));
    ASSERT_TRUE(request.requested_objects) << body;
    EXPECT_TRUE(request.requested_objects->attributes.empty()) << body;
    EXPECT_TRUE(request.requested_objects->metric_ids.empty()) << body;
  }
}

TEST(InstanceRequests, AV2SortingTypesEveryRowItem) {
  const service::instance::InstanceRequest request =
      dataset::ParseInstanceRequest(Json::parse(R"({"sorting": {
      "rows": [{"type": "subtotalsPosition", "subtotalsPosition": "last"},
               {"type": "form", "attribute": {"id": "a1"}, "form": {"id": "DESC"},
                "order": "DESCENDING"},
               {"type": "attribute", "attribute": {"id": "a2"}},
               {"type": "metric", "metric": {"id": "m1"}, "order": "ascending",
                "subtotalsPosition": "mixed"}],
      "columns": [{"type": "subtotalsPosition", "subtotalsPosition": "first"}],
      "pageBy": []}})"));
  ASSERT_TRUE(request.sorting);
  const std::vector<SortItem>& rows = request.sorting->rows;
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].kind, SortItem::Kind::kSubtotalsPosition);
  EXPECT_EQ(rows[0].subtotals_position, "last");
  EXPECT_EQ(rows[1].kind, SortItem::Kind::kForm);
  EXPECT_EQ(rows[1].attribute_id, "A1");
  EXPECT_EQ(rows[1].form, "DESC");
  EXPECT_TRUE(rows[1].descending);
  EXPECT_EQ(rows[2].kind, SortItem::Kind::kAttribute);
  EXPECT_EQ(rows[2].attribute_id, "A2");
  EXPECT_EQ(rows[3].kind, SortItem::Kind::kMetric);
  EXPECT_EQ(rows[3].metric_id, "M1");
  EXPECT_FALSE(rows[3].descending);
  EXPECT_EQ(request.sorting->columns,
            Json::parse(R"([{"type": "subtotalsPosition", "subtotalsPosition": "first"}])"));
}

TEST(InstanceRequests, AV1SortingIsAnArrayOfRowItemsTypedByTheirMembers) {
  const service::instance::InstanceRequest request =
      dataset::ParseInstanceRequest(Json::parse(R"({"sorting": [
      {"metric": {"id": "m1"}, "order": "descending"},
      {"attribute": {"id": "a1"}, "form": {"id": "ID"}},
      {"attribute": {"id": "a2"}}]})"));
  ASSERT_TRUE(request.sorting);
  const std::vector<SortItem>& rows = request.sorting->rows;
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].kind, SortItem::Kind::kMetric);
  EXPECT_TRUE(rows[0].descending);
  EXPECT_EQ(rows[1].kind, SortItem::Kind::kForm);
  EXPECT_EQ(rows[2].kind, SortItem::Kind::kAttribute);
  EXPECT_EQ(request.sorting->columns, Json::array());
}

TEST(InstanceRequests, AMalformedSortingIsRefusedNamingTheItem) {
  const std::vector<std::pair<const char*, std::string>> cases = {
      {R"({"sorting": "rows"})",
       "sorting must be an object {\"rows\",\"columns\",\"pageBy\"} or an array"},
      {R"({"sorting": {"rows": 1}})", "sorting.rows must be an array"},
      {R"({"sorting": [1]})",
       "Incorrect node type in the sorting rows array[0]: an object is expected"},
      {R"({"sorting": [{"type": "colour"}]})",
       "Incorrect node type 'colour' in the sorting rows array[0]: form, attribute, metric or "
       "subtotalsPosition"},
      {R"({"sorting": [{"type": 3}]})",
       "Incorrect node type in the sorting array: \"type\" must be text"},
      {R"({"sorting": [{"type": "form", "attribute": {"id": "a"}}]})",
       "Attribute form ID should not be null or empty in the sorting rows array[0]"},
      {R"({"sorting": [{"type": "form", "form": {"id": "ID"}}]})",
       "Attribute ID should not be null or empty in the sorting rows array[0]"},
      {R"({"sorting": [{"type": "attribute", "attribute": {"id": "a"}, "order": "ascending"}]})",
       "Incorrect node type in the sorting rows array[0]: an attribute sort takes neither "
       "\"order\" nor \"subtotalsPosition\""},
      {R"({"sorting": [{"type": "metric", "metric": {"id": ""}}]})",
       "Metric ID should not be null or empty in the sorting array[0]"},
      {R"({"sorting": [{"type": "metric", "metric": {"id": "m"}, "order": "upwards"}]})",
       "Incorrect order 'upwards' in the sorting rows array[0]: ascending or descending"},
      {R"({"sorting": [{"type": "metric", "metric": {"id": "m"}, "elements": [{"id": "e"}]}]})",
       "Metric sort by elements in the sorting rows array[0] applies to cross-tab grids only"},
      {R"({"sorting": [{"type": "form", "attribute": {"id": "a"}, "form": {"id": "ID"},
                        "subtotalsPosition": "mixed"}]})",
       "Subtotals position 'mixed' cannot be applied for sort of type form."},
      {R"({"sorting": [{"type": "attribute", "attribute": {"id": "a"}},
                       {"type": "subtotalsPosition", "subtotalsPosition": "first"}]})",
       "Incorrect node type in the sorting rows array[1]: subtotalsPosition comes first"},
      {R"({"sorting": {"columns": [{"type": "metric", "metric": {"id": "m"}}]}})",
       "Incorrect node type in the sorting columns array[0]: the columns hold only the metrics, "
       "sorted by the rows"},
      {R"({"sorting": {"pageBy": [{"type": "metric", "metric": {"id": "m"}}]}})",
       "Metric sort cannot be applied in page-by."},
  };
  for (const auto& [body, message] : cases) {
    EXPECT_EQ(RefusalOf(Json::parse(body)), message) << body;
  }
}

TEST(InstanceRequests, AMalformedBodyIsRefusedNamingTheMember) {
  const std::vector<std::pair<const char*, std::string>> cases = {
      {R"([])", "The request body must be a JSON object"},
      {R"({"requestedObjects": []})",
       "requestedObjects must be an object {\"attributes\": [...], \"metrics\": [...]}"},
      {R"({"requestedObjects": {"attributes": [{"name": "Year"}]}})",
       "requestedObjects.attributes[] must be an object with a non-empty string \"id\""},
      {R"({"requestedObjects": {"attributes": [{"id": "a", "forms": [{}]}]}})",
       "requestedObjects.attributes[].forms[] must be an object with a non-empty string \"id\""},
      {R"({"requestedObjects": {"metrics": {}}})", "requestedObjects.metrics must be an array"},
      {R"({"viewFilter": []})", "viewFilter must be an expression object"},
      {R"({"metricLimits": 1})", "metricLimits must be an object keyed by metric id"},
      {R"({"subtotals": true})", "subtotals must be an object {\"visible\": true|false}"},
      {R"({"currentPageBy": [{"id": "a"}]})",
       "currentPageBy must be empty: this report has no page-by attributes"},
  };
  for (const auto& [body, message] : cases) {
    EXPECT_EQ(RefusalOf(Json::parse(body)), message) << body;
  }
  const std::string unknown = RefusalOf(Json::parse(R"({"viewFiltr": {}})"));
  EXPECT_NE(unknown.find("'viewFiltr'"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("requestedObjects"), std::string::npos) << unknown;
}

// The service refuses those once it has found the report, cube or instance.
TEST(InstanceRequests, ReadingKeepsTheFaultsOfObjectsAndSortingAndThrowsTheBodysOwn) {
  const service::Parsed<service::instance::InstanceRequest> request = dataset::ReadInstanceRequest(
      Json::parse(R"({"sorting": [1], "subtotals": {"visible": true}})"));
  try {
    request.value();
    ADD_FAILURE() << "the sorting's fault was not kept";
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.message()),
              "Incorrect node type in the sorting rows array[0]: an object is expected");
  }
  EXPECT_THROW(dataset::ReadInstanceRequest(Json::parse(R"({"viewFilter": []})")), Error);

  const service::Parsed<std::optional<service::instance::Sorting>> sorting =
      dataset::ReadResortRequest(Json::parse(R"({"sorting": {"rows": 5}})"));
  EXPECT_THROW(sorting.value(), Error);
  EXPECT_THROW(dataset::ReadResortRequest(Json::parse(R"({"viewFilter": {}})")), Error);
}

TEST(InstanceRequests, AResortBodyTakesASortingAndAnEmptyPageByOnly) {
  EXPECT_FALSE(dataset::ParseResortRequest(Json()));
  EXPECT_FALSE(dataset::ParseResortRequest(Json::parse(R"({"currentPageBy": []})")));
  const std::optional<service::instance::Sorting> sorting = dataset::ParseResortRequest(
      Json::parse(R"({"sorting": {"rows": [{"type": "metric", "metric": {"id": "m"}}]}})"));
  ASSERT_TRUE(sorting);
  ASSERT_EQ(sorting->rows.size(), 1u);
  EXPECT_EQ(sorting->rows[0].metric_id, "M");

  EXPECT_THROW(dataset::ParseResortRequest(Json::parse(R"({"viewFilter": {}})")), Error);
  EXPECT_THROW(dataset::ParseResortRequest(Json::parse(R"({"currentPageBy": "a"})")), Error);
  EXPECT_THROW(dataset::ParseResortRequest(Json::parse(R"("sorting")")), Error);
}

}  // namespace
}  // namespace tessera::api
