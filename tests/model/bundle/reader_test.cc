#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "core/ids.h"
#include "model/bundle/bundle.h"
#include "model/object_types.h"
#include "model/small_bundle.h"

namespace tessera::model::bundle {
namespace {

using testing::SmallBundle;

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using ::testing::StartsWith;

const std::filesystem::path kDemoBundle = TESSERA_SOURCE_DIR "/demo/tutorial";

std::string TutorialId(int type, const std::string& name) {
  return DeterministicObjectId("tessera:Tutorial:" + std::to_string(type) + ":" + name);
}

const bundle::BundleObject& Find(const bundle::Bundle& bundle, int type, const std::string& name) {
  for (const auto& object : bundle.objects) {
    if (object.record.type == type && object.record.name == name) return object;
  }
  throw std::runtime_error("no object " + name);
}

int CountOf(const bundle::Bundle& bundle, int subtype) {
  int count = 0;
  for (const auto& object : bundle.objects) count += object.record.subtype == subtype ? 1 : 0;
  return count;
}

TEST(BundleRead, DemoBundleHoldsTheTutorialProject) {
  const bundle::Bundle bundle = bundle::ReadBundle(kDemoBundle);

  EXPECT_EQ(bundle.project_name, "Tutorial");
  EXPECT_EQ(bundle.warehouse, "demo");
  EXPECT_EQ(CountOf(bundle, 3840), 14);  // tables
  EXPECT_EQ(CountOf(bundle, 3072), 14);  // attributes
  EXPECT_EQ(CountOf(bundle, 3328), 5);   // facts
  EXPECT_EQ(CountOf(bundle, 1024), 16);  // metrics
  EXPECT_GE(CountOf(bundle, 256), 3);    // filters
  EXPECT_GE(CountOf(bundle, kSubtypeReportGrid), 5);
  EXPECT_EQ(CountOf(bundle, kSubtypeOlapCube), 3);
  EXPECT_EQ(CountOf(bundle, kSubtypeDashboard), 2);
}

TEST(BundleRead, ObjectsWithoutIdGetTheDeterministicIdOfSpec05) {
  const bundle::Bundle bundle = bundle::ReadBundle(kDemoBundle);

  const std::string region_seed = "tessera:Tutorial:12:Region";
  EXPECT_EQ(Find(bundle, kTypeAttribute, "Region").record.id, DeterministicObjectId(region_seed));
  EXPECT_EQ(bundle.project_id, DeterministicObjectId("tessera:Tutorial:32:Tutorial"));
}

TEST(BundleRead, ObjectsComeKindByKindInDependencyOrder) {
  const bundle::Bundle bundle = bundle::ReadBundle(kDemoBundle);

  const std::vector<int> order = {3840, 3072, 3328, 1024, 256, 776, 768, 14081};
  size_t rank = 0;
  for (const auto& object : bundle.objects) {
    while (rank < order.size() && order[rank] != object.record.subtype) ++rank;
    ASSERT_LT(rank, order.size()) << object.record.name << " is out of order";
  }
  EXPECT_EQ(bundle.objects.front().record.name, "lu_year");
  EXPECT_EQ(bundle.objects.front().location, "tables.yaml:3");
}

TEST(BundleRead, AttributesReferToTablesAndParentsById) {
  const bundle::Bundle bundle = bundle::ReadBundle(kDemoBundle);

  const bundle::BundleObject& city = Find(bundle, kTypeAttribute, "City");
  EXPECT_EQ(city.record.definition,
            Json::parse(R"({"lookupTable": ")" + TutorialId(15, "lu_city") + R"(", "parent": ")" +
                        TutorialId(12, "Country") + R"(",)" +
                        R"("forms": [{"name": "ID", "column": "city_id"},)" +
                        R"({"name": "DESC", "column": "city_name"}]})"));
  EXPECT_EQ(city.folder_path, "Schema Objects/Attributes");
  EXPECT_EQ(city.record.subtype, 3072);
}

TEST(BundleRead, TablesKeepTheirColumnsAndTypes) {
  const bundle::Bundle bundle = bundle::ReadBundle(kDemoBundle);

  const Json& table = Find(bundle, kTypeTable, "lu_day").record.definition;
  EXPECT_EQ(table, Json::parse(R"({"physicalName": "lu_day", "columns": [
      {"name": "day_id", "dataType": "date"}, {"name": "month_id", "dataType": "string"}]})"));
}

TEST(BundleRead, CompoundMetricsReferToMetricsById) {
  const bundle::Bundle bundle = bundle::ReadBundle(kDemoBundle);

  const Json& margin = Find(bundle, kTypeMetric, "Profit Margin").record.definition;
  EXPECT_THAT(margin["expression"].get<std::string>(),
              AllOf(HasSubstr("[" + TutorialId(4, "Profit") + "]"),
                    HasSubstr("[" + TutorialId(4, "Revenue") + "]")));
  EXPECT_EQ(margin["format"], Json::parse(R"({"formatString": "0.00%"})"));
  EXPECT_EQ(Find(bundle, kTypeMetric, "Customer Count").record.definition,
            Json::parse(R"({"function": "count_distinct", "attribute": ")" +
                        TutorialId(12, "Customer") + R"(", "format": {"formatString": "#,##0"}})"));
}

TEST(BundleRead, ReportsOnACubeNameTheCube) {
  const bundle::Bundle bundle = bundle::ReadBundle(kDemoBundle);

  const bundle::BundleObject& report =
      Find(bundle, kTypeReportDefinition, "Quarterly Sales by Channel");
  EXPECT_EQ(report.record.subtype, kSubtypeReportGrid);
  EXPECT_EQ(report.record.definition["source"], "cube");
  EXPECT_EQ(report.record.definition["cube"], TutorialId(3, "Sales Cube"));
  EXPECT_EQ(report.record.definition["rows"],
            Json::array({TutorialId(12, "Quarter"), TutorialId(12, "Channel")}));
  EXPECT_EQ(report.folder_path, "Public Objects/Reports");
  EXPECT_EQ(report.location, "reports/quarterly-sales-by-channel.yaml:1");
}

TEST(BundleRead, ElementQualificationsUseAttributeIdColonValue) {
  const bundle::Bundle bundle = bundle::ReadBundle(kDemoBundle);

  const std::string year = TutorialId(12, "Year");
  EXPECT_EQ(Find(bundle, kTypeFilter, "Year 2024").record.definition,
            Json::parse(R"({"qualification": {"operator": "In", "operands": [
                {"type": "attribute", "id": ")" +
                        year + R"("},
                {"type": "elements", "elements": [{"id": ")" +
                        year + R"(:2024"}]}]}})"));
}

TEST(BundleRead, FormQualificationsKeepTheFormName) {
  const bundle::Bundle bundle = bundle::ReadBundle(kDemoBundle);

  const Json& tree = Find(bundle, kTypeFilter, "Western Europe").record.definition["qualification"];
  EXPECT_EQ(tree["operands"][0],
            Json::parse(R"({"type": "form", "attribute": {"id": ")" + TutorialId(12, "Region") +
                        R"("}, "form": {"name": "DESC"}})"));
  EXPECT_EQ(tree["operands"][1], Json::parse(R"({"type": "constants", "dataType": "Char",
                                                 "values": ["Western Europe"]})"));
}

TEST(BundleRead, DashboardsResolveDatasetsAttributesAndMetrics) {
  const bundle::Bundle bundle = bundle::ReadBundle(kDemoBundle);

  const bundle::BundleObject& dashboard = Find(bundle, kTypeDocumentDefinition, "Sales Overview");
  const Json& definition = dashboard.record.definition;
  EXPECT_EQ(dashboard.record.subtype, kSubtypeDashboard);
  EXPECT_EQ(dashboard.folder_path, "Public Objects/Shared Dashboards");
  EXPECT_EQ(definition["isDashboard"], true);
  EXPECT_EQ(definition["parallelRendering"], true);
  EXPECT_FALSE(definition.contains("name"));
  const Json& visualization = definition["chapters"][0]["pages"][0]["visualizations"][1];
  EXPECT_EQ(visualization["dataset"], TutorialId(3, "Sales Cube"));
  EXPECT_EQ(visualization["attributes"], Json::array({TutorialId(12, "Year")}));
  EXPECT_EQ(visualization["metrics"], Json::array({TutorialId(4, "Revenue")}));
  EXPECT_EQ(visualization["key"], "W2");
}

TEST(BundleRead, SalesOverviewRendersInParallelWithAtLeastSixVisualizations) {
  const bundle::Bundle bundle = bundle::ReadBundle(kDemoBundle);

  size_t visualizations = 0;
  const Json& definition =
      Find(bundle, kTypeDocumentDefinition, "Sales Overview").record.definition;
  for (const auto& chapter : definition["chapters"]) {
    for (const auto& page : chapter["pages"]) visualizations += page["visualizations"].size();
  }
  EXPECT_GE(visualizations, 6u);
}

TEST(BundleRead, SmallBundleIsValid) {
  SmallBundle bundle;

  EXPECT_THAT(bundle.Problems(), IsEmpty());
  EXPECT_EQ(bundle.Read().objects.size(), 8u);  // 3 tables, 2 attributes, fact, metric, report
}

TEST(BundleRead, ExplicitIdsAreCanonicalAndMayBeReferencedById) {
  SmallBundle bundle;
  bundle.Write("metrics.yaml",
               "metrics:\n"
               "  - name: Revenue\n"
               "    id: 0123456789abcdef0123456789abcdef\n"
               "    function: sum\n"
               "    fact: Revenue\n");
  bundle.Write("reports/sales.yaml",
               "name: Sales\n"
               "rows: [City]\n"
               "columns: [0123456789ABCDEF0123456789ABCDEF]\n");

  const bundle::Bundle read = bundle.Read();

  EXPECT_EQ(Find(read, kTypeMetric, "Revenue").record.id, "0123456789ABCDEF0123456789ABCDEF");
  EXPECT_EQ(Find(read, kTypeReportDefinition, "Sales").record.definition["columns"],
            Json::array({"0123456789ABCDEF0123456789ABCDEF"}));
}

TEST(BundleRead, ExplicitFolderOverridesTheDefault) {
  SmallBundle bundle;
  bundle.Write("reports/sales.yaml",
               "name: Sales\n"
               "folder: Public Objects/Reports/Regional\n"
               "rows: [City]\n"
               "columns: [Revenue]\n");

  EXPECT_EQ(Find(bundle.Read(), kTypeReportDefinition, "Sales").folder_path,
            "Public Objects/Reports/Regional");
}

TEST(BundleReject, UnknownReferenceAtItsLine) {
  SmallBundle bundle;
  bundle.Write("reports/sales.yaml",
               "name: Sales\n"
               "description: by region\n"
               "rows:\n"
               "  - Regoin\n"
               "columns: [Revenue]\n");

  EXPECT_THAT(bundle.Problems(),
              ElementsAre("reports/sales.yaml:4: 'Regoin' is not an attribute of this bundle"));
}

TEST(BundleReject, ReferenceToAnObjectOfAnotherKind) {
  SmallBundle bundle;
  bundle.Write("reports/sales.yaml",
               "name: Sales\n"
               "rows: [City]\n"
               "columns: [City]\n");

  EXPECT_THAT(bundle.Problems(),
              ElementsAre("reports/sales.yaml:3: 'City' is not a metric of this bundle"));
}

TEST(BundleReject, CycleInParents) {
  SmallBundle bundle;
  bundle.Write("tables.yaml",
               "tables:\n"
               "  - name: lu_region\n"
               "    columns:\n"
               "      - {name: region_id, type: integer}\n"
               "      - {name: city_id, type: integer}\n"
               "  - name: lu_city\n"
               "    columns:\n"
               "      - {name: city_id, type: integer}\n"
               "      - {name: region_id, type: integer}\n"
               "  - name: sales\n"
               "    columns:\n"
               "      - {name: city_id, type: integer}\n"
               "      - {name: revenue, type: real}\n");
  bundle.Write("attributes.yaml",
               "attributes:\n"
               "  - name: Region\n"
               "    table: lu_region\n"
               "    parent: City\n"
               "    forms: [{name: ID, column: region_id}]\n"
               "  - name: City\n"
               "    table: lu_city\n"
               "    parent: Region\n"
               "    forms: [{name: ID, column: city_id}]\n");

  EXPECT_THAT(
      bundle.Problems(),
      ElementsAre(AllOf(StartsWith("attributes.yaml:2: attribute 'Region': "), HasSubstr("cycle")),
                  AllOf(StartsWith("attributes.yaml:6: attribute 'City': "), HasSubstr("cycle"))));
}

TEST(BundleReject, FactNamingNoColumnOfItsTables) {
  SmallBundle bundle;
  bundle.Write("facts.yaml",
               "facts:\n"
               "  - name: Revenue\n"
               "    tables: [sales]\n"
               "    expression: revnue * 2\n");

  EXPECT_THAT(bundle.Problems(), ElementsAre(AllOf(StartsWith("facts.yaml:2: fact 'Revenue': "),
                                                   HasSubstr("'revnue'"))));
}

TEST(BundleReject, FactExpressionThatDoesNotParse) {
  SmallBundle bundle;
  bundle.Write("facts.yaml",
               "facts:\n"
               "  - name: Revenue\n"
               "    tables: [sales]\n"
               "    expression: revenue -\n");

  EXPECT_THAT(bundle.Problems(), ElementsAre(StartsWith("facts.yaml:4: ")));
}

TEST(BundleReject, YamlSyntaxErrorAtYamlCppsMark) {
  SmallBundle bundle;
  bundle.Write("metrics.yaml",
               "metrics:\n"
               "  - name: Revenue\n"
               "    function: [sum\n"
               "    fact: Revenue\n");

  const std::vector<std::string> problems = bundle.Problems();

  ASSERT_THAT(problems, SizeIs(2));
  EXPECT_THAT(problems[0], StartsWith("metrics.yaml:4: invalid YAML: "));
  // Without the metric, the report's column no longer resolves.
  EXPECT_EQ(problems[1], "reports/sales.yaml:3: 'Revenue' is not a metric of this bundle");
}

TEST(BundleReject, FieldOfTheWrongType) {
  SmallBundle bundle;
  bundle.Write("reports/sales.yaml",
               "name: Sales\n"
               "rows: City\n"
               "columns:\n"
               "  - {name: Revenue}\n");

  EXPECT_THAT(bundle.Problems(),
              ElementsAre("reports/sales.yaml:2: rows: expected a list",
                          "reports/sales.yaml:4: expected the name of a metric"));
}

TEST(BundleReject, UnknownColumnType) {
  SmallBundle bundle;
  bundle.Write("tables.yaml",
               "tables:\n"
               "  - name: sales\n"
               "    columns:\n"
               "      - {name: city_id, type: integer}\n"
               "      - {name: revenue, type: money}\n");
  bundle.Write("attributes.yaml", "attributes: []\n");
  bundle.Write("reports/sales.yaml", "name: Sales\ncolumns: [Revenue]\n");

  EXPECT_THAT(bundle.Problems(), ElementsAre(AllOf(StartsWith("tables.yaml:5: type: 'money' "),
                                                   HasSubstr("integer, real, string"))));
}

TEST(BundleReject, DuplicateNamesOfOneType) {
  SmallBundle bundle;
  bundle.Write("metrics.yaml",
               "metrics:\n"
               "  - name: Revenue\n"
               "    function: sum\n"
               "    fact: Revenue\n"
               "  - name: Revenue\n"
               "    function: max\n"
               "    fact: Revenue\n");

  EXPECT_THAT(bundle.Problems(), ElementsAre("metrics.yaml:5: duplicate name 'Revenue': a metric "
                                             "of that name is at metrics.yaml:2"));
}

TEST(BundleReject, ReportAndCubeMayNotShareAName) {
  SmallBundle bundle;
  bundle.Write("cubes/sales.yaml",
               "name: Sales\n"
               "attributes: [City]\n"
               "metrics: [Revenue]\n");

  EXPECT_THAT(bundle.Problems(), ElementsAre("reports/sales.yaml:1: duplicate name 'Sales': a cube "
                                             "of that name is at cubes/sales.yaml:1"));
}

TEST(BundleReject, BadQualificationOperator) {
  SmallBundle bundle;
  bundle.Write("filters.yaml",
               "filters:\n"
               "  - name: North\n"
               "    qualification:\n"
               "      operator: Betwen\n"
               "      operands:\n"
               "        - {type: attribute, name: Region}\n"
               "        - {type: elements, values: [1]}\n");

  EXPECT_THAT(bundle.Problems(),
              ElementsAre(AllOf(StartsWith("filters.yaml:4: 'Betwen' is not an operator; expected "
                                           "one of And, Or, Not, In, NotIn, Equals"),
                                HasSubstr("NotEndsWith"))));
}

TEST(BundleReject, WrongNumberOfOperands) {
  SmallBundle bundle;
  bundle.Write("filters.yaml",
               "filters:\n"
               "  - name: North\n"
               "    qualification:\n"
               "      operator: Between\n"
               "      operands:\n"
               "        - {type: metric, name: Revenue}\n"
               "        - {type: constant, dataType: Real, value: 10}\n");

  EXPECT_THAT(bundle.Problems(),
              ElementsAre("filters.yaml:4: operator Between takes 3 operand(s), not 2"));
}

TEST(BundleReject, BadExplicitIdAndFolder) {
  SmallBundle bundle;
  bundle.Write("reports/sales.yaml",
               "name: Sales\n"
               "id: 12345\n"
               "folder: /Public Objects\n"
               "rows: [City]\n"
               "columns: [Revenue]\n");

  EXPECT_THAT(bundle.Problems(),
              ElementsAre("reports/sales.yaml:2: id: '12345' is not an object id (32 hex digits)",
                          "reports/sales.yaml:3: folder: '/Public Objects' is not a folder path "
                          "like \"Public Objects/Sales\""));
}

TEST(BundleReject, MissingProjectFile) {
  const testing::TempDir empty;

  try {
    bundle::ReadBundle(empty.path());
    FAIL() << "an empty folder is not a bundle";
  } catch (const bundle::BundleError& e) {
    EXPECT_THAT(e.problems(), ElementsAre("project.yaml: missing; every bundle needs one"));
  }
}

TEST(BundleReject, ProjectWithoutName) {
  SmallBundle bundle;
  bundle.Write("project.yaml", "description: no name\n");

  EXPECT_THAT(bundle.Problems(), ElementsAre("project.yaml:1: name: required"));
}

TEST(BundleReject, ReportsEveryProblemOfTheBundle) {
  SmallBundle bundle;
  bundle.Write("reports/sales.yaml",
               "name: Sales\n"
               "rows: [Regoin]\n"
               "columns: [Revenue]\n");
  bundle.Write("metrics.yaml",
               "metrics:\n"
               "  - name: Revenue\n"
               "    function: sum\n"
               "    fact: Revenue\n"
               "  - name: Revenue\n"
               "    function: total\n"
               "    fact: Revenue\n");
  bundle.Write("facts.yaml",
               "facts:\n"
               "  - name: Revenue\n"
               "    tables: [sales]\n"
               "    expression: revnue\n");
  bundle.Write("dashboards/broken.yaml", "name: Broken\nchapters: [\n");

  const std::vector<std::string> problems = bundle.Problems();

  EXPECT_THAT(problems, SizeIs(5));
  EXPECT_THAT(problems, Contains(StartsWith("dashboards/broken.yaml:3: invalid YAML: ")));
  EXPECT_THAT(problems, Contains("metrics.yaml:5: duplicate name 'Revenue': a metric of that name "
                                 "is at metrics.yaml:2"));
  EXPECT_THAT(problems,
              Contains(StartsWith("metrics.yaml:6: function: 'total' is not a function")));
  EXPECT_THAT(problems, Contains("reports/sales.yaml:2: 'Regoin' is not an attribute of this "
                                 "bundle"));
  EXPECT_THAT(problems, Contains(StartsWith("facts.yaml:2: fact 'Revenue': ")));
}

TEST(BundleReject, ErrorMessageListsOneProblemPerLine) {
  const bundle::BundleError error({"a.yaml:1: first", "b.yaml:2: second"});

  EXPECT_STREQ(error.what(), "a.yaml:1: first\nb.yaml:2: second");
}

}  // namespace
}  // namespace tessera::model::bundle
