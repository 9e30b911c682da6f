// Filter entries on a hand-built two-chapter dashboard: how entries find their selector, clearing,
// synchronized selectors, and the refusals that need no data.
#include "service/dashboard/filter_entries.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace tessera::service::dashboard {
namespace {

constexpr const char* kRegion = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
constexpr const char* kYear = "BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB";
constexpr const char* kRevenue = "CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC";
constexpr const char* kProfit = "DDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDD";

model::Selector ElementList(const std::string& key, const std::string& chapter,
                            const std::string& name, const char* source, bool synchronized) {
  model::Selector selector;
  selector.key = key;
  selector.name = name;
  selector.chapter_key = chapter;
  selector.source_id = source;
  selector.multi_selection_allowed = true;
  selector.synchronized_across_chapter = synchronized;
  return selector;
}

// Chapter K1: Region filter W10 (synchronized), Year filter W11, Measure W13 on page K2.
// Chapter K3: Region filter W20 (synchronized), a second "Measure" W21.
model::Dashboard TwoChapters() {
  model::Dashboard dashboard;
  model::Chapter first{"K1", "One", {}, {}};
  first.filters.push_back(ElementList("W10", "K1", "Region", kRegion, true));
  first.filters.push_back(ElementList("W11", "K1", "Year", kYear, false));
  model::Page page{"K2", "Page", {}, {}};
  model::Selector measure;
  measure.key = "W13";
  measure.name = "Measure";
  measure.type = model::SelectorType::kObjectReplacement;
  measure.place = model::SelectorPlace::kPageSelector;
  measure.chapter_key = "K1";
  measure.available_objects = {kRevenue, kProfit};
  measure.saved.status = model::SelectionStatus::kIncluded;
  measure.saved.objects = {kRevenue};
  page.selectors.push_back(measure);
  first.pages.push_back(page);
  model::Chapter second{"K3", "Two", {}, {}};
  second.filters.push_back(ElementList("W20", "K3", "Region", kRegion, true));
  measure.key = "W21";
  measure.chapter_key = "K3";
  model::Page other_page{"K4", "Page", {}, {}};
  other_page.selectors.push_back(measure);
  second.pages.push_back(other_page);
  dashboard.chapters = {first, second};
  return dashboard;
}

class FilterEntries : public ::testing::Test {
 protected:
  std::vector<dashboard::SelectorUpdate> Parse(const Json& body, bool ignore_missing = false) {
    dashboard::FilterContext context{dashboard_, state_, {}, {}, {}};
    context.is_attribute = [](const std::string& id) { return id == kRegion || id == kYear; };
    return dashboard::ParseFilterEntries(body, context, ignore_missing);
  }

  static Json Region(const std::string& value) {
    return {
        {"currentSelection", {{"elements", {{{"id", "h" + value + ";" + std::string(kRegion)}}}}}}};
  }

  model::Dashboard dashboard_ = TwoChapters();
  dashboard::DashboardState state_ = dashboard::SavedState(dashboard_, {});
};

TEST_F(FilterEntries, ANameIsLookedUpInTheCurrentChapterFirst) {
  Json entry = Region("1");
  entry["name"] = "Measure";
  entry.erase("currentSelection");
  entry["currentSelection"] = {
      {"objectItems", {{{"id", std::string("i") + kProfit + ";" + kProfit}}}}};
  EXPECT_EQ(Parse(Json::array({entry}))[0].key, "W13");
  state_.current_chapter = "K3";
  EXPECT_EQ(Parse(Json::array({entry}))[0].key, "W21");
}

TEST_F(FilterEntries, SelectorsOfOtherChaptersAreFound) {
  Json entry = Region("4");
  entry["key"] = "W20";
  const auto updates = Parse(Json::array({entry}));
  ASSERT_EQ(updates.size(), 1u);
  EXPECT_EQ(updates[0].key, "W20");
  EXPECT_EQ(updates[0].selection.elements, std::vector<std::string>{std::string(kRegion) + ":4"});
}

TEST_F(FilterEntries, ANameOfSeveralSelectorsInOneChapterIsRefused) {
  dashboard_.chapters[0].filters[1].name = "Region";
  Json entry = Region("1");
  entry["name"] = "Region";
  EXPECT_THROW(Parse(Json::array({entry})), Error);
  entry["key"] = "W10";  // a key wins over the name
  EXPECT_EQ(Parse(Json::array({entry}))[0].key, "W10");
}

TEST_F(FilterEntries, SynchronizedSelectorsShareTheirSelection) {
  Json entry = Region("2");
  entry["key"] = "W10";
  dashboard::DashboardState next =
      dashboard::ApplyFilterUpdates(dashboard_, state_, Parse(Json::array({entry})));
  EXPECT_EQ(next.selections.at("W20").elements,
            std::vector<std::string>{std::string(kRegion) + ":2"});
  EXPECT_EQ(next.selections.at("W11").status, model::SelectionStatus::kUnfiltered);
}

TEST_F(FilterEntries, ClearingGivesNoConditionOrTheSavedObjects) {
  Json entry = Region("2");
  entry["key"] = "W10";
  state_ = dashboard::ApplyFilterUpdates(dashboard_, state_, Parse(Json::array({entry})));
  const auto updates = Parse(Json::parse(R"([{"key": "W10"}, {"name": "Measure"}])"));
  EXPECT_EQ(updates[0].selection.status, model::SelectionStatus::kUnfiltered);
  EXPECT_TRUE(updates[0].selection.elements.empty());
  EXPECT_EQ(updates[1].selection.objects, std::vector<std::string>{kRevenue});
}

TEST_F(FilterEntries, UnmatchedEntriesFailUnlessIgnored) {
  const Json body = Json::parse(R"([{"key": "W99"}, {"key": "W11"}])");
  EXPECT_THROW(Parse(body), Error);
  const auto updates = Parse(body, /*ignore_missing=*/true);
  ASSERT_EQ(updates.size(), 1u);
  EXPECT_EQ(updates[0].key, "W11");
}

TEST_F(FilterEntries, RefusedEntries) {
  const std::string year_element = std::string("h2024;") + kYear;
  for (
      const char* body : {
          R"([{"currentSelection": {}}])",
          R"([{"key": "W10", "currentSelection": {"dynamicSelectionApplied": true}}])",
          R"([{"key": "W10", "currentSelection": {"selectionStatus": "maybe"}}])",
          R"([{"key": "W10", "currentSelection": {"elements": [{"id": "h1;NOTANID"}]}}])",
          R"([{"key": "W13", "currentSelection": {"objectItems": [{"id": "EEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEE"}]}}])",
          R"([{"key": "W13", "selections": []}])",
          R"([{"key": "W13", "currentSelection": {"selectionStatus": "excluded"}}])",
          R"("x")",
      }) {
    EXPECT_THROW(Parse(Json::parse(body)), Error) << body;
  }
  Json other_attribute = {{"key", "W10"},
                          {"currentSelection", {{"elements", {{{"id", year_element}}}}}}};
  EXPECT_THROW(Parse(Json::array({other_attribute})), Error);
}

}  // namespace
}  // namespace tessera::service::dashboard
