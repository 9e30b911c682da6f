// The bodies of dashboard instance calls read into typed requests: the creation options, the
// objects of an in-memory dashboard, and filter entries -- how an entry names its selector, and
// members whose faults are refused only when the selector's type reads them.
#include "api/dashboard/dashboard_requests.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.h"

namespace tessera::api {
namespace {

using service::dashboard::FilterEntry;
using service::dashboard::SelectorName;

// The message of the Error(kInvalidInput) that `call` throws ("" when it throws none).
template <class Call>
std::string RefusalOf(Call call) {
  try {
    call();
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kInvalidInput) << error.message();
    return std::string(error.message());
  }
  return "";
}

std::vector<FilterEntry> Entries(const char* body) {
  return dashboard::ParseFilterEntries(Json::parse(body));
}

TEST(DashboardRequests, AnEmptyCreationBodyKeepsEveryDefault) {
  const service::dashboard::DashboardCreateOptions options =
      dashboard::ParseCreateOptions(Json::object());
  EXPECT_FALSE(options.persist_view_state);
  EXPECT_FALSE(options.resolve_only);
  EXPECT_TRUE(options.enable_parallel_rendering);
  EXPECT_FALSE(options.filters.value());
  EXPECT_FALSE(options.target_page_key);
  EXPECT_FALSE(options.bookmark_id);
}

TEST(DashboardRequests, CreationReadsFlagsLinkingBookmarkAndFilters) {
  const service::dashboard::DashboardCreateOptions options =
      dashboard::ParseCreateOptions(Json::parse(R"({
      "resolveOnly": true, "enableParallelRendering": false,
      "linkingInfo": {"targetPageKey": "K2"}, "bookmarkInfo": {"id": "B1"},
      "filters": [{"key": "W10"}, {"name": "Region"}]})"));
  EXPECT_TRUE(options.resolve_only);
  EXPECT_FALSE(options.enable_parallel_rendering);
  EXPECT_EQ(options.target_page_key, "K2");
  EXPECT_EQ(options.bookmark_id, "B1");
  ASSERT_TRUE(options.filters.value());
  EXPECT_EQ(options.filters.value()->size(), 2u);

  EXPECT_EQ(RefusalOf([] {
              dashboard::ParseCreateOptions(Json::parse(R"({"resolveOnly": "yes"})"));
            }).find("resolveOnly"),
            0u);
  EXPECT_EQ(
      RefusalOf([] { dashboard::ParseCreateOptions(Json::parse(R"({"linkingInfo": "K2"})")); }),
      "linkingInfo: must be an object");
}

// The service refuses them after the dashboard, the bookmark and the target page.
TEST(DashboardRequests, CreationKeepsTheFaultOfItsFiltersForTheService) {
  const service::dashboard::DashboardCreateOptions options =
      dashboard::ParseCreateOptions(Json::parse(R"({"resolveOnly": true, "filters": "Region"})"));
  EXPECT_TRUE(options.resolve_only);
  EXPECT_EQ(RefusalOf([&] { options.filters.value(); }),
            "The filters must be a JSON array of filter objects");
}

TEST(DashboardRequests, AnInMemoryDashboardNeedsReportsOrCubesById) {
  const dashboard::InMemoryDashboardRequest request = dashboard::ParseInMemoryRequest(
      Json::parse(R"({"objects": [{"type": 3, "id": "A"}, {"id": "B"}], "resolveOnly": true})"));
  EXPECT_EQ(request.object_ids, (std::vector<std::string>{"A", "B"}));
  EXPECT_TRUE(request.options.resolve_only);

  EXPECT_EQ(RefusalOf([] { dashboard::ParseInMemoryRequest(Json::object()); }),
            "objects: an array of {type, id} is required");
  EXPECT_EQ(RefusalOf([] {
              dashboard::ParseInMemoryRequest(Json::parse(R"({"objects": [{"type": 3}]})"));
            }),
            "objects: every object needs an id");
  EXPECT_EQ(
      RefusalOf([] {
        dashboard::ParseInMemoryRequest(Json::parse(R"({"objects": [{"type": 55, "id": "A"}]})"));
      }),
      "objects: only reports and cubes (type 3) can make a dashboard");
}

TEST(DashboardRequests, FiltersAreOneObjectOrAnArrayOfObjects) {
  EXPECT_EQ(Entries(R"({"key": "W10"})").size(), 1u);
  EXPECT_EQ(Entries(R"([{"key": "W10"}, {"key": "W11"}])").size(), 2u);
  EXPECT_EQ(RefusalOf([] { Entries(R"("Region")"); }),
            "The filters must be a JSON array of filter objects");
  EXPECT_EQ(RefusalOf([] { Entries(R"([{"key": "W10"}, 3])"); }),
            "Every filter must be a JSON object, got 3");
}

TEST(DashboardRequests, AnEntryNamesItsSelectorByTheFirstNamingMemberItHas) {
  const std::vector<FilterEntry> entries = Entries(R"([
      {"visualizationKey": "W1", "key": "W2"},
      {"key": "W2", "name": "Region"},
      {"name": "Region", "source": {"id": "S"}},
      {"source": {"id": "S", "name": "Region"}},
      {"source": {"name": "Region"}}])");
  ASSERT_EQ(entries.size(), 5u);
  EXPECT_EQ(entries[0].selector.by, SelectorName::By::kVisualizationKey);
  EXPECT_EQ(entries[0].selector.text, "W1");
  EXPECT_EQ(entries[1].selector.by, SelectorName::By::kKey);
  EXPECT_EQ(entries[1].description, "key 'W2'");
  EXPECT_EQ(entries[2].selector.by, SelectorName::By::kName);
  EXPECT_EQ(entries[3].selector.by, SelectorName::By::kSourceId);
  EXPECT_EQ(entries[3].description, R"(source {"id":"S","name":"Region"})");
  EXPECT_EQ(entries[4].selector.by, SelectorName::By::kSourceName);
  EXPECT_EQ(entries[4].selector.text, "Region");
}

TEST(DashboardRequests, AnEntryThatNamesNoSelectorIsRefused) {
  EXPECT_EQ(
      RefusalOf([] { Entries(R"([{"currentSelection": {}}])"); }),
      R"(A filter needs a key, a name, a source or a visualizationKey: {"currentSelection":{}})");
  EXPECT_EQ(RefusalOf([] { Entries(R"([{"key": 10}])"); }), "key: must be a string");
  EXPECT_EQ(RefusalOf([] { Entries(R"([{"source": {}}])"); }),
            "A filter's source needs an id or a name");
}

TEST(DashboardRequests, TheFormatFollowsTheMembersOfTheEntry) {
  const std::vector<FilterEntry> entries = Entries(R"([
      {"key": "W1", "currentSelection": {"selectionStatus": "excluded",
                                         "elements": [{"id": "h1;A"}, {"name": "North"}]}},
      {"key": "W2", "selections": [{"id": "h2;A"}], "include": false},
      {"key": "W3", "qualifier": "In", "constants": [1, "2"]},
      {"key": "W4"}])");
  ASSERT_EQ(entries.size(), 4u);
  ASSERT_EQ(entries[0].format, FilterEntry::Format::kNew);
  const auto& current = entries[0].current_selection.value();
  ASSERT_TRUE(current);
  EXPECT_EQ(current->status, model::SelectionStatus::kExcluded);
  const auto& elements = current->elements.value();
  ASSERT_EQ(elements.size(), 2u);
  EXPECT_EQ(elements[0].value().id, "h1;A");
  EXPECT_FALSE(elements[1].value().id);
  EXPECT_EQ(elements[1].value().name, "North");

  ASSERT_EQ(entries[1].format, FilterEntry::Format::kOld);
  EXPECT_TRUE(entries[1].old.has_selections);
  EXPECT_FALSE(entries[1].old.include.value());
  EXPECT_EQ(entries[1].old.selections.value().size(), 1u);

  ASSERT_EQ(entries[2].format, FilterEntry::Format::kOld);
  EXPECT_TRUE(entries[2].old.has_qualifier_or_constants);
  const auto& qualification = entries[2].old.qualification.value();
  ASSERT_TRUE(qualification);
  EXPECT_EQ(qualification->qualifier, "In");
  EXPECT_EQ(qualification->constant_operands, Json::parse(R"([{"type": "constants",
      "dataType": "Real", "values": ["1", "2"]}])"));

  EXPECT_EQ(entries[3].format, FilterEntry::Format::kClear);
}

TEST(DashboardRequests, AFaultyMemberIsRefusedOnlyWhenItIsRead) {
  // Each body parses; the fault is thrown by the member a selector of the right type reads.
  const std::vector<FilterEntry> entries = Entries(R"([
      {"key": "W1", "currentSelection": {"values": 5, "elements": 7, "objectItems": [{}],
                                         "expression": []}},
      {"key": "W2", "currentSelection": {"dynamicSelectionApplied": true}},
      {"key": "W3", "currentSelection": {"selectionStatus": "maybe"}},
      {"key": "W4", "qualifier": 5, "include": "no"}])");
  ASSERT_EQ(entries.size(), 4u);
  const auto& current = entries[0].current_selection.value();
  ASSERT_TRUE(current);
  EXPECT_EQ(RefusalOf([&] { current->values.value(); }), "values: must be an array");
  EXPECT_EQ(RefusalOf([&] { current->elements.value(); }),
            "elements: must be an array of {id, name}");
  EXPECT_EQ(RefusalOf([&] { current->object_items.value().front().value(); }),
            "objectItems: every item needs an id, got {}");
  EXPECT_EQ(RefusalOf([&] { current->expression.value(); }),
            "expression: must be an object {operator, operands}");
  EXPECT_EQ(RefusalOf([&] { entries[1].current_selection.value(); }),
            "currentSelection.dynamicSelectionApplied is read-only");
  EXPECT_EQ(RefusalOf([&] { entries[2].current_selection.value(); }),
            R"(selectionStatus: included, excluded or unfiltered, got "maybe")");
  EXPECT_EQ(RefusalOf([&] { entries[3].old.qualification.value(); }),
            "qualifier: must be a string");
  EXPECT_THROW(entries[3].old.include.value(), std::exception);
}

}  // namespace
}  // namespace tessera::api
