#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "core/ids.h"
#include "model/bundle/bundle.h"
#include "model/object_types.h"
#include "model/semantic.h"
#include "model/small_bundle.h"

namespace tessera::model::bundle {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::SmallBundle;
using ::testing::StartsWith;

const std::filesystem::path kDemoBundle = TESSERA_SOURCE_DIR "/demo/tutorial";

std::string Id(const std::string& project, int type, const std::string& name) {
  return DeterministicObjectId("tessera:" + project + ":" + std::to_string(type) + ":" + name);
}

const Json& DashboardDefinition(const bundle::Bundle& bundle, const std::string& name) {
  for (const auto& object : bundle.objects) {
    if (object.record.type == kTypeDocumentDefinition && object.record.name == name) {
      return object.record.definition;
    }
  }
  throw std::runtime_error("no dashboard " + name);
}

// Every selector of a dashboard definition: chapter filters, page selectors, visualizations'.
std::vector<Json> SelectorsOf(const Json& definition) {
  std::vector<Json> selectors;
  for (const auto& chapter : definition["chapters"]) {
    for (const auto& filter : chapter.value("filters", Json::array())) selectors.push_back(filter);
    for (const auto& page : chapter["pages"]) {
      for (const auto& selector : page.value("selectors", Json::array())) {
        selectors.push_back(selector);
      }
      for (const auto& visualization : page["visualizations"]) {
        if (visualization.contains("selector")) selectors.push_back(visualization["selector"]);
      }
    }
  }
  return selectors;
}

// The kind of selector a dashboard user sees: the parameter variants are kinds of their own.
std::string SelectorKindOf(const Json& selector) {
  const std::string type = selector["selectorType"];
  return selector.value("isParameterBased", false) ? type + " parameter" : type;
}

// A dashboard over the small bundle's report, with `selectors` as the first page's selectors.
std::string DashboardWithPageSelectors(const std::string& selectors) {
  return "name: Board\n"
         "datasets: [Sales]\n"
         "chapters:\n"
         "  - key: K1\n"
         "    name: One\n"
         "    pages:\n"
         "      - key: K2\n"
         "        name: Page\n"
         "        visualizations:\n"
         "          - {key: W1, name: Cities, visualizationType: grid, dataset: Sales,\n"
         "             attributes: [City], metrics: [Revenue]}\n"
         "          - {key: W2, name: Regions, visualizationType: grid, dataset: Sales,\n"
         "             attributes: [Region], metrics: [Revenue]}\n"
         "        selectors:\n" +
         selectors;
}

// The line of the first page selector in DashboardWithPageSelectors's file.
constexpr int kFirstSelectorLine = 15;

auto ProblemAt(int line, const std::string& text) {
  return AllOf(StartsWith("dashboards/board.yaml:" + std::to_string(line) + ": "), HasSubstr(text));
}

std::vector<std::string> ProblemsWithSelectors(const std::string& selectors) {
  SmallBundle bundle;
  bundle.Write("dashboards/board.yaml", DashboardWithPageSelectors(selectors));
  return bundle.Problems();
}

TEST(BundleSelectors, DemoDashboardsHaveEverySelectorTypeOfSpec03) {
  const bundle::Bundle bundle = bundle::ReadBundle(kDemoBundle);

  std::set<std::string> kinds;
  for (const char* name : {"Sales Overview", "Regional Performance"}) {
    for (const Json& selector : SelectorsOf(DashboardDefinition(bundle, name))) {
      kinds.insert(SelectorKindOf(selector));
    }
  }
  EXPECT_EQ(kinds,
            (std::set<std::string>{"attribute_element_list", "attribute_qualification",
                                   "metric_qualification", "object_replacement",
                                   "visualization_as_filter", "attribute_element_list parameter",
                                   "object_replacement parameter", "value_parameter parameter"}));
}

TEST(BundleSelectors, ReferencesResolveToIdsAndElementsToAttributeColonValue) {
  const bundle::Bundle bundle = bundle::ReadBundle(kDemoBundle);
  const Json& definition = DashboardDefinition(bundle, "Regional Performance");

  const Json& segments = definition["chapters"][0]["pages"][0]["selectors"][0];
  EXPECT_EQ(segments["source"]["id"], Id("Tutorial", 12, "Customer Segment"));
  EXPECT_EQ(segments["targets"], Json::parse(R"([{"key": "W2"}])"));
  EXPECT_EQ(segments["currentSelection"]["selectionStatus"], "excluded");
  EXPECT_EQ(segments["currentSelection"]["elements"][0]["id"],
            Id("Tutorial", 12, "Customer Segment") + ":5");

  const Json& measure = definition["chapters"][0]["filters"][1];
  EXPECT_EQ(measure["availableObjectItems"][2]["id"], Id("Tutorial", 4, "Profit Margin"));
  EXPECT_EQ(measure["currentSelection"]["objectItems"][0]["id"], Id("Tutorial", 4, "Revenue"));
}

TEST(BundleSelectors, SelectionIsUnfilteredUnlessOneIsGiven) {
  const std::string selectors =
      "          - {key: W3, selectorType: attribute_element_list, source: Region}\n"
      "          - {key: W4, selectorType: attribute_element_list, source: Region,\n"
      "             currentSelection: {elements: [1]}}\n";
  SmallBundle bundle;
  bundle.Write("dashboards/board.yaml", DashboardWithPageSelectors(selectors));

  const bundle::Bundle read = bundle.Read();
  const Json& page = DashboardDefinition(read, "Board")["chapters"][0]["pages"][0];
  EXPECT_EQ(page["selectors"][0]["currentSelection"]["selectionStatus"], "unfiltered");
  EXPECT_EQ(page["selectors"][0]["displayStyle"], "check_boxes");
  EXPECT_EQ(page["selectors"][1]["currentSelection"]["selectionStatus"], "included");
}

TEST(BundleSelectors, DashboardUsesTheObjectsItsSelectorsName) {
  const std::string selectors =
      "          - {key: W3, selectorType: attribute_element_list, source: Region,\n"
      "             targets: [W1]}\n";
  SmallBundle bundle;
  bundle.Write("dashboards/board.yaml", DashboardWithPageSelectors(selectors));

  for (const auto& object : bundle.Read().objects) {
    if (object.record.name != "Board") continue;
    EXPECT_THAT(UsedObjectIds(object.record), Contains(Id("Shop", 12, "Region")));
  }
}

TEST(BundleSelectorsReject, UnknownSelectorTypeAndDisplayStyle) {
  EXPECT_THAT(ProblemsWithSelectors("          - {key: W3, selectorType: dial}\n"
                                    "          - {key: W4, selectorType: object_replacement,\n"
                                    "             displayStyle: dial, availableObjectItems: []}\n"),
              ElementsAre(ProblemAt(kFirstSelectorLine, "'dial' is not a selector type"),
                          ProblemAt(kFirstSelectorLine + 2, "'dial' is not a display style")));
}

TEST(BundleSelectorsReject, SourceOfTheWrongKindOrMissing) {
  EXPECT_THAT(ProblemsWithSelectors(
                  "          - {key: W3, selectorType: attribute_element_list,\n"
                  "             source: Revenue}\n"
                  "          - {key: W4, selectorType: metric_qualification}\n"
                  "          - {key: W5, selectorType: object_replacement, source: City,\n"
                  "             availableObjectItems: [City]}\n"),
              ElementsAre(ProblemAt(kFirstSelectorLine + 1, "'Revenue' is not an attribute"),
                          ProblemAt(kFirstSelectorLine + 2, "source: required"),
                          ProblemAt(kFirstSelectorLine + 3, "has no source")));
}

TEST(BundleSelectorsReject, TargetsThatAreNotVisualizationsOfTheChapter) {
  EXPECT_THAT(ProblemsWithSelectors("          - {key: W3, selectorType: attribute_element_list,\n"
                                    "             source: Region, targets: [W1, W9, K2]}\n"),
              ElementsAre(ProblemAt(kFirstSelectorLine + 1, "target 'W9'"),
                          ProblemAt(kFirstSelectorLine + 1, "target 'K2'")));
}

TEST(BundleSelectorsReject, KeyUsedTwiceInTheDashboard) {
  EXPECT_THAT(ProblemsWithSelectors("          - {key: W1, selectorType: attribute_element_list,\n"
                                    "             source: Region}\n"),
              ElementsAre(ProblemAt(kFirstSelectorLine, "key 'W1' is used twice")));
}

TEST(BundleSelectorsReject, SelectionMemberTheTypeDoesNotTake) {
  EXPECT_THAT(ProblemsWithSelectors("          - key: W3\n"
                                    "            selectorType: attribute_element_list\n"
                                    "            source: Region\n"
                                    "            currentSelection: {values: [\"1\"]}\n"),
              ElementsAre(ProblemAt(kFirstSelectorLine + 3, "it takes elements")));
}

TEST(BundleSelectorsReject, ChosenObjectNotAmongTheAvailableOnes) {
  EXPECT_THAT(ProblemsWithSelectors("          - key: W3\n"
                                    "            selectorType: object_replacement\n"
                                    "            availableObjectItems: [Revenue]\n"
                                    "            currentSelection: {objectItems: [City]}\n"),
              ElementsAre(ProblemAt(kFirstSelectorLine + 3, "'City' is not one of")));
}

TEST(BundleSelectorsReject, ValueParameterOfTheWrongTypeOrOutOfRange) {
  EXPECT_THAT(ProblemsWithSelectors("          - key: W3\n"
                                    "            selectorType: value_parameter\n"
                                    "            dataType: Int64\n"
                                    "            minValue: 1\n"
                                    "            maxValue: 10\n"
                                    "            currentSelection: {values: [\"x\", 11, 5]}\n"),
              ElementsAre(ProblemAt(kFirstSelectorLine + 5, "'x' is not a Int64 value"),
                          ProblemAt(kFirstSelectorLine + 5, "'11' is outside")));
}

TEST(BundleSelectorsReject, VisualizationAsFilterOnlyUnderAVisualization) {
  EXPECT_THAT(
      ProblemsWithSelectors("          - {key: W3, selectorType: visualization_as_filter}\n"),
      ElementsAre(ProblemAt(kFirstSelectorLine, "belongs under a visualization")));
}

}  // namespace
}  // namespace tessera::model::bundle
