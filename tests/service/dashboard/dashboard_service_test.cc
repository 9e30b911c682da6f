// Dashboards at the service level, without HTTP: the demo's "Sales Overview" over a small demo
// warehouse whose cubes are published through CubeService. Covers the saved definition
// (chapters, pages, visualizations, selectors), instance creation and status, visualization data
// checked against SQL written here on the same warehouse, element-list selectors and their
// suggested elements, refused filters that change nothing, instances private to their session,
// and a visualization of an unpublished cube failing alone -- on SQLite and PostgreSQL.
#include "service/dashboard/dashboard_service.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"
#include "engine/demo_fixture.h"
#include "model/object_types.h"
#include "model/well_known.h"
#include "service/bundle/bundle_service.h"
#include "service/cube/cube_service.h"
#include "service/dashboard/filter_entry_builders.h"
#include "service/directory_service.h"
#include "service/instance/dataset_definition_service.h"
#include "service/instance/instance_store.h"
#include "service/job_runner.h"
#include "service/object/object_service.h"
#include "service/project/project_model.h"
#include "service/project/warehouse_registry.h"
#include "support/store_backend_test.h"
#include "support/temp_dir.h"

namespace tessera::testing {
namespace {

const std::filesystem::path kDemoBundle = TESSERA_SOURCE_DIR "/demo/tutorial";
constexpr char kSession[] = "dashboard-test-session";
constexpr char kRecentYears[] = "year_id >= 2023";  // the saved chapter filter "Recent Years"

// Visualization rows keyed by their attributes' ID values, each with its metrics' values.
using Rows = std::map<std::vector<std::string>, std::vector<std::optional<double>>>;

// A small demo warehouse per backend with the hand-flattened `flat` table, made on first use.
DemoWarehouse& SmallDemoWarehouse(StoreBackend backend) {
  static std::map<StoreBackend, DemoWarehouse> warehouses;
  DemoWarehouse& demo = warehouses[backend];
  if (!demo.warehouse) {
    demo.database = std::make_unique<TestDatabase>(backend);
    demo.warehouse =
        engine::warehouse::Warehouse::Open({.name = "demo", .url = demo.database->url()});
    engine::demo::GenerateDemoData(*demo.warehouse, {3000, 5});
    QueryRows(*demo.warehouse, CreateFlatSql(backend));
  }
  return demo;
}

std::optional<double> NumberOf(const engine::warehouse::SqlValue& value) {
  if (const auto* text = std::get_if<std::string>(&value)) return std::stod(*text);
  return CellNumber(value);
}

void ExpectSameRows(const Rows& actual, const Rows& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (const auto& [keys, values] : expected) {
    auto found = actual.find(keys);
    ASSERT_NE(found, actual.end()) << "missing row " << ::testing::PrintToString(keys);
    ASSERT_EQ(found->second.size(), values.size());
    for (size_t m = 0; m < values.size(); ++m) {
      ASSERT_EQ(found->second[m].has_value(), values[m].has_value());
      if (!values[m]) continue;
      EXPECT_NEAR(*found->second[m], *values[m], 1e-9 * std::max(1.0, std::abs(*values[m])))
          << ::testing::PrintToString(keys) << " metric " << m;
    }
  }
}

class DashboardServiceTest : public StoreBackendTest {
 protected:
  void SetUp() override {
    StoreBackendTest::SetUp();
    if (IsSkipped()) return;
    store_ = OpenStore();
    service::DirectoryService directory(*store_);
    directory.Bootstrap(std::nullopt);
    administrator_ = directory.LoadPrincipal(std::string(model::kAdministratorUserId));
    project_id_ = service::bundle::BundleService(*store_)
                      .Import(administrator_, kDemoBundle, "demo")
                      .project_id;
    model_ = std::make_unique<model::SemanticModel>(
        service::project::LoadSemanticModel(*store_, project_id_));

    warehouse_ = &SmallDemoWarehouse(GetParam());
    registry_ = std::make_unique<service::project::WarehouseRegistry>(
        std::map<std::string, std::string>{{"demo", warehouse_->database->url()}});
    jobs_ = std::make_unique<service::JobRunner>(*store_, service::JobRunnerOptions{});
    service::cube::CubeServiceOptions cube_options;
    cube_options.data_dir = data_dir_.path();
    cubes_ =
        std::make_unique<service::cube::CubeService>(*store_, *registry_, *jobs_, cube_options);
    cubes_->RegisterJobs();
    objects_ = std::make_unique<service::object::ObjectService>(*store_);
    definitions_ = std::make_unique<service::instance::DatasetDefinitionService>(
        *store_, *objects_, *registry_, *cubes_);
    shared_ = std::make_unique<service::instance::SharedInstances>(*store_, instances_, kIdleTtl);
    dashboards_ = std::make_unique<service::dashboard::DashboardService>(*objects_, *definitions_,
                                                                         instances_, *shared_);

    PublishCube("Sales Cube");
    if (publish_item_cube_) PublishCube("Item Sales Cube");
    overview_ = DashboardId("Sales Overview");
  }

  void PublishCube(const std::string& name) {
    const std::string id = Id(model::kTypeReportDefinition, name);
    cubes_->Publish(project_id_, id);
    cubes_->WaitForPublish(project_id_, id);
    service::cube::CubeStatus status = cubes_->Status(project_id_, id);
    ASSERT_EQ(status.state, service::cube::CubeState::kReady)
        << name << ": " << status.error_message;
  }

  std::string Id(int type, const std::string& name) const {
    auto id = model_->FindByName(type, name);
    EXPECT_TRUE(id.has_value()) << name;
    return id.value_or("");
  }
  std::string AttributeId(const std::string& name) const { return Id(model::kTypeAttribute, name); }
  std::string MetricId(const std::string& name) const { return Id(model::kTypeMetric, name); }

  std::string DashboardId(const std::string& name) {
    std::vector<model::ObjectRecord> objects;
    store_->Read(
        [&](storage::MetadataTransaction& tx) { objects = tx.ListObjects(project_id_, {}); });
    for (const auto& object : objects) {
      if (object.type == model::kTypeDocumentDefinition && object.name == name) return object.id;
    }
    ADD_FAILURE() << "no dashboard " << name;
    return "";
  }

  service::instance::InstanceCaller Caller(const std::string& session = kSession) const {
    return {administrator_, session, project_id_};
  }

  std::string CreateOverview(service::dashboard::DashboardCreateOptions options = {}) {
    return dashboards_->Create(Caller(), overview_, options);
  }

  // The rows of a visualization of the overview's instance, its metrics in `metric_names` order.
  Rows Visualization(const std::string& instance, const std::string& key,
                     const std::vector<std::string>& metric_names,
                     const std::string& chapter = "K1") {
    service::dashboard::VisualizationAnswer answer =
        dashboards_->Visualization(Caller(), overview_, instance, chapter, key);
    const engine::ResultSet& result = *answer.result;
    std::vector<int> metric_at;
    for (const auto& name : metric_names) {
      const std::string id = MetricId(name);
      auto found = std::find_if(result.metrics.begin(), result.metrics.end(),
                                [&](const engine::MetricRequest& m) { return m.id == id; });
      EXPECT_NE(found, result.metrics.end()) << key << " does not show " << name;
      metric_at.push_back(
          found == result.metrics.end() ? -1 : static_cast<int>(found - result.metrics.begin()));
    }
    Rows rows;
    for (size_t row = 0; row < result.row_count; ++row) {
      std::vector<std::string> keys;
      for (size_t a = 0; a < result.attributes.size(); ++a) {
        const engine::Dictionary& dictionary =
            result.dataset->attribute(result.attributes[a]).dictionary;
        keys.push_back(engine::CellText(dictionary.Value(0, result.codes[a][row])));
      }
      std::vector<std::optional<double>> values;
      for (int m : metric_at) {
        values.push_back(m < 0 ? std::nullopt : result.Value(static_cast<size_t>(m), row));
      }
      EXPECT_TRUE(rows.emplace(std::move(keys), std::move(values)).second) << "a row twice";
    }
    return rows;
  }

  // An independent aggregate on the warehouse: the first `keys` columns are ID values.
  Rows Expected(const std::string& sql, size_t keys) {
    Rows rows;
    for (const auto& row : QueryRows(*warehouse_->warehouse, sql)) {
      std::vector<std::string> key_texts;
      std::vector<std::optional<double>> values;
      for (size_t c = 0; c < row.size(); ++c) {
        if (c < keys) {
          key_texts.push_back(CellText(row[c]));
        } else {
          values.push_back(NumberOf(row[c]));
        }
      }
      rows.emplace(std::move(key_texts), std::move(values));
    }
    return rows;
  }

  Rows RevenueByCategory(const std::string& where) {
    return Expected(
        "SELECT category_id, SUM(revenue) FROM flat WHERE " + where + " GROUP BY category_id", 1);
  }

  Rows ProfitByRegion(const std::string& where) {
    return Expected(
        "SELECT region_id, country_id, SUM(revenue), SUM(revenue) - SUM(cost), "
        "COUNT(DISTINCT customer_id) FROM flat WHERE " +
            where + " GROUP BY region_id, country_id",
        2);
  }

  Rows ShownProfitByRegion(const std::string& instance) {
    return Visualization(instance, "W5", {"Revenue", "Profit", "Customer Count"});
  }

  // The filters body selecting `values` of Region on the chapter filter W10:
  // [{"key": "W10", "currentSelection": {"selectionStatus": status, "elements": [...]}}]
  std::vector<FilterEntry> RegionSelection(const std::string& status,
                                           const std::vector<std::string>& values) {
    std::vector<std::string> ids;
    for (const auto& value : values) ids.push_back("h" + value + ";" + AttributeId("Region"));
    const model::SelectionStatus selection_status = status == "excluded"
                                                        ? model::SelectionStatus::kExcluded
                                                        : model::SelectionStatus::kIncluded;
    return {Selecting(EntryWithKey("W10"), ElementsById(ids, selection_status))};
  }

  void SetFilters(const std::string& instance, const std::vector<FilterEntry>& entries,
                  service::dashboard::DashboardFilterOptions options = {}) {
    dashboards_->SetFilters(Caller(), overview_, instance, entries, options);
  }

  TempDir data_dir_;
  std::unique_ptr<storage::MetadataStore> store_;
  service::session::Principal administrator_;
  std::string project_id_;
  std::unique_ptr<model::SemanticModel> model_;
  DemoWarehouse* warehouse_ = nullptr;
  std::unique_ptr<service::project::WarehouseRegistry> registry_;
  std::unique_ptr<service::JobRunner> jobs_;
  std::unique_ptr<service::cube::CubeService> cubes_;
  std::unique_ptr<service::object::ObjectService> objects_;
  std::unique_ptr<service::instance::DatasetDefinitionService> definitions_;
  static constexpr std::chrono::milliseconds kIdleTtl{std::chrono::minutes(30)};
  service::instance::InstanceStore instances_;
  std::unique_ptr<service::instance::SharedInstances> shared_;
  std::unique_ptr<service::dashboard::DashboardService> dashboards_;
  std::string overview_;
  bool publish_item_cube_ = true;  // before SetUp
};

TEST_P(DashboardServiceTest, TheDefinitionListsTheSavedChaptersPagesAndVisualizations) {
  service::dashboard::DashboardView view =
      dashboards_->Definition(administrator_, project_id_, overview_);
  const model::Dashboard& dashboard = view.model->dashboard;
  EXPECT_EQ(dashboard.id, overview_);
  EXPECT_EQ(dashboard.name, "Sales Overview");
  EXPECT_TRUE(dashboard.parallel_rendering);
  EXPECT_EQ(dashboard.dataset_ids,
            (std::vector<std::string>{Id(model::kTypeReportDefinition, "Sales Cube"),
                                      Id(model::kTypeReportDefinition, "Item Sales Cube")}));
  EXPECT_EQ(view.model->datasets.size(), 2u);

  ASSERT_EQ(dashboard.chapters.size(), 1u);
  const model::Chapter& chapter = dashboard.chapters[0];
  EXPECT_EQ(chapter.key, "K1");
  EXPECT_EQ(chapter.name, "Overview");
  std::vector<std::string> filters;
  for (const auto& filter : chapter.filters) filters.push_back(filter.key + " " + filter.name);
  EXPECT_EQ(filters, (std::vector<std::string>{"W10 Region", "W11 Recent Years", "W12 Revenue"}));
  ASSERT_EQ(chapter.pages.size(), 2u);
  std::vector<std::string> pages, visualizations;
  for (const auto& page : chapter.pages) {
    pages.push_back(page.key + " " + page.name);
    for (const auto& visualization : page.visualizations) {
      visualizations.push_back(visualization.key + " " + visualization.name);
    }
  }
  EXPECT_EQ(pages, (std::vector<std::string>{"K2 Summary", "K3 Products"}));
  EXPECT_EQ(visualizations, (std::vector<std::string>{
                                "W1 Revenue KPI", "W2 Revenue by Year", "W3 Monthly Revenue",
                                "W4 Revenue by Category", "W5 Profit by Region",
                                "W6 Units by Channel", "W7 Items", "W8 Subcategory Revenue"}));
  const model::Visualization* by_region = dashboard.FindVisualization("W5");
  ASSERT_NE(by_region, nullptr);
  EXPECT_EQ(by_region->dataset_id, Id(model::kTypeReportDefinition, "Sales Cube"));
  EXPECT_EQ(by_region->attribute_ids,
            (std::vector<std::string>{AttributeId("Region"), AttributeId("Country")}));
  EXPECT_EQ(by_region->metric_ids,
            (std::vector<std::string>{MetricId("Revenue"), MetricId("Profit"),
                                      MetricId("Customer Count")}));

  // The saved state starts on the first page; the region filter selects nothing yet.
  EXPECT_EQ(view.state->current_chapter, "K1");
  EXPECT_EQ(view.state->current_page, "K2");
  const model::Selector* region = dashboard.FindSelector("W10");
  ASSERT_NE(region, nullptr);
  EXPECT_EQ(region->source_id.value_or(""), AttributeId("Region"));
  EXPECT_EQ(view.state->SelectionOf(*region).status, model::SelectionStatus::kUnfiltered);
}

TEST_P(DashboardServiceTest, AnInstanceIsCreatedWithTheStatusItAskedFor) {
  const std::string executed = CreateOverview();
  EXPECT_EQ(executed.size(), 32u);
  service::dashboard::DashboardInstanceStatus status =
      dashboards_->Status(Caller(), overview_, executed);
  EXPECT_EQ(status.dashboard_id, overview_);
  EXPECT_EQ(status.instance_id, executed);
  EXPECT_FALSE(status.resolve_only);
  EXPECT_TRUE(status.parallel_rendering);  // asked for by default, allowed by the dashboard

  service::dashboard::DashboardCreateOptions sequential;
  sequential.enable_parallel_rendering = false;
  EXPECT_FALSE(
      dashboards_->Status(Caller(), overview_, CreateOverview(sequential)).parallel_rendering);

  service::dashboard::DashboardCreateOptions resolve;
  resolve.resolve_only = true;
  const std::string resolved = CreateOverview(resolve);
  EXPECT_NE(resolved, executed);
  EXPECT_TRUE(dashboards_->Status(Caller(), overview_, resolved).resolve_only);
  // Reading a visualization executes a resolved instance.
  EXPECT_FALSE(Visualization(resolved, "W1", {"Revenue"}).empty());
  EXPECT_FALSE(dashboards_->Status(Caller(), overview_, resolved).resolve_only);

  // A dashboard without the parallelRendering property never renders in parallel.
  const std::string regional = DashboardId("Regional Performance");
  const std::string instance = dashboards_->Create(Caller(), regional, {});
  EXPECT_FALSE(dashboards_->Status(Caller(), regional, instance).parallel_rendering);

  // Opening on another page.
  service::dashboard::DashboardCreateOptions products;
  products.target_page_key = "K3";
  const std::string on_products = CreateOverview(products);
  service::dashboard::DashboardView view =
      dashboards_->InstanceDefinition(Caller(), overview_, on_products);
  EXPECT_EQ(view.state->current_chapter, "K1");
  EXPECT_EQ(view.state->current_page, "K3");
  products.target_page_key = "K9";
  auto bad_page = ErrorFrom([&] { CreateOverview(products); });
  ASSERT_TRUE(bad_page);
  EXPECT_EQ(bad_page->code(), ErrorCode::kInvalidInput);
  EXPECT_NE(std::string(bad_page->message()).find("K9"), std::string::npos) << bad_page->message();
}

TEST_P(DashboardServiceTest, VisualizationsShowTheWarehouseAggregatesUnderTheSavedFilters) {
  const std::string instance = CreateOverview();
  ExpectSameRows(Visualization(instance, "W4", {"Revenue"}), RevenueByCategory(kRecentYears));
  ExpectSameRows(ShownProfitByRegion(instance), ProfitByRegion(kRecentYears));
  ExpectSameRows(Visualization(instance, "W1", {"Revenue", "Profit"}),
                 Expected(std::string("SELECT SUM(revenue), SUM(revenue) - SUM(cost) FROM flat "
                                      "WHERE ") +
                              kRecentYears,
                          0));
  ExpectSameRows(Visualization(instance, "W3", {"Revenue", "Cost"}),
                 Expected(std::string("SELECT month_id, SUM(revenue), SUM(cost) FROM flat WHERE ") +
                              kRecentYears + " GROUP BY month_id",
                          1));
  // The Item Sales Cube has no Year: the chapter's year filter does not reach its visualizations.
  ExpectSameRows(Visualization(instance, "W8", {"Revenue", "Cost"}),
                 Expected("SELECT subcategory_id, SUM(revenue), SUM(cost) FROM flat "
                          "GROUP BY subcategory_id",
                          1));
}

TEST_P(DashboardServiceTest, AnElementListSelectionFiltersTheVisualizationsItReaches) {
  const std::string instance = CreateOverview({.enable_parallel_rendering = false,
                                               .filters = {},
                                               .target_page_key = {},
                                               .bookmark_id = {}});
  const Rows items_before = Visualization(instance, "W8", {"Revenue", "Cost"});

  SetFilters(instance, RegionSelection("included", {"1", "2"}));
  ExpectSameRows(ShownProfitByRegion(instance),
                 ProfitByRegion(std::string("region_id IN (1, 2) AND ") + kRecentYears));
  ExpectSameRows(Visualization(instance, "W4", {"Revenue"}),
                 RevenueByCategory(std::string("region_id IN (1, 2) AND ") + kRecentYears));
  // The Item Sales Cube has no Region: untouched.
  ExpectSameRows(Visualization(instance, "W8", {"Revenue", "Cost"}), items_before);
  service::dashboard::DashboardView view =
      dashboards_->InstanceDefinition(Caller(), overview_, instance);
  const model::Selection& selection =
      view.state->SelectionOf(*view.model->dashboard.FindSelector("W10"));
  EXPECT_EQ(selection.status, model::SelectionStatus::kIncluded);
  EXPECT_EQ(selection.elements,
            (std::vector<std::string>{AttributeId("Region") + ":1", AttributeId("Region") + ":2"}));

  SetFilters(instance, RegionSelection("excluded", {"1", "2"}));
  ExpectSameRows(ShownProfitByRegion(instance),
                 ProfitByRegion(std::string("region_id NOT IN (1, 2) AND ") + kRecentYears));

  // Clearing the selector (an entry with its key alone) shows every region again.
  SetFilters(instance, {EntryWithKey("W10")});
  ExpectSameRows(ShownProfitByRegion(instance), ProfitByRegion(kRecentYears));

  // A single-selection selector on its target only: W14 (Channel) reaches W6, not W5.
  SetFilters(instance,
             {Selecting(EntryWithKey("W14"), ElementsById({"h2;" + AttributeId("Channel")}))});
  ExpectSameRows(Visualization(instance, "W6", {"Units Sold"}),
                 Expected(std::string("SELECT quarter_id, channel_id, SUM(units) FROM flat WHERE "
                                      "channel_id = 2 AND ") +
                              kRecentYears + " GROUP BY quarter_id, channel_id",
                          2));
  ExpectSameRows(ShownProfitByRegion(instance), ProfitByRegion(kRecentYears));
}

TEST_P(DashboardServiceTest, FiltersGivenAtCreationApplyFromTheStart) {
  service::dashboard::DashboardCreateOptions options;
  options.filters = std::optional(RegionSelection("included", {"3"}));
  const std::string instance = CreateOverview(options);
  ExpectSameRows(ShownProfitByRegion(instance),
                 ProfitByRegion(std::string("region_id = 3 AND ") + kRecentYears));
  // Another instance of the same dashboard is not affected.
  ExpectSameRows(ShownProfitByRegion(CreateOverview()), ProfitByRegion(kRecentYears));
}

TEST_P(DashboardServiceTest, BadFiltersAreRefusedWithAClearErrorAndChangeNothing) {
  const std::string instance = CreateOverview({.enable_parallel_rendering = false,
                                               .filters = {},
                                               .target_page_key = {},
                                               .bookmark_id = {}});
  SetFilters(instance, RegionSelection("included", {"1"}));
  const Rows rows_before = ShownProfitByRegion(instance);
  const uint64_t generation_before =
      dashboards_->InstanceDefinition(Caller(), overview_, instance).state->generation;

  const std::vector<FilterEntry> unknown_key = {Unset(EntryWithKey("W404"))};
  const std::vector<std::pair<std::string, std::vector<FilterEntry>>> cases = {
      {"unknown key", unknown_key},
      {"a valid entry then an unknown one",
       {RegionSelection("included", {"2"})[0], unknown_key[0]}},
      {"an element of another attribute",
       {Selecting(EntryWithKey("W10"), ElementsById({"h2023;" + AttributeId("Year")}))}},
      {"a malformed element id", {Selecting(EntryWithKey("W10"), ElementsById({"xyz"}))}},
      {"two elements on a single selection",
       {Selecting(EntryWithKey("W14"),
                  ElementsById({"h1;" + AttributeId("Channel"), "h2;" + AttributeId("Channel")}))}},
      {"an element named nowhere", {Selecting(EntryWithKey("W10"), ElementNamed("Atlantis"))}},
      {"excluded on a qualification",
       {Selecting(EntryWithKey("W11"), WithStatus(model::SelectionStatus::kExcluded))}},
  };
  for (const auto& [what, body] : cases) {
    SCOPED_TRACE(what);
    auto refused = ErrorFrom([&] { SetFilters(instance, body); });
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->code(), ErrorCode::kInvalidInput) << refused->message();
    // The same entries at creation create nothing.
    const size_t instances = instances_.InstanceCount();
    service::dashboard::DashboardCreateOptions options;
    options.filters = std::optional(body);
    auto at_creation = ErrorFrom([&] { CreateOverview(options); });
    ASSERT_TRUE(at_creation);
    EXPECT_EQ(at_creation->code(), ErrorCode::kInvalidInput) << at_creation->message();
    EXPECT_EQ(instances_.InstanceCount(), instances);
  }
  auto unknown = ErrorFrom([&] { SetFilters(instance, unknown_key); });
  ASSERT_TRUE(unknown);
  EXPECT_NE(std::string(unknown->message()).find("W404"), std::string::npos) << unknown->message();
  auto other_attribute = ErrorFrom([&] { SetFilters(instance, cases[2].second); });
  ASSERT_TRUE(other_attribute);
  EXPECT_NE(std::string(other_attribute->message()).find("Region"), std::string::npos)
      << other_attribute->message();

  service::dashboard::DashboardView view =
      dashboards_->InstanceDefinition(Caller(), overview_, instance);
  EXPECT_EQ(view.state->generation, generation_before);
  EXPECT_EQ(view.state->SelectionOf(*view.model->dashboard.FindSelector("W10")).elements,
            std::vector<std::string>{AttributeId("Region") + ":1"});
  ExpectSameRows(ShownProfitByRegion(instance), rows_before);

  // With ignore_missing_filter the unknown entry is skipped and the others applied.
  SetFilters(instance, cases[1].second, {.ignore_missing_filter = true});
  ExpectSameRows(ShownProfitByRegion(instance),
                 ProfitByRegion(std::string("region_id = 2 AND ") + kRecentYears));
}

TEST_P(DashboardServiceTest, SuggestedElementsFollowTheOtherSelectorsOfTheChapter) {
  const std::string instance = CreateOverview();
  const auto regions = QueryRows(*warehouse_->warehouse,
                                 std::string("SELECT DISTINCT region_id, region_name FROM flat "
                                             "WHERE ") +
                                     kRecentYears + " ORDER BY region_id");
  ASSERT_GE(regions.size(), 3u);
  std::vector<std::string> names;
  for (const auto& row : regions) names.push_back(CellText(row[1]));

  auto names_of = [](const service::dashboard::ElementsAnswer& answer) {
    std::vector<std::string> listed;
    for (const auto& element : answer.elements) listed.push_back(element.name);
    return listed;
  };
  service::dashboard::ElementsAnswer all =
      dashboards_->Elements(Caller(), overview_, instance,
                            {.filter_key = "W10", .target_id = {}, .pattern = {}, .form_ids = {}});
  EXPECT_EQ(all.total, static_cast<int64_t>(names.size()));
  EXPECT_EQ(names_of(all), names);

  service::dashboard::ElementsAnswer page = dashboards_->Elements(Caller(), overview_, instance,
                                                                  {.filter_key = "W10",
                                                                   .target_id = {},
                                                                   .pattern = {},
                                                                   .form_ids = {},
                                                                   .offset = 1,
                                                                   .limit = 2});
  EXPECT_EQ(page.total, static_cast<int64_t>(names.size()));
  EXPECT_EQ(names_of(page), (std::vector<std::string>{names[1], names[2]}));

  // Not an element list, or an attribute no dataset holds: refused.
  auto qualification = ErrorFrom([&] {
    dashboards_->Elements(Caller(), overview_, instance,
                          {.filter_key = "W11", .target_id = {}, .pattern = {}, .form_ids = {}});
  });
  ASSERT_TRUE(qualification);
  EXPECT_EQ(qualification->code(), ErrorCode::kInvalidInput);
  auto day = ErrorFrom([&] {
    dashboards_->Elements(
        Caller(), overview_, instance,
        {.filter_key = {}, .target_id = AttributeId("Day"), .pattern = {}, .form_ids = {}});
  });
  ASSERT_TRUE(day);
  EXPECT_EQ(day->code(), ErrorCode::kInvalidInput);
}

TEST_P(DashboardServiceTest, InstancesBelongToTheirSessionAndEndWhenDeleted) {
  const std::string instance = CreateOverview();
  auto expect_not_found = [&](const std::function<void()>& call, const std::string& what) {
    auto error = ErrorFrom(call);
    ASSERT_TRUE(error) << what;
    EXPECT_EQ(error->code(), ErrorCode::kNotFound) << what << ": " << error->message();
  };
  expect_not_found([&] { dashboards_->Status(Caller("another session"), overview_, instance); },
                   "another session");
  expect_not_found(
      [&] {
        dashboards_->Status({administrator_, kSession, std::string(32, 'A')}, overview_, instance);
      },
      "another project");
  expect_not_found([&] { dashboards_->Visualization(Caller(), overview_, instance, "K9", "W4"); },
                   "a chapter the visualization is not in");
  expect_not_found([&] { dashboards_->Visualization(Caller(), overview_, instance, "K1", "W99"); },
                   "an unknown visualization");
  expect_not_found(
      [&] { dashboards_->Definition(administrator_, project_id_, std::string(32, 'B')); },
      "an unknown dashboard");
  expect_not_found(
      [&] {
        dashboards_->Definition(administrator_, project_id_,
                                Id(model::kTypeReportDefinition, "Sales Cube"));
      },
      "a cube is no dashboard");
  expect_not_found([&] { dashboards_->Definition(administrator_, project_id_, "not an id"); },
                   "a malformed id");

  // Lower case names the same instance; deleting ends it.
  std::string lower = instance;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  EXPECT_EQ(dashboards_->Status(Caller(), overview_, lower).instance_id, instance);
  dashboards_->Delete(Caller(), overview_, instance);
  expect_not_found([&] { dashboards_->Status(Caller(), overview_, instance); }, "deleted");
  expect_not_found([&] { Visualization(instance, "W4", {"Revenue"}); }, "deleted visualization");
}

// Another node on the same storage service: its own instances in memory, the same records.
TEST_P(DashboardServiceTest, AnotherNodeAnswersForAnInstanceAndFollowsItsChanges) {
  service::instance::InstanceStore other_instances;
  service::instance::SharedInstances other_shared(*store_, other_instances, kIdleTtl);
  service::dashboard::DashboardService other(*objects_, *definitions_, other_instances,
                                             other_shared);
  auto shown_on = [&](service::dashboard::DashboardService& node, const std::string& instance) {
    service::dashboard::VisualizationAnswer answer =
        node.Visualization(Caller(), overview_, instance, "K1", "W5");
    return answer.result->row_count;
  };

  const std::string instance = CreateOverview({.enable_parallel_rendering = false,
                                               .filters = {},
                                               .target_page_key = {},
                                               .bookmark_id = {}});
  SetFilters(instance, RegionSelection("included", {"1", "2"}));
  const Rows filtered = ProfitByRegion(std::string("region_id IN (1, 2) AND ") + kRecentYears);
  EXPECT_EQ(shown_on(other, instance), filtered.size());
  service::dashboard::DashboardView view = other.InstanceDefinition(Caller(), overview_, instance);
  EXPECT_EQ(view.state->SelectionOf(*view.model->dashboard.FindSelector("W10")).elements,
            (std::vector<std::string>{AttributeId("Region") + ":1", AttributeId("Region") + ":2"}));
  EXPECT_EQ(other_instances.InstanceCount(), 1u);

  // Changed on the other node: this node, which holds the older state, follows.
  other.SetFilters(Caller(), overview_, instance, RegionSelection("excluded", {"1", "2"}), {});
  ExpectSameRows(ShownProfitByRegion(instance),
                 ProfitByRegion(std::string("region_id NOT IN (1, 2) AND ") + kRecentYears));

  // Another session does not reach it on either node; deleted on one, it is gone on both.
  auto foreign = ErrorFrom([&] { other.Status(Caller("another session"), overview_, instance); });
  ASSERT_TRUE(foreign) << "another session reached the instance";
  EXPECT_EQ(foreign->code(), ErrorCode::kNotFound);
  other.Delete(Caller(), overview_, instance);
  auto gone = ErrorFrom([&] { dashboards_->Status(Caller(), overview_, instance); });
  ASSERT_TRUE(gone) << "the deleted instance still answers on the node that made it";
  EXPECT_EQ(gone->code(), ErrorCode::kNotFound);
}

// The first visualization read of a resolve-only instance executes it; two nodes reading at the
// same moment both execute it, and neither reader may get the 409 of the other's change.
TEST_P(DashboardServiceTest, TwoNodesExecutingAResolvedInstanceAtOnceBothAnswer) {
  service::instance::InstanceStore other_instances;
  service::instance::SharedInstances other_shared(*store_, other_instances, kIdleTtl);
  service::dashboard::DashboardService other(*objects_, *definitions_, other_instances,
                                             other_shared);
  for (int round = 0; round < 10; ++round) {
    const std::string instance = CreateOverview(
        {.resolve_only = true, .filters = {}, .target_page_key = {}, .bookmark_id = {}});
    other.Status(Caller(), overview_, instance);  // the other node holds it, resolved
    std::optional<Error> errors[2];
    auto read_on = [&](service::dashboard::DashboardService& node, std::optional<Error>& error) {
      error = ErrorFrom([&] { node.Visualization(Caller(), overview_, instance, "K1", "W5"); });
    };
    std::thread first([&] { read_on(*dashboards_, errors[0]); });
    std::thread second([&] { read_on(other, errors[1]); });
    first.join();
    second.join();
    for (const auto& error : errors) {
      EXPECT_FALSE(error) << "round " << round << ": " << error->message();
    }
    EXPECT_FALSE(other.Status(Caller(), overview_, instance).resolve_only);
  }
}

class DashboardServiceWithoutItemCubeTest : public DashboardServiceTest {
 protected:
  DashboardServiceWithoutItemCubeTest() { publish_item_cube_ = false; }
};

TEST_P(DashboardServiceWithoutItemCubeTest, AVisualizationOfAnUnpublishedCubeFailsAlone) {
  for (bool parallel : {false, true}) {
    SCOPED_TRACE(parallel ? "parallel" : "sequential");
    const std::string instance = CreateOverview({.enable_parallel_rendering = parallel,
                                                 .filters = {},
                                                 .target_page_key = {},
                                                 .bookmark_id = {}});
    auto failed = ErrorFrom([&] { Visualization(instance, "W8", {"Revenue", "Cost"}); });
    ASSERT_TRUE(failed);
    EXPECT_EQ(failed->code(), ErrorCode::kEngine) << failed->message();
    ExpectSameRows(Visualization(instance, "W4", {"Revenue"}), RevenueByCategory(kRecentYears));
    ExpectSameRows(ShownProfitByRegion(instance), ProfitByRegion(kRecentYears));
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, DashboardServiceTest, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);
INSTANTIATE_TEST_SUITE_P(Backends, DashboardServiceWithoutItemCubeTest,
                         ::testing::ValuesIn(kAllStoreBackends), BackendParamName);

}  // namespace
}  // namespace tessera::testing
