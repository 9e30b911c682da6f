#include "model/semantic_model.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/error.h"
#include "core/ids.h"
#include "model/object_types.h"

namespace tessera::model {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// A small sales project: Region > Country > City snowflaked into one lookup table, a fact table,
// simple, compound and count-distinct metrics, a filter, a report and a cube.
class SalesProject {
 public:
  SalesProject() {
    lu_city = Add(kTypeTable, 3840, "lu_city",
                  {{"physicalName", "lu_city"},
                   {"columns", Columns({"city_id", "city_name", "country_id", "country_name",
                                        "region_id", "region_name"})}});
    sales_fact = Add(kTypeTable, 3840, "sales_fact",
                     {{"physicalName", "sales_fact"},
                      {"columns", Columns({"city_id", "revenue", "cost", "discount"})}});
    region = AddAttribute("Region", "region", std::nullopt);
    country = AddAttribute("Country", "country", region);
    city = AddAttribute("City", "city", country);
    revenue_fact = Add(kTypeFact, 3328, "Revenue",
                       {{"tables", {sales_fact}}, {"expression", "revenue - discount"}});
    cost_fact = Add(kTypeFact, 3328, "Cost", {{"tables", {sales_fact}}, {"expression", "cost"}});
    revenue = Add(kTypeMetric, 1024, "Revenue", {{"function", "sum"}, {"fact", revenue_fact}});
    cost = Add(kTypeMetric, 1024, "Cost", {{"function", "sum"}, {"fact", cost_fact}});
    profit =
        Add(kTypeMetric, 1024, "Profit", {{"expression", "[" + revenue + "] - [" + cost + "]"}});
    city_count =
        Add(kTypeMetric, 1024, "City Count", {{"function", "count_distinct"}, {"attribute", city}});
    west = Add(kTypeFilter, 256, "West",
               {{"qualification",
                 {{"operator", "In"},
                  {"operands",
                   {{{"type", "attribute"}, {"id", region}},
                    {{"type", "elements"}, {"elements", {{{"id", "h1;" + region}}}}}}}}}});
    sales_cube = Add(kTypeReportDefinition, kSubtypeOlapCube, "Sales Cube",
                     {{"attributes", {region, city}},
                      {"metrics", {revenue, cost, city_count}},
                      {"filter", west}});
    sales_report =
        Add(kTypeReportDefinition, kSubtypeReportGrid, "Sales by Country",
            {{"rows", {region, country}}, {"columns", {revenue, profit}}, {"filter", west}});
  }

  std::string Add(int type, int subtype, const std::string& name, Json definition) {
    ObjectRecord record;
    record.id = NewObjectId();
    record.type = type;
    record.subtype = subtype;
    record.name = name;
    record.definition = std::move(definition);
    objects.push_back(record);
    return record.id;
  }

  std::string AddAttribute(const std::string& name, const std::string& column_prefix,
                           const std::optional<std::string>& parent) {
    Json definition = {{"lookupTable", lu_city},
                       {"forms",
                        {{{"name", "ID"}, {"column", column_prefix + "_id"}},
                         {{"name", "DESC"}, {"column", column_prefix + "_name"}}}}};
    if (parent) definition["parent"] = *parent;
    return Add(kTypeAttribute, 3072, name, definition);
  }

  Json& Definition(const std::string& id) { return Record(id).definition; }

  ObjectRecord& Record(const std::string& id) {
    for (ObjectRecord& record : objects) {
      if (record.id == id) return record;
    }
    throw std::logic_error("no object " + id);
  }

  std::vector<std::string> Problems() const {
    std::vector<std::string> messages;
    for (const ModelProblem& problem : SemanticModel::Validate(objects)) {
      messages.push_back(problem.message);
    }
    return messages;
  }

  static Json Columns(const std::vector<std::string>& names) {
    Json columns = Json::array();
    for (const std::string& name : names) {
      bool is_text = name.ends_with("_name");
      columns.push_back({{"name", name}, {"dataType", is_text ? "string" : "integer"}});
    }
    return columns;
  }

  std::vector<ObjectRecord> objects;
  std::string lu_city, sales_fact;
  std::string region, country, city;
  std::string revenue_fact, cost_fact;
  std::string revenue, cost, profit, city_count;
  std::string west, sales_cube, sales_report;
};

const std::string kMissingId = "0123456789ABCDEF0123456789ABCDEF";

TEST(SemanticModelValidate, AValidProjectHasNoProblems) {
  EXPECT_THAT(SalesProject().Problems(), IsEmpty());
}

TEST(SemanticModelValidate, ObjectsOfOtherTypesAreIgnored) {
  SalesProject project;
  project.Add(kTypeFolder, kSubtypeFolder, "Reports", {{"anything", 1}});
  project.Add(kTypeDocumentDefinition, kSubtypeDashboard, "Overview", Json::object());
  EXPECT_THAT(project.Problems(), IsEmpty());
}

TEST(SemanticModelValidate, AParseFailureIsAProblemOfThatObject) {
  SalesProject project;
  project.Definition(project.country)["forms"][1].erase("column");
  std::vector<ModelProblem> problems = SemanticModel::Validate(project.objects);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].object_id, project.country);
  EXPECT_EQ(problems[0].message, "attribute 'Country': forms[1].column: required");
}

TEST(SemanticModelValidate, LookupTableMustBeATable) {
  SalesProject project;
  project.Definition(project.region)["lookupTable"] = project.revenue_fact;
  EXPECT_THAT(project.Problems(),
              ElementsAre("attribute 'Region': lookup table 'Revenue' is not a table"));
}

TEST(SemanticModelValidate, ParentMustBeAnAttributeNamedByIdWhenMissing) {
  SalesProject project;
  project.Definition(project.city)["parent"] = kMissingId;
  EXPECT_THAT(project.Problems(),
              ElementsAre("attribute 'City': parent '" + kMissingId + "' is not an attribute"));
}

TEST(SemanticModelValidate, FormColumnsMustExistInTheLookupTable) {
  SalesProject project;
  project.Definition(project.region)["forms"][1]["column"] = "region_title";
  EXPECT_THAT(project.Problems(),
              ElementsAre("attribute 'Region': form 'DESC': column 'region_title' is not in table "
                          "'lu_city'"));
}

TEST(SemanticModelValidate, ChildLookupTableMustHoldTheParentIdColumn) {
  SalesProject project;
  std::string lu_country =
      project.Add(kTypeTable, 3840, "lu_country",
                  {{"physicalName", "lu_country"},
                   {"columns", SalesProject::Columns({"country_id", "country_name"})}});
  project.Definition(project.country)["lookupTable"] = lu_country;
  EXPECT_THAT(project.Problems(),
              ElementsAre("attribute 'Country': lookup table 'lu_country' has no column "
                          "'region_id', the ID column of parent 'Region'"));
}

TEST(SemanticModelValidate, ParentsMustNotFormACycle) {
  SalesProject project;
  project.Definition(project.region)["parent"] = project.city;
  EXPECT_THAT(
      project.Problems(),
      ElementsAre("attribute 'Region': parents form a cycle: Region > City > Country > "
                  "Region",
                  "attribute 'Country': parents form a cycle: Country > Region > City > "
                  "Country",
                  "attribute 'City': parents form a cycle: City > Country > Region > City"));
}

TEST(SemanticModelValidate, FactTablesMustBeTables) {
  SalesProject project;
  project.Definition(project.cost_fact)["tables"] = {project.region};
  EXPECT_THAT(project.Problems(), ElementsAre("fact 'Cost': table 'Region' is not a table"));
}

TEST(SemanticModelValidate, FactColumnsMustExistInEveryTable) {
  SalesProject project;
  project.Definition(project.cost_fact)["tables"] = {project.sales_fact, project.lu_city};
  EXPECT_THAT(project.Problems(),
              ElementsAre("fact 'Cost': column 'cost' is not in table 'lu_city'"));
}

TEST(SemanticModelValidate, SimpleMetricFactMustBeAFact) {
  SalesProject project;
  project.Definition(project.revenue)["fact"] = project.cost;
  EXPECT_THAT(project.Problems(), ElementsAre("metric 'Revenue': fact 'Cost' is not a fact"));
}

TEST(SemanticModelValidate, CountDistinctMustCountAnAttribute) {
  SalesProject project;
  project.Definition(project.city_count)["attribute"] = project.lu_city;
  EXPECT_THAT(project.Problems(),
              ElementsAre("metric 'City Count': attribute 'lu_city' is not an attribute"));
}

TEST(SemanticModelValidate, CompoundMetricComponentsMustBeMetrics) {
  SalesProject project;
  project.Definition(project.profit)["expression"] =
      "[" + project.revenue + "] - [" + project.cost_fact + "]";
  EXPECT_THAT(project.Problems(), ElementsAre("metric 'Profit': component 'Cost' is not a metric"));
}

TEST(SemanticModelValidate, CompoundMetricsMustNotFormACycle) {
  SalesProject project;
  std::string margin =
      project.Add(kTypeMetric, 1024, "Margin", {{"expression", "[" + project.profit + "] / 2"}});
  project.Definition(project.profit)["expression"] = "[" + project.revenue + "] - [" + margin + "]";
  EXPECT_THAT(
      project.Problems(),
      ElementsAre("metric 'Profit': compound metrics form a cycle: Profit > Margin > Profit",
                  "metric 'Margin': compound metrics form a cycle: Margin > Profit > Margin"));
}

TEST(SemanticModelValidate, ACompoundMetricMustNotUseItself) {
  SalesProject project;
  project.Definition(project.profit)["expression"] = "[" + project.profit + "] + 1";
  EXPECT_THAT(project.Problems(),
              ElementsAre("metric 'Profit': compound metrics form a cycle: Profit > Profit"));
}

TEST(SemanticModelValidate, SharedCompoundComponentsAreNotACycle) {
  SalesProject project;
  std::string left = project.revenue, right = project.cost;
  for (int level = 0; level < 40; ++level) {  // both metrics of a level use both of the one below
    std::string expression = "[" + left + "] + [" + right + "]";
    left = project.Add(kTypeMetric, 1024, "Left " + std::to_string(level),
                       {{"expression", expression}});
    right = project.Add(kTypeMetric, 1024, "Right " + std::to_string(level),
                        {{"expression", expression}});
  }
  EXPECT_THAT(project.Problems(), IsEmpty());
}

TEST(SemanticModelValidate, FilterReferencesMustExist) {
  SalesProject project;
  Json& operands = project.Definition(project.west)["qualification"]["operands"];
  operands[0]["id"] = kMissingId;
  operands[1]["elements"][0]["id"] = "h1;" + kMissingId;
  project.Definition(project.west)["qualification"] = {
      {"operator", "And"},
      {"operands",
       {project.Definition(project.west)["qualification"],
        {{"operator", "Greater"},
         {"operands",
          {{{"type", "metric"}, {"id", project.region}},
           {{"type", "constant"}, {"dataType", "Real"}, {"value", "1"}}}}}}}};
  EXPECT_THAT(
      project.Problems(),
      ElementsAre("filter 'West': qualified attribute '" + kMissingId + "' is not an attribute",
                  "filter 'West': qualified metric 'Region' is not a metric"));
}

TEST(SemanticModelValidate, ReportRowsColumnsFilterAndCubeMustHaveTheirTypes) {
  SalesProject project;
  project.Definition(project.sales_report) = {{"source", "cube"},
                                              {"cube", project.sales_report},
                                              {"rows", {project.revenue}},
                                              {"columns", {project.region}},
                                              {"filter", project.sales_cube}};
  EXPECT_THAT(project.Problems(),
              ElementsAre("report 'Sales by Country': row 'Revenue' is not an attribute",
                          "report 'Sales by Country': column 'Region' is not a metric",
                          "report 'Sales by Country': filter 'Sales Cube' is not a filter",
                          "report 'Sales by Country': cube 'Sales by Country' is not a cube"));
}

TEST(SemanticModelValidate, ACubeSourcedReportAcceptsACube) {
  SalesProject project;
  project.Definition(project.sales_report)["source"] = "cube";
  project.Definition(project.sales_report)["cube"] = project.sales_cube;
  EXPECT_THAT(project.Problems(), IsEmpty());
}

TEST(SemanticModelValidate, CubeAttributesMetricsAndFilterMustHaveTheirTypes) {
  SalesProject project;
  project.Definition(project.sales_cube) = {
      {"attributes", {project.west}}, {"metrics", {project.revenue_fact}}, {"filter", kMissingId}};
  EXPECT_THAT(project.Problems(),
              ElementsAre("cube 'Sales Cube': attribute 'West' is not an attribute",
                          "cube 'Sales Cube': metric 'Revenue' is not a metric",
                          "cube 'Sales Cube': filter '" + kMissingId + "' is not a filter"));
}

TEST(SemanticModelValidate, NamesAreUniquePerType) {
  SalesProject project;
  project.Add(kTypeMetric, 1024, "Profit", {{"function", "max"}, {"fact", project.revenue_fact}});
  EXPECT_THAT(project.Problems(),
              ElementsAre("metric 'Profit': the name is already used by metric 'Profit'"));
}

TEST(SemanticModelValidate, TheSameNameMayBeUsedByDifferentTypes) {
  SalesProject project;
  project.Add(kTypeFilter, 256, "Revenue", project.Definition(project.west));
  EXPECT_THAT(project.Problems(), IsEmpty());  // a fact and a metric are already "Revenue"
}

TEST(SemanticModelBuild, RefusesAModelWithProblemsListingEachOnItsOwnLine) {
  SalesProject project;
  project.Definition(project.revenue)["fact"] = kMissingId;
  project.Definition(project.city_count)["attribute"] = kMissingId;
  try {
    SemanticModel::Build(project.objects);
    FAIL() << "built";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kInvalidInput);
    EXPECT_EQ(std::string(error.what()),
              "metric 'Revenue': fact '" + kMissingId + "' is not a fact\n" +
                  "metric 'City Count': attribute '" + kMissingId + "' is not an attribute");
  }
}

TEST(SemanticModelBuild, AnswersLookupsById) {
  SalesProject project;
  SemanticModel model = SemanticModel::Build(project.objects);
  EXPECT_EQ(model.table(project.lu_city).physical_name, "lu_city");
  EXPECT_EQ(model.attribute(project.city).id_form().column, "city_id");
  EXPECT_THAT(model.fact(project.revenue_fact).expression.References(),
              ElementsAre("revenue", "discount"));
  EXPECT_TRUE(model.metric(project.profit).is_compound);
  EXPECT_EQ(model.metric(project.city_count).attribute_id, project.city);
  EXPECT_EQ(model.filter(project.west).name, "West");
  EXPECT_EQ(model.report(project.sales_report).filter_id, project.west);
  EXPECT_THAT(model.cube(project.sales_cube).metric_ids,
              ElementsAre(project.revenue, project.cost, project.city_count));
  EXPECT_TRUE(model.has_attribute(project.region));
  EXPECT_FALSE(model.has_attribute(project.revenue));
  EXPECT_TRUE(model.has_metric(project.revenue));
  EXPECT_EQ(model.tables().size(), 2u);
  EXPECT_EQ(model.attributes().size(), 3u);
  EXPECT_EQ(model.facts().size(), 2u);
  EXPECT_EQ(model.metrics().size(), 4u);
  EXPECT_EQ(model.reports().size(), 1u);
  EXPECT_EQ(model.cubes().size(), 1u);
}

TEST(SemanticModelBuild, UnknownIdsAreNotFound) {
  SemanticModel model = SemanticModel::Build(SalesProject().objects);
  SalesProject other;
  for (auto lookup : std::vector<std::function<void()>>{
           [&] { model.table(kMissingId); }, [&] { model.attribute(kMissingId); },
           [&] { model.fact(kMissingId); }, [&] { model.metric(other.revenue); },
           [&] { model.filter(kMissingId); }, [&] { model.report(kMissingId); },
           [&] { model.cube(kMissingId); }}) {
    try {
      lookup();
      ADD_FAILURE() << "found";
    } catch (const Error& error) {
      EXPECT_EQ(error.code(), ErrorCode::kNotFound);
    }
  }
}

TEST(SemanticModelBuild, ALookupByIdOfTheWrongTypeIsNotFound) {
  SalesProject project;
  SemanticModel model = SemanticModel::Build(project.objects);
  EXPECT_THROW(model.metric(project.revenue_fact), Error);
  EXPECT_THROW(model.report(project.sales_cube), Error);
}

TEST(SemanticModelBuild, FindsObjectsByExactNameWithinAType) {
  SalesProject project;
  SemanticModel model = SemanticModel::Build(project.objects);
  EXPECT_EQ(model.FindByName(kTypeMetric, "Revenue"), project.revenue);
  EXPECT_EQ(model.FindByName(kTypeFact, "Revenue"), project.revenue_fact);
  EXPECT_EQ(model.FindByName(kTypeReportDefinition, "Sales Cube"), project.sales_cube);
  EXPECT_EQ(model.FindByName(kTypeMetric, "revenue"), std::nullopt);
  EXPECT_EQ(model.FindByName(kTypeAttribute, "Revenue"), std::nullopt);
}

TEST(SemanticModelBuild, AncestorsAreListedNearestFirst) {
  SalesProject project;
  SemanticModel model = SemanticModel::Build(project.objects);
  std::vector<std::string> names;
  for (const Attribute* ancestor : model.Ancestors(model.attribute(project.city))) {
    names.push_back(ancestor->name);
  }
  EXPECT_THAT(names, ElementsAre("Country", "Region"));
  EXPECT_THAT(model.Ancestors(model.attribute(project.region)), IsEmpty());
}

}  // namespace
}  // namespace tessera::model
