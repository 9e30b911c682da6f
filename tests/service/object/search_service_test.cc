// Object search without the HTTP stack, over the demo Tutorial project on SQLite and PostgreSQL:
// name patterns, type and subtype codes, a root folder with or without its subfolders, excluded
// folders, hidden objects, uses / used-by relations, paging with totals, objects the caller may
// not browse, configuration-level objects, and the two-step search whose hits are kept for the
// session. Expected hits are computed from the bundle's YAML files.
#include "service/object/search_service.h"

#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "model/object_types.h"
#include "model/well_known.h"
#include "service/session/session_service.h"
#include "service/tutorial_project.h"

namespace tessera::testing {
namespace {

using service::object::NamePattern;
using service::object::ObjectList;
using service::object::Page;
using service::object::SearchQuery;
using service::session::Principal;
using Names = std::vector<std::string>;

// The predefined folders below a project's root, by their fixed names.
const Names kPredefinedFolderNames = {
    "Public Objects",   "Consolidations", "Custom Groups", "Filters",   "Metrics",
    "Prompts",          "Reports",        "Searches",      "Templates", "Schema Objects",
    "Attributes",       "Facts",          "Tables",        "Profiles",  "Dashboard Templates",
    "Shared Dashboards"};

// The metrics of metrics.yaml: name -> the fact it aggregates ("" for none) and the metrics its
// expression names ([Revenue] - [Cost]).
struct MetricUses {
  std::string fact;
  std::set<std::string> metrics;
};

std::map<std::string, MetricUses> TutorialMetricUses() {
  std::map<std::string, MetricUses> uses;
  const std::regex reference(R"(\[([^\]]+)\])");
  for (const auto& item : YAML::LoadFile((kTutorialBundle / "metrics.yaml").string())["metrics"]) {
    MetricUses& metric = uses[item["name"].as<std::string>()];
    if (item["fact"]) metric.fact = item["fact"].as<std::string>();
    if (!item["expression"]) continue;
    const std::string expression = item["expression"].as<std::string>();
    for (std::sregex_iterator it(expression.begin(), expression.end(), reference), end; it != end;
         ++it) {
      metric.metrics.insert((*it)[1].str());
    }
  }
  return uses;
}

class SearchServiceTest : public TutorialProjectTest {
 protected:
  void SetUp() override {
    TutorialProjectTest::SetUp();
    if (IsSkipped()) return;
    search_ = std::make_unique<service::object::SearchService>(*store_);
    metrics_ = TutorialListNames("metrics.yaml", "metrics");
    reports_ = TutorialFileNames("reports");
    cubes_ = TutorialFileNames("cubes");
    dashboards_ = TutorialFileNames("dashboards");
    filters_ = TutorialListNames("filters.yaml", "filters");
    public_objects_ =
        Concat(Concat(Concat(Concat(metrics_, reports_), cubes_), dashboards_), filters_);
    schema_objects_ = Concat(Concat(TutorialListNames("tables.yaml", "tables"),
                                    TutorialListNames("attributes.yaml", "attributes")),
                             TutorialListNames("facts.yaml", "facts"));
    everything_ = Concat(Concat(public_objects_, schema_objects_), kPredefinedFolderNames);
  }

  ObjectList Quick(const Principal& principal, const SearchQuery& query, const Page& page = {}) {
    return search_->QuickSearch(principal, project_id_, query, page);
  }

  Names QuickNames(const Principal& principal, const SearchQuery& query) {
    return NamesOf(Quick(principal, query));
  }
  Names QuickNames(const SearchQuery& query) { return QuickNames(admin_, query); }

  static Names NamesOf(const ObjectList& list) {
    Names names;
    for (const auto& item : list.items) names.push_back(item.record.name);
    return names;
  }

  static SearchQuery Named(const std::string& name, NamePattern pattern,
                           std::vector<int> types = {}) {
    SearchQuery query;
    query.name = name;
    query.pattern = pattern;
    query.types = std::move(types);
    return query;
  }

  static SearchQuery OfTypes(std::vector<int> types) {
    SearchQuery query;
    query.types = std::move(types);
    return query;
  }

  std::unique_ptr<service::object::SearchService> search_;
  Names metrics_, reports_, cubes_, dashboards_, filters_;
  Names public_objects_, schema_objects_, everything_;
};

TEST_P(SearchServiceTest, ExactlyMatchesTheWholeNameIgnoringCase) {
  const Names expected =
      SortedWhere(everything_, [](const std::string& name) { return Lower(name) == "revenue"; });
  ASSERT_EQ(expected.size(), 2u);  // the Revenue fact and the Revenue metric
  auto hits = Quick(admin_, Named("REVENUE", NamePattern::kExactly));
  EXPECT_EQ(NamesOf(hits), expected);
  std::multiset<int> types;
  for (const auto& item : hits.items) types.insert(item.record.type);
  EXPECT_EQ(types, (std::multiset<int>{model::kTypeMetric, model::kTypeFact}));
  EXPECT_TRUE(QuickNames(Named("Revenu", NamePattern::kExactly)).empty());
}

TEST_P(SearchServiceTest, EachNamePatternSelectsTheNamesItDescribes) {
  struct Case {
    NamePattern pattern;
    std::string text;
    std::function<bool(const std::string&)> matches;  // applied to the lower-case name
  };
  const std::vector<Case> cases = {
      {NamePattern::kBeginsWith, "PROFIT",
       [](const std::string& n) { return n.starts_with("profit"); }},
      {NamePattern::kBeginsWithPhrase, "avg u",
       [](const std::string& n) { return n.starts_with("avg u"); }},
      {NamePattern::kContains, "Revenue",
       [](const std::string& n) { return n.find("revenue") != std::string::npos; }},
      {NamePattern::kEndsWith, "CUBE", [](const std::string& n) { return n.ends_with("cube"); }},
      {NamePattern::kAnyWord, "margin segment",
       [](const std::string& n) {
         return n.find("margin") != std::string::npos || n.find("segment") != std::string::npos;
       }},
  };
  for (const auto& test : cases) {
    SCOPED_TRACE(test.text);
    const Names expected = SortedWhere(
        everything_, [&](const std::string& name) { return test.matches(Lower(name)); });
    ASSERT_GE(expected.size(), 2u);  // a case that would pass with no hits proves nothing
    EXPECT_EQ(QuickNames(Named(test.text, test.pattern)), expected);
  }
}

TEST_P(SearchServiceTest, WithoutANameEveryObjectBelowTheRootIsFound) {
  const Names expected = Sorted(everything_);
  EXPECT_EQ(QuickNames(SearchQuery{}), expected);
  EXPECT_EQ(QuickNames(Named("", NamePattern::kExactly)), expected);
}

TEST_P(SearchServiceTest, ATypeCodeSelectsEverySubtypeAndASubtypeCodeOnlyItself) {
  EXPECT_EQ(QuickNames(OfTypes({model::kTypeMetric})), Sorted(metrics_));
  EXPECT_EQ(QuickNames(OfTypes({model::kTypeReportDefinition})), Sorted(Concat(reports_, cubes_)));
  EXPECT_EQ(QuickNames(OfTypes({model::kSubtypeReportGrid})), Sorted(reports_));
  EXPECT_EQ(QuickNames(OfTypes({model::kSubtypeOlapCube})), Sorted(cubes_));
  EXPECT_EQ(QuickNames(OfTypes({model::kSubtypeDashboard})), Sorted(dashboards_));
  EXPECT_EQ(QuickNames(OfTypes({model::kTypeMetric, model::kTypeFilter})),
            Sorted(Concat(metrics_, filters_)));
  EXPECT_EQ(QuickNames(OfTypes({model::kTypeAttribute})),
            Sorted(TutorialListNames("attributes.yaml", "attributes")));
  EXPECT_TRUE(QuickNames(OfTypes({model::kTypePrompt})).empty());
}

TEST_P(SearchServiceTest, ARootFolderLimitsTheSearchToItsTree) {
  auto contains_revenue = [](const std::string& name) {
    return Lower(name).find("revenue") != std::string::npos;
  };
  SearchQuery query = Named("revenue", NamePattern::kContains);
  query.root = std::string(model::kPublicObjectsFolderId);
  EXPECT_EQ(QuickNames(query), SortedWhere(public_objects_, contains_revenue));
  query.root = model::PredefinedFolderId(24);  // Schema Objects
  EXPECT_EQ(QuickNames(query), SortedWhere(schema_objects_, contains_revenue));

  // The metrics live in Public Objects/Metrics, not in Public Objects itself.
  SearchQuery metrics = OfTypes({model::kTypeMetric});
  metrics.root = std::string(model::kPublicObjectsFolderId);
  metrics.include_subfolders = false;
  EXPECT_TRUE(QuickNames(metrics).empty());
  metrics.root = model::PredefinedFolderId(5);  // Metrics
  EXPECT_EQ(QuickNames(metrics), Sorted(metrics_));
}

TEST_P(SearchServiceTest, ExcludedFoldersAndTheirSubfoldersAreLeftOut) {
  SearchQuery query = OfTypes({model::kTypeReportDefinition, model::kTypeMetric});
  query.excluded_folders = {std::string(model::kSharedReportsFolderId)};
  EXPECT_EQ(QuickNames(query), Sorted(metrics_));
  query.excluded_folders = {std::string(model::kPublicObjectsFolderId)};
  EXPECT_TRUE(QuickNames(query).empty());
}

TEST_P(SearchServiceTest, ARootThatIsNotAFolderOfTheProjectIsRefused) {
  for (const std::string& root : {TutorialId(model::kTypeMetric, "Revenue"),
                                  std::string("0123456789ABCDEF0123456789ABCDEF")}) {
    SearchQuery query;
    query.root = root;
    auto error = ErrorFrom([&] { Quick(admin_, query); });
    ASSERT_TRUE(error) << root;
    EXPECT_EQ(error->code(), ErrorCode::kInvalidInput);
    EXPECT_NE(error->message().find(root), std::string_view::npos) << error->message();
  }
}

TEST_P(SearchServiceTest, PagesCutTheHitsInNameOrderAndKeepTheTotal) {
  const Names all = Sorted(metrics_);
  ASSERT_GE(all.size(), 8u);
  auto page = Quick(admin_, OfTypes({model::kTypeMetric}), {.offset = 2, .limit = 5});
  EXPECT_EQ(page.total, static_cast<int64_t>(all.size()));
  EXPECT_EQ(NamesOf(page), Names(all.begin() + 2, all.begin() + 7));

  auto last = Quick(admin_, OfTypes({model::kTypeMetric}), {.offset = 6, .limit = 100});
  EXPECT_EQ(last.total, static_cast<int64_t>(all.size()));
  EXPECT_EQ(NamesOf(last), Names(all.begin() + 6, all.end()));

  auto beyond = Quick(admin_, OfTypes({model::kTypeMetric}), {.offset = 1000, .limit = 5});
  EXPECT_EQ(beyond.total, static_cast<int64_t>(all.size()));
  EXPECT_TRUE(beyond.items.empty());
}

TEST_P(SearchServiceTest, ObjectsTheCallerMayNotBrowseAreLeftOut) {
  MakePrivate(TutorialId(model::kTypeMetric, "Revenue"));
  const Names others = SortedWhere(metrics_, [](const std::string& n) { return n != "Revenue"; });
  auto heidis = Quick(heidi_, OfTypes({model::kTypeMetric}));
  EXPECT_EQ(NamesOf(heidis), others);
  EXPECT_EQ(heidis.total, static_cast<int64_t>(others.size()));
  EXPECT_TRUE(
      QuickNames(heidi_, Named("Revenue", NamePattern::kExactly, {model::kTypeMetric})).empty());
  // The administrator bypasses object security.
  EXPECT_EQ(QuickNames(admin_, OfTypes({model::kTypeMetric})), Sorted(metrics_));
}

TEST_P(SearchServiceTest, TheHiddenFilterKeepsOnlyHiddenOrOnlyVisibleObjects) {
  ChangeStored(TutorialId(model::kTypeMetric, "Profit"),
               [](model::ObjectRecord& record) { record.hidden = true; });
  SearchQuery query = OfTypes({model::kTypeMetric});
  EXPECT_EQ(QuickNames(query), Sorted(metrics_));
  query.hidden = true;
  EXPECT_EQ(QuickNames(query), Names{"Profit"});
  query.hidden = false;
  EXPECT_EQ(QuickNames(query),
            SortedWhere(metrics_, [](const std::string& n) { return n != "Profit"; }));
}

TEST_P(SearchServiceTest, UsesFindsTheMetricsBuiltOnAnObjectDirectlyOrThroughOthers) {
  const auto uses = TutorialMetricUses();
  // Directly: the metrics aggregating the Revenue fact. Recursively: also every metric whose
  // expression names one of those, and so on.
  std::set<std::string> direct, closure;
  for (const auto& [name, metric] : uses) {
    if (metric.fact == "Revenue") direct.insert(name);
  }
  closure = direct;
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& [name, metric] : uses) {
      for (const auto& used : metric.metrics) {
        if (closure.count(used) && closure.insert(name).second) grew = true;
      }
    }
  }
  ASSERT_GT(closure.size(), direct.size());

  SearchQuery query = OfTypes({model::kTypeMetric});
  query.uses_object =
      service::object::ObjectReference{TutorialId(model::kTypeFact, "Revenue"), model::kTypeFact};
  EXPECT_EQ(QuickNames(query), Names(direct.begin(), direct.end()));
  query.uses_recursive = true;
  EXPECT_EQ(QuickNames(query), Names(closure.begin(), closure.end()));
}

TEST_P(SearchServiceTest, UsedByFindsTheMetricsAnObjectIsBuiltOnDirectlyOrThroughOthers) {
  const auto uses = TutorialMetricUses();
  const std::set<std::string> direct = uses.at("Profit Margin").metrics;
  std::set<std::string> closure = direct;
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& name : std::set<std::string>(closure)) {
      for (const auto& used : uses.at(name).metrics) grew |= closure.insert(used).second;
    }
  }
  ASSERT_GT(closure.size(), direct.size());

  SearchQuery query = OfTypes({model::kTypeMetric});
  query.used_by_object = service::object::ObjectReference{
      TutorialId(model::kTypeMetric, "Profit Margin"), model::kTypeMetric};
  EXPECT_EQ(QuickNames(query), Names(direct.begin(), direct.end()));
  query.used_by_recursive = true;
  EXPECT_EQ(QuickNames(query), Names(closure.begin(), closure.end()));
}

TEST_P(SearchServiceTest, ConfigurationLevelSearchFindsUsers) {
  SearchQuery query = Named("klein", NamePattern::kContains, {model::kSubtypeUser});
  auto hits = search_->QuickSearch(heidi_, "", query, {});
  ASSERT_EQ(hits.total, 1);
  EXPECT_EQ(hits.items[0].record.id, heidi_id_);
  EXPECT_EQ(hits.items[0].record.name, "Heidi Klein");
}

TEST_P(SearchServiceTest, AStoredSearchIsFetchedInPagesByItsSessionOnly) {
  const std::string session = NewObjectId();
  auto started = search_->Start(heidi_, session, project_id_, OfTypes({model::kTypeMetric}));
  const Names all = Sorted(metrics_);
  EXPECT_EQ(started.total, static_cast<int64_t>(all.size()));
  EXPECT_EQ(started.id.size(), 32u);

  auto first = search_->Fetch(heidi_, session, started.id, {.offset = 0, .limit = 4}, false);
  EXPECT_EQ(first.total, static_cast<int64_t>(all.size()));
  EXPECT_EQ(NamesOf(first), Names(all.begin(), all.begin() + 4));
  EXPECT_TRUE(first.items[0].ancestors.empty());
  auto rest = search_->Fetch(heidi_, session, Lower(started.id), {.offset = 4, .limit = -1}, true);
  EXPECT_EQ(NamesOf(rest), Names(all.begin() + 4, all.end()));
  ASSERT_FALSE(rest.items.empty());
  ASSERT_FALSE(rest.items[0].ancestors.empty());
  EXPECT_EQ(rest.items[0].ancestors.back().name, "Metrics");

  for (const auto& [who, search_id] : std::vector<std::pair<std::string, std::string>>{
           {NewObjectId(), started.id}, {session, NewObjectId()}}) {
    auto error = ErrorFrom([&] { search_->Fetch(heidi_, who, search_id, {}, false); });
    ASSERT_TRUE(error);
    EXPECT_EQ(error->code(), ErrorCode::kNotFound);
    EXPECT_NE(error->message().find(search_id), std::string_view::npos) << error->message();
  }
}

TEST_P(SearchServiceTest, AStoredSearchEndsWithItsSession) {
  service::session::SessionService sessions(*store_, *directory_, {});
  service::session::LoginRequest login;
  login.username = "heidi";
  login.password = kHeidiPassword;
  const std::string token = sessions.Login(login);
  const std::string session = sessions.Authenticate(token)->session_id;
  auto started = search_->Start(heidi_, session, project_id_, OfTypes({model::kTypeFilter}));
  EXPECT_EQ(search_->Fetch(heidi_, session, started.id, {}, false).total,
            static_cast<int64_t>(filters_.size()));

  sessions.Logout(token);
  auto error = ErrorFrom([&] { search_->Fetch(heidi_, session, started.id, {}, false); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->code(), ErrorCode::kNotFound);
}

INSTANTIATE_TEST_SUITE_P(Backends, SearchServiceTest, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
