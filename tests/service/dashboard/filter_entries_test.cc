// Filter entries on a hand-built two-chapter dashboard: how entries find their selector,
// clearing, synchronized selectors, the refusals that need no data, and members whose faults
// refuse only when the selector reads them. (How a body becomes entries is
// api/dashboard/dashboard_requests.h's, tested in tests/api.)
#include "service/dashboard/filter_entries.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "service/dashboard/filter_entry_builders.h"

namespace tessera::service::dashboard {
namespace {

using tessera::testing::ElementsById;
using tessera::testing::EntryNamed;
using tessera::testing::EntryWithKey;
using tessera::testing::ObjectItem;
using tessera::testing::OldSelections;
using tessera::testing::Selecting;
using tessera::testing::WithStatus;

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
  std::vector<dashboard::SelectorUpdate> Resolve(const std::vector<FilterEntry>& entries,
                                                 bool ignore_missing = false) {
    dashboard::FilterContext context{dashboard_, state_, {}, {}, {}};
    context.is_attribute = [](const std::string& id) { return id == kRegion || id == kYear; };
    return dashboard::ResolveFilterEntries(entries, context, ignore_missing);
  }

  // {"currentSelection": {"elements": [{"id": "h<value>;<Region>"}]}} with `entry`'s name.
  static FilterEntry Region(FilterEntry entry, const std::string& value) {
    return Selecting(std::move(entry), ElementsById({"h" + value + ";" + std::string(kRegion)}));
  }

  // A member whose reading failed with Error(kInvalidInput).
  template <class T>
  static Parsed<T> Faulty() {
    return Parsed<T>::Of([]() -> T { throw Error(ErrorCode::kInvalidInput, "faulty member"); });
  }

  model::Dashboard dashboard_ = TwoChapters();
  dashboard::DashboardState state_ = dashboard::SavedState(dashboard_, {});
};

TEST_F(FilterEntries, ANameIsLookedUpInTheCurrentChapterFirst) {
  const FilterEntry entry = Selecting(
      EntryNamed("Measure"), ObjectItem(std::string("i") + kProfit + ";" + kProfit, kProfit));
  EXPECT_EQ(Resolve({entry})[0].key, "W13");
  state_.current_chapter = "K3";
  EXPECT_EQ(Resolve({entry})[0].key, "W21");
}

TEST_F(FilterEntries, SelectorsOfOtherChaptersAreFound) {
  const auto updates = Resolve({Region(EntryWithKey("W20"), "4")});
  ASSERT_EQ(updates.size(), 1u);
  EXPECT_EQ(updates[0].key, "W20");
  EXPECT_EQ(updates[0].selection.elements, std::vector<std::string>{std::string(kRegion) + ":4"});
}

TEST_F(FilterEntries, ANameOfSeveralSelectorsInOneChapterIsRefused) {
  dashboard_.chapters[0].filters[1].name = "Region";
  EXPECT_THROW(Resolve({Region(EntryNamed("Region"), "1")}), Error);
  EXPECT_EQ(Resolve({Region(EntryWithKey("W10"), "1")})[0].key, "W10");
}

TEST_F(FilterEntries, SynchronizedSelectorsShareTheirSelection) {
  dashboard::DashboardState next = dashboard::ApplyFilterUpdates(
      dashboard_, state_, Resolve({Region(EntryWithKey("W10"), "2")}));
  EXPECT_EQ(next.selections.at("W20").elements,
            std::vector<std::string>{std::string(kRegion) + ":2"});
  EXPECT_EQ(next.selections.at("W11").status, model::SelectionStatus::kUnfiltered);
}

TEST_F(FilterEntries, ClearingGivesNoConditionOrTheSavedObjects) {
  state_ = dashboard::ApplyFilterUpdates(dashboard_, state_,
                                         Resolve({Region(EntryWithKey("W10"), "2")}));
  const auto updates = Resolve({EntryWithKey("W10"), EntryNamed("Measure")});
  EXPECT_EQ(updates[0].selection.status, model::SelectionStatus::kUnfiltered);
  EXPECT_TRUE(updates[0].selection.elements.empty());
  EXPECT_EQ(updates[1].selection.objects, std::vector<std::string>{kRevenue});
}

TEST_F(FilterEntries, UnmatchedEntriesFailUnlessIgnored) {
  const std::vector<FilterEntry> entries = {EntryWithKey("W99"), EntryWithKey("W11")};
  EXPECT_THROW(Resolve(entries), Error);
  const auto updates = Resolve(entries, /*ignore_missing=*/true);
  ASSERT_EQ(updates.size(), 1u);
  EXPECT_EQ(updates[0].key, "W11");
}

TEST_F(FilterEntries, RefusedEntries) {
  const std::string year_element = std::string("h2024;") + kYear;
  const std::string not_offered = "EEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEE";
  const std::vector<std::pair<std::string, FilterEntry>> cases = {
      {"a malformed element id", Selecting(EntryWithKey("W10"), ElementsById({"h1;NOTANID"}))},
      {"an element of another attribute",
       Selecting(EntryWithKey("W10"), ElementsById({year_element}))},
      {"an object not offered",
       Selecting(EntryWithKey("W13"), ObjectItem(not_offered, not_offered))},
      {"the old format on an object replacement", OldSelections(EntryWithKey("W13"), {})},
      {"excluded on an object replacement",
       Selecting(EntryWithKey("W13"), WithStatus(model::SelectionStatus::kExcluded))},
  };
  for (const auto& [what, entry] : cases) {
    EXPECT_THROW(Resolve({entry}), Error) << what;
  }
}

TEST_F(FilterEntries, AFaultyMemberRefusesOnlyWhenTheSelectorReadsIt) {
  // W13 replaces objects: it reads objectItems, never elements or values.
  CurrentSelection objects_only = ObjectItem(std::string(kProfit), kProfit);
  objects_only.elements = Faulty<std::vector<Parsed<GivenElement>>>();
  objects_only.values = Faulty<std::optional<std::vector<Parsed<std::string>>>>();
  EXPECT_EQ(Resolve({Selecting(EntryWithKey("W13"), objects_only)})[0].selection.objects,
            std::vector<std::string>{kProfit});

  // W10 is an element list: it reads the elements.
  CurrentSelection faulty_elements;
  faulty_elements.elements = Faulty<std::vector<Parsed<GivenElement>>>();
  EXPECT_THROW(Resolve({Selecting(EntryWithKey("W10"), faulty_elements)}), Error);

  // Nothing is read of an entry that names no selector when missing selectors are ignored.
  FilterEntry unmatched = EntryWithKey("W99");
  unmatched.format = FilterEntry::Format::kNew;
  unmatched.current_selection = Faulty<std::optional<CurrentSelection>>();
  EXPECT_TRUE(Resolve({unmatched}, /*ignore_missing=*/true).empty());
  EXPECT_THROW(Resolve({unmatched}), Error);
}

}  // namespace
}  // namespace tessera::service::dashboard
