#include "model/dashboard.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>

#include "core/error.h"
#include "core/ids.h"
#include "model/bundle/bundle.h"
#include "model/object_types.h"

namespace tessera::model {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const std::filesystem::path kDemoBundle = TESSERA_SOURCE_DIR "/demo/tutorial";

std::string TutorialId(int type, const std::string& name) {
  return DeterministicObjectId("tessera:Tutorial:" + std::to_string(type) + ":" + name);
}

const bundle::Bundle& Demo() {
  static const bundle::Bundle bundle = bundle::ReadBundle(kDemoBundle);
  return bundle;
}

const ObjectRecord& DemoRecord(int type, const std::string& name) {
  for (const auto& object : Demo().objects) {
    if (object.record.type == type && object.record.name == name) return object.record;
  }
  throw std::runtime_error("no object " + name);
}

Dashboard DemoDashboard(const std::string& name) {
  return ParseDashboard(DemoRecord(kTypeDocumentDefinition, name));
}

std::vector<std::string> Keys(const std::vector<const Selector*>& selectors) {
  std::vector<std::string> keys;
  for (const Selector* selector : selectors) keys.push_back(selector->key);
  return keys;
}

TEST(Dashboard, TheSalesOverviewReadsWithItsParallelRenderingAndSelectors) {
  const Dashboard dashboard = DemoDashboard("Sales Overview");
  EXPECT_TRUE(dashboard.parallel_rendering);
  EXPECT_THAT(dashboard.dataset_ids,
              ElementsAre(TutorialId(3, "Sales Cube"), TutorialId(3, "Item Sales Cube")));
  ASSERT_EQ(dashboard.chapters.size(), 1u);
  const Chapter& chapter = dashboard.chapters[0];
  EXPECT_EQ(chapter.key, "K1");
  size_t visualizations = 0;
  for (const auto& page : chapter.pages) visualizations += page.visualizations.size();
  EXPECT_GE(visualizations, 6u);  // the parallel dashboard has 6 visualizations at least

  const Visualization* by_year = dashboard.FindVisualization("W2");
  ASSERT_NE(by_year, nullptr);
  EXPECT_EQ(by_year->visualization_type, "bar_chart");
  EXPECT_EQ(by_year->dataset_id, TutorialId(3, "Sales Cube"));
  EXPECT_THAT(by_year->attribute_ids, ElementsAre(TutorialId(12, "Year")));
  EXPECT_THAT(by_year->metric_ids, ElementsAre(TutorialId(4, "Revenue")));
  ASSERT_TRUE(by_year->as_filter.has_value());
  EXPECT_EQ(by_year->as_filter->type, SelectorType::kVisualizationAsFilter);
  EXPECT_EQ(by_year->as_filter->key, "W2");
  EXPECT_THAT(by_year->as_filter->targets, ElementsAre("W3", "W6"));
  EXPECT_EQ(dashboard.PageOfVisualization("W2")->key, "K2");
  EXPECT_EQ(dashboard.ChapterOfVisualization("W2")->key, "K1");

  const Selector* region = dashboard.FindSelector("W10");
  ASSERT_NE(region, nullptr);
  EXPECT_EQ(region->type, SelectorType::kAttributeElementList);
  EXPECT_EQ(region->place, SelectorPlace::kChapterFilter);
  EXPECT_EQ(region->source_id, TutorialId(12, "Region"));
  EXPECT_TRUE(region->has_all_option);
  EXPECT_TRUE(region->multi_selection_allowed);
  EXPECT_TRUE(region->targets.empty());  // the whole chapter
  EXPECT_EQ(region->saved.status, SelectionStatus::kUnfiltered);
  EXPECT_FALSE(region->is_parameter_based());

  const Selector* years = dashboard.FindSelector("W11");
  ASSERT_NE(years, nullptr);
  EXPECT_EQ(years->type, SelectorType::kAttributeQualification);
  EXPECT_EQ(years->saved.status, SelectionStatus::kIncluded);
  EXPECT_EQ(years->saved.expression["operator"], "GreaterEqual");
  EXPECT_EQ(dashboard.FindSelector("W12")->type, SelectorType::kMetricQualification);
  EXPECT_EQ(dashboard.FindSelector("W12")->source_id, TutorialId(4, "Revenue"));
  EXPECT_EQ(dashboard.FindSelector("nothing"), nullptr);
  EXPECT_EQ(dashboard.FindVisualization("W10"), nullptr);
}

TEST(Dashboard, TheRegionalPerformanceHasEveryParameterSelector) {
  const Dashboard dashboard = DemoDashboard("Regional Performance");
  EXPECT_FALSE(dashboard.parallel_rendering);

  const Selector* regions = dashboard.FindSelector("W10");
  ASSERT_NE(regions, nullptr);
  EXPECT_EQ(regions->type, SelectorType::kAttributeElementList);
  EXPECT_TRUE(regions->is_parameter_based());
  ASSERT_TRUE(regions->default_dynamic_selection.has_value());
  EXPECT_TRUE(regions->default_dynamic_selection->first);
  EXPECT_EQ(regions->default_dynamic_selection->quantity, 8);

  const Selector* measure = dashboard.FindSelector("W11");
  EXPECT_EQ(measure->type, SelectorType::kObjectReplacement);
  EXPECT_TRUE(measure->is_parameter_based());
  EXPECT_THAT(measure->available_objects,
              ElementsAre(TutorialId(4, "Revenue"), TutorialId(4, "Profit"),
                          TutorialId(4, "Profit Margin")));
  EXPECT_THAT(measure->saved.objects, ElementsAre(TutorialId(4, "Revenue")));
  EXPECT_THAT(measure->targets, ElementsAre("W1"));

  const Selector* margin = dashboard.FindSelector("W12");
  EXPECT_EQ(margin->type, SelectorType::kValueParameter);
  EXPECT_EQ(margin->data_type, "Real");
  EXPECT_EQ(margin->min_value, "0");
  EXPECT_EQ(margin->max_value, "1");
  EXPECT_THAT(margin->saved.values, ElementsAre("0.25"));

  // Parameter ids are the same on every read and differ between parameters.
  EXPECT_EQ(margin->parameter_id,
            DemoDashboard("Regional Performance").FindSelector("W12")->parameter_id);
  EXPECT_NE(margin->parameter_id, measure->parameter_id);
  EXPECT_EQ(margin->parameter_id.size(), 32u);

  const Selector* segments = dashboard.FindSelector("W13");
  EXPECT_EQ(segments->place, SelectorPlace::kPageSelector);
  EXPECT_EQ(segments->page_key, "K2");
  EXPECT_EQ(segments->saved.status, SelectionStatus::kExcluded);
  EXPECT_THAT(segments->saved.elements, ElementsAre(TutorialId(12, "Customer Segment") + ":5"));

  // Chapter filters first, then each page's selectors and visualizations used as filters.
  EXPECT_THAT(Keys(dashboard.SelectorsOfChapter("K1")),
              ElementsAre("W10", "W11", "W12", "W13", "W1"));

  // The value parameter drives the metric limit of W3.
  const Json& limit = dashboard.FindVisualization("W3")->metric_limit;
  EXPECT_EQ(limit["operator"], "GreaterEqual");
  EXPECT_EQ(limit["operands"][0],
            Json({{"type", "metric"}, {"id", TutorialId(4, "Profit Margin")}}));
  EXPECT_EQ(limit["operands"][1], Json({{"type", "parameter"}, {"key", "W12"}}));
}

TEST(Dashboard, SelectorTypeNamesRoundTrip) {
  for (SelectorType type :
       {SelectorType::kAttributeElementList, SelectorType::kAttributeQualification,
        SelectorType::kMetricQualification, SelectorType::kObjectReplacement,
        SelectorType::kVisualizationAsFilter, SelectorType::kValueParameter}) {
    EXPECT_EQ(ParseSelectorType(SelectorTypeName(type)), type);
  }
  EXPECT_EQ(ParseSelectorType("slider"), std::nullopt);
  EXPECT_EQ(SelectionStatusName(SelectionStatus::kExcluded), "excluded");
}

// A broken copy of the Sales Overview must be refused with a message naming the place.
void ExpectRefused(const std::function<void(Json&)>& break_it, const std::string& message) {
  ObjectRecord record = DemoRecord(kTypeDocumentDefinition, "Sales Overview");
  break_it(record.definition);
  try {
    ParseDashboard(record);
    ADD_FAILURE() << "accepted; expected: " << message;
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kInvalidInput);
    EXPECT_THAT(error.what(), HasSubstr("dashboard 'Sales Overview'"));
    EXPECT_THAT(error.what(), HasSubstr(message));
  }
}

TEST(Dashboard, BrokenDefinitionsAreRefusedNamingWhereTheyAreWrong) {
  ExpectRefused([](Json& d) { d.erase("chapters"); }, "chapters");
  ExpectRefused([](Json& d) { d["chapters"] = Json::array(); }, "a chapter at least");
  ExpectRefused([](Json& d) { d["chapters"][0]["pages"] = Json::array(); }, "a page at least");
  ExpectRefused([](Json& d) { d["parallelRendering"] = "yes"; },
                "parallelRendering: true or false");
  ExpectRefused([](Json& d) { d["chapters"][0]["pages"][0]["visualizations"][0].erase("dataset"); },
                "chapters[0].pages[0].visualizations[0].dataset");
  ExpectRefused([](Json& d) { d["chapters"][0]["pages"][0]["visualizations"][1]["key"] = "W1"; },
                "'W1' is used twice");
  ExpectRefused([](Json& d) { d["chapters"][0]["filters"][0]["selectorType"] = "slider"; },
                "unknown type 'slider'");
  ExpectRefused(
      [](Json& d) { d["chapters"][0]["filters"][0]["selectorType"] = "visualization_as_filter"; },
      "a visualization's selector only");
  ExpectRefused(
      [](Json& d) {
        d["chapters"][0]["filters"][0]["currentSelection"]["selectionStatus"] = "maybe";
      },
      "unknown status 'maybe'");
  ExpectRefused(
      [](Json& d) {
        d["chapters"][0]["filters"][0]["targets"] = {{{"key", "W999"}}};
      },
      "targets 'W999'");
  ExpectRefused(
      [](Json& d) {
        d["chapters"][0]["pages"][0]["visualizations"][1]["selector"]["targets"] = Json::array();
      },
      "has targets");
  ExpectRefused(
      [](Json& d) {
        d["chapters"][0]["pages"][0]["visualizations"][0]["dataset"] =
            TutorialId(3, "Profit by Region and Category");
      },
      "reads a dataset the dashboard does not list");
  ExpectRefused(
      [](Json& d) {
        d["chapters"][0]["pages"][0]["visualizations"][0]["metricLimit"] = {
            {"operator", "Greater"},
            {"operands",
             {{{"type", "metric"}, {"id", TutorialId(4, "Revenue")}},
              {{"type", "parameter"}, {"key", "W10"}}}}};
      },
      "uses parameter 'W10', no value parameter of its chapter");
  ExpectRefused(
      [](Json& d) {
        d["chapters"][0]["filters"][0]["defaultDynamicSelection"] = {{"status", "first_elements"},
                                                                     {"quantity", 0}};
      },
      "quantity: a positive integer");
}

}  // namespace
}  // namespace tessera::model
