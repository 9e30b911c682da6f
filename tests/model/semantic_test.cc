#include "model/semantic.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/error.h"
#include "model/object_types.h"

namespace tessera::model {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const std::string kTableId = "11111111111111111111111111111111";
const std::string kOtherTableId = "22222222222222222222222222222222";
const std::string kRegionId = "33333333333333333333333333333333";
const std::string kCountryId = "44444444444444444444444444444444";
const std::string kFactId = "55555555555555555555555555555555";
const std::string kRevenueId = "66666666666666666666666666666666";
const std::string kCostId = "77777777777777777777777777777777";
const std::string kFilterId = "88888888888888888888888888888888";
const std::string kCubeId = "99999999999999999999999999999999";
const std::string kOwnId = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

ObjectRecord Record(int type, int subtype, std::string name, Json definition) {
  ObjectRecord record;
  record.id = kOwnId;
  record.type = type;
  record.subtype = subtype;
  record.name = std::move(name);
  record.definition = std::move(definition);
  return record;
}

ObjectRecord TableRecord(Json definition) {
  return Record(kTypeTable, 3840, "lu_region", std::move(definition));
}
ObjectRecord AttributeRecord(Json definition) {
  return Record(kTypeAttribute, 3072, "Region", std::move(definition));
}
ObjectRecord FactRecord(Json definition) {
  return Record(kTypeFact, 3328, "Revenue", std::move(definition));
}
ObjectRecord MetricRecord(Json definition) {
  return Record(kTypeMetric, 1024, "Profit", std::move(definition));
}
ObjectRecord FilterRecord(Json definition) {
  return Record(kTypeFilter, 256, "West", std::move(definition));
}
ObjectRecord ReportRecord(Json definition) {
  return Record(kTypeReportDefinition, kSubtypeReportGrid, "Sales", std::move(definition));
}
ObjectRecord CubeRecord(Json definition) {
  return Record(kTypeReportDefinition, kSubtypeOlapCube, "Sales Cube", std::move(definition));
}

template <typename Parse>
std::string ParseError(Parse parse, const ObjectRecord& record) {
  try {
    parse(record);
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kInvalidInput);
    return error.what();
  }
  ADD_FAILURE() << "parsed " << record.definition.dump();
  return "";
}

Json ValidAttribute() {
  return {
      {"lookupTable", kTableId},
      {"parent", kCountryId},
      {"forms",
       {{{"name", "ID"}, {"column", "region_id"}}, {{"name", "DESC"}, {"column", "region_name"}}}}};
}

TEST(DataTypes, NamesRoundTripAndAliasesAreAccepted) {
  for (DataType type : {DataType::kInteger, DataType::kReal, DataType::kText, DataType::kDate,
                        DataType::kDateTime, DataType::kBoolean}) {
    EXPECT_EQ(ParseDataType(DataTypeName(type)), type);
  }
  EXPECT_EQ(DataTypeName(DataType::kText), "string");
  EXPECT_EQ(ParseDataType("text"), DataType::kText);
  EXPECT_EQ(ParseDataType("double"), DataType::kReal);
  EXPECT_EQ(ParseDataType("number"), DataType::kReal);
  EXPECT_EQ(ParseDataType("int"), DataType::kInteger);
  EXPECT_EQ(ParseDataType("varchar"), std::nullopt);
}

TEST(AggregateFunctions, HaveTheirDefinitionNames) {
  EXPECT_EQ(AggregateName(AggregateFunction::kSum), "sum");
  EXPECT_EQ(AggregateName(AggregateFunction::kAvg), "avg");
  EXPECT_EQ(AggregateName(AggregateFunction::kMin), "min");
  EXPECT_EQ(AggregateName(AggregateFunction::kMax), "max");
  EXPECT_EQ(AggregateName(AggregateFunction::kCount), "count");
  EXPECT_EQ(AggregateName(AggregateFunction::kCountDistinct), "count_distinct");
}

TEST(ParseTable, ReadsPhysicalNameAndTypedColumns) {
  Table table = ParseTable(TableRecord({{"physicalName", "lu_region"},
                                        {"columns",
                                         {{{"name", "region_id"}, {"dataType", "integer"}},
                                          {{"name", "region_name"}, {"dataType", "text"}}}}}));
  EXPECT_EQ(table.id, kOwnId);
  EXPECT_EQ(table.name, "lu_region");
  EXPECT_EQ(table.physical_name, "lu_region");
  ASSERT_EQ(table.columns.size(), 2u);
  EXPECT_EQ(table.FindColumn("region_name")->type, DataType::kText);
  EXPECT_EQ(table.FindColumn("Region_Name"), nullptr);
}

TEST(ParseTable, RejectsBrokenDefinitions) {
  EXPECT_EQ(ParseError(ParseTable, TableRecord({{"columns", Json::array()}})),
            "table 'lu_region': physicalName: required");
  EXPECT_EQ(ParseError(ParseTable, TableRecord({{"physicalName", "t"}, {"columns", "x"}})),
            "table 'lu_region': columns: must be an array");
  EXPECT_EQ(
      ParseError(ParseTable, TableRecord({{"physicalName", "t"}, {"columns", {{{"name", "a"}}}}})),
      "table 'lu_region': columns[0].dataType: required");
  EXPECT_THAT(ParseError(ParseTable,
                         TableRecord({{"physicalName", "t"},
                                      {"columns", {{{"name", "a"}, {"dataType", "varchar"}}}}})),
              HasSubstr("columns[0].dataType: 'varchar' is not a data type; expected one of"));
  EXPECT_THAT(ParseError(ParseTable, TableRecord({{"physicalName", "t"},
                                                  {"columns",
                                                   {{{"name", "a"}, {"dataType", "real"}},
                                                    {{"name", "a"}, {"dataType", "real"}}}}})),
              HasSubstr("columns[1].name: 'a' repeats columns[0]"));
}

TEST(ParseAttribute, ReadsLookupTableParentAndForms) {
  Attribute attribute = ParseAttribute(AttributeRecord(ValidAttribute()));
  EXPECT_EQ(attribute.lookup_table_id, kTableId);
  EXPECT_EQ(attribute.parent_id, kCountryId);
  EXPECT_EQ(attribute.id_form().column, "region_id");
  EXPECT_EQ(attribute.FindForm("DESC")->column, "region_name");
  EXPECT_EQ(attribute.FindForm("desc"), nullptr);
}

TEST(ParseAttribute, ParentIsOptionalAndIdsBecomeUpperCase) {
  Json definition = ValidAttribute();
  definition.erase("parent");
  definition["lookupTable"] = "abcdefabcdefabcdefabcdefabcdefab";
  Attribute attribute = ParseAttribute(AttributeRecord(definition));
  EXPECT_EQ(attribute.parent_id, std::nullopt);
  EXPECT_EQ(attribute.lookup_table_id, "ABCDEFABCDEFABCDEFABCDEFABCDEFAB");
}

TEST(ParseAttribute, RejectsBrokenDefinitions) {
  Json no_column = ValidAttribute();
  no_column["forms"][1].erase("column");
  EXPECT_EQ(ParseError(ParseAttribute, AttributeRecord(no_column)),
            "attribute 'Region': forms[1].column: required");

  Json bad_table = ValidAttribute();
  bad_table["lookupTable"] = "lu_region";
  EXPECT_EQ(ParseError(ParseAttribute, AttributeRecord(bad_table)),
            "attribute 'Region': lookupTable: 'lu_region' is not an object id; expected 32 "
            "hexadecimal characters");

  Json no_forms = ValidAttribute();
  no_forms["forms"] = Json::array();
  EXPECT_THAT(ParseError(ParseAttribute, AttributeRecord(no_forms)),
              HasSubstr("attribute 'Region': forms: an attribute needs at least its ID form"));

  Json numeric_name = ValidAttribute();
  numeric_name["forms"][0]["name"] = 1;
  EXPECT_EQ(ParseError(ParseAttribute, AttributeRecord(numeric_name)),
            "attribute 'Region': forms[0].name: must be a string");
}

TEST(ParseAttribute, RejectsARecordOfAnotherType) {
  EXPECT_THAT(ParseError(ParseAttribute, TableRecord(ValidAttribute())),
              HasSubstr("object type 15 is not an attribute (type 12)"));
}

TEST(ParseFact, ReadsTablesAndParsedExpression) {
  Fact fact = ParseFact(
      FactRecord({{"tables", {kTableId, kOtherTableId}}, {"expression", "revenue - discount"}}));
  EXPECT_THAT(fact.table_ids, ElementsAre(kTableId, kOtherTableId));
  EXPECT_THAT(fact.expression.References(), ElementsAre("revenue", "discount"));
}

TEST(ParseFact, RejectsBrokenDefinitions) {
  EXPECT_EQ(ParseError(ParseFact, FactRecord({{"tables", {kTableId}}})),
            "fact 'Revenue': expression: required");
  EXPECT_EQ(ParseError(ParseFact, FactRecord({{"tables", Json::array()}, {"expression", "x"}})),
            "fact 'Revenue': tables: a fact needs at least one table");
  EXPECT_EQ(ParseError(ParseFact, FactRecord({{"tables", {kTableId}}, {"expression", "x +"}})),
            "fact 'Revenue': expression 'x +': column 4: expected a number, a name or '('");
  EXPECT_THAT(
      ParseError(ParseFact, FactRecord({{"tables", {kTableId, kTableId}}, {"expression", "x"}})),
      HasSubstr("tables[1]: '" + kTableId + "' is listed twice"));
}

TEST(ParseMetric, ReadsASimpleMetricOfAFact) {
  Metric metric = ParseMetric(MetricRecord(
      {{"function", "avg"}, {"fact", kFactId}, {"format", {{"formatString", "#,##0.00"}}}}));
  EXPECT_FALSE(metric.is_compound);
  EXPECT_EQ(metric.function, AggregateFunction::kAvg);
  EXPECT_EQ(metric.fact_id, kFactId);
  EXPECT_EQ(metric.format_string, "#,##0.00");
}

TEST(ParseMetric, ReadsACountDistinctOfAnAttribute) {
  Metric metric =
      ParseMetric(MetricRecord({{"function", "count_distinct"}, {"attribute", kRegionId}}));
  EXPECT_EQ(metric.function, AggregateFunction::kCountDistinct);
  EXPECT_EQ(metric.attribute_id, kRegionId);
  EXPECT_EQ(metric.format_string, "");
}

TEST(ParseMetric, ReadsACompoundMetricOfMetricIds) {
  Metric metric =
      ParseMetric(MetricRecord({{"expression", "[" + kRevenueId + "] - [" + kCostId + "]"}}));
  EXPECT_TRUE(metric.is_compound);
  EXPECT_THAT(metric.expression.References(), ElementsAre(kRevenueId, kCostId));
}

TEST(ParseMetric, RejectsBrokenDefinitions) {
  EXPECT_EQ(ParseError(ParseMetric, MetricRecord({{"fact", kFactId}})),
            "metric 'Profit': function: required");
  EXPECT_THAT(ParseError(ParseMetric, MetricRecord({{"function", "median"}, {"fact", kFactId}})),
              HasSubstr("metric 'Profit': function: 'median' is not an aggregate function"));
  EXPECT_EQ(ParseError(ParseMetric, MetricRecord({{"function", "sum"}})),
            "metric 'Profit': fact: required");
  EXPECT_EQ(ParseError(ParseMetric, MetricRecord({{"function", "count_distinct"}})),
            "metric 'Profit': attribute: required");
  EXPECT_THAT(ParseError(ParseMetric, MetricRecord({{"function", "count_distinct"},
                                                    {"fact", kFactId},
                                                    {"attribute", kRegionId}})),
              HasSubstr("metric 'Profit': fact: count_distinct counts an attribute"));
  EXPECT_THAT(
      ParseError(ParseMetric,
                 MetricRecord({{"function", "sum"}, {"fact", kFactId}, {"attribute", kRegionId}})),
      HasSubstr("metric 'Profit': attribute: only count_distinct"));
}

TEST(ParseMetric, RejectsCompoundExpressionsThatAreNotOfMetricIds) {
  EXPECT_THAT(ParseError(ParseMetric, MetricRecord({{"expression", "[Revenue] - [Cost]"}})),
              HasSubstr("metric 'Profit': expression: 'Revenue' is not a metric id"));
  EXPECT_THAT(ParseError(ParseMetric, MetricRecord({{"expression", "[" + kRevenueId + "] -"}})),
              HasSubstr("metric 'Profit': expression '[" + kRevenueId + "] -': column"));
  EXPECT_THAT(ParseError(ParseMetric, MetricRecord({{"expression", "[" + kRevenueId + "]"},
                                                    {"function", "sum"}})),
              HasSubstr("metric 'Profit': function: a compound metric"));
}

TEST(ParseFilter, KeepsTheQualificationTree) {
  Json qualification = {{"operator", "In"},
                        {"operands",
                         {{{"type", "attribute"}, {"id", kRegionId}},
                          {{"type", "elements"}, {"elements", {{{"id", "h1;" + kRegionId}}}}}}}};
  Filter filter = ParseFilter(FilterRecord({{"qualification", qualification}}));
  EXPECT_EQ(filter.name, "West");
  EXPECT_EQ(filter.qualification, qualification);
}

TEST(ParseFilter, RejectsBrokenDefinitions) {
  EXPECT_EQ(ParseError(ParseFilter, FilterRecord(Json::object())),
            "filter 'West': qualification: required");
  EXPECT_EQ(ParseError(ParseFilter, FilterRecord({{"qualification", "Region = 1"}})),
            "filter 'West': qualification: must be an object");
  EXPECT_THAT(
      ParseError(ParseFilter, FilterRecord({{"qualification", {{"x", 1}}}})),
      HasSubstr("filter 'West': qualification: must be an operator node (with \"operator\" and "
                "\"operands\") or an operand (with \"type\")"));
}

TEST(ParseReport, SourceDefaultsToTheWarehouse) {
  Report report = ParseReport(
      ReportRecord({{"rows", {kRegionId}}, {"columns", {kRevenueId}}, {"filter", kFilterId}}));
  EXPECT_EQ(report.source, ReportSource::kWarehouse);
  EXPECT_THAT(report.attribute_ids, ElementsAre(kRegionId));
  EXPECT_THAT(report.metric_ids, ElementsAre(kRevenueId));
  EXPECT_EQ(report.filter_id, kFilterId);
}

TEST(ParseReport, ACubeSourceNamesTheCube) {
  Report report = ParseReport(ReportRecord(
      {{"source", "cube"}, {"cube", kCubeId}, {"rows", {kRegionId}}, {"columns", Json::array()}}));
  EXPECT_EQ(report.source, ReportSource::kCube);
  EXPECT_EQ(report.cube_id, kCubeId);
  EXPECT_EQ(report.filter_id, std::nullopt);
}

TEST(ParseReport, RejectsBrokenDefinitions) {
  EXPECT_EQ(
      ParseError(
          ParseReport,
          ReportRecord({{"source", "cube"}, {"rows", Json::array()}, {"columns", Json::array()}})),
      "report 'Sales': cube: required");
  EXPECT_THAT(
      ParseError(
          ParseReport,
          ReportRecord({{"source", "olap"}, {"rows", Json::array()}, {"columns", Json::array()}})),
      HasSubstr("report 'Sales': source: 'olap' is not a report source"));
  EXPECT_EQ(ParseError(ParseReport, ReportRecord({{"columns", Json::array()}})),
            "report 'Sales': rows: required");
  EXPECT_EQ(
      ParseError(ParseReport, ReportRecord({{"rows", {"Region"}}, {"columns", Json::array()}})),
      "report 'Sales': rows[0]: 'Region' is not an object id; expected 32 hexadecimal "
      "characters");
}

TEST(ParseReport, RefusesACube) {
  EXPECT_THAT(
      ParseError(ParseReport, CubeRecord({{"rows", Json::array()}, {"columns", Json::array()}})),
      HasSubstr("cube 'Sales Cube': subtype 776 is a cube, not a report"));
}

TEST(ParseCube, ReadsAttributesMetricsAndFilter) {
  Cube cube = ParseCube(CubeRecord(
      {{"attributes", {kRegionId, kCountryId}}, {"metrics", {kRevenueId}}, {"filter", kFilterId}}));
  EXPECT_THAT(cube.attribute_ids, ElementsAre(kRegionId, kCountryId));
  EXPECT_THAT(cube.metric_ids, ElementsAre(kRevenueId));
  EXPECT_EQ(cube.filter_id, kFilterId);
}

TEST(ParseCube, AcceptsSuperCubesAndRefusesGridReports) {
  ObjectRecord super_cube = CubeRecord({{"attributes", Json::array()}, {"metrics", Json::array()}});
  super_cube.subtype = kSubtypeSuperCube;
  EXPECT_NO_THROW(ParseCube(super_cube));
  EXPECT_THAT(ParseError(ParseCube,
                         ReportRecord({{"attributes", Json::array()}, {"metrics", Json::array()}})),
              HasSubstr("report 'Sales': subtype 768 is not a cube"));
}

TEST(ParseCube, RejectsBrokenDefinitions) {
  EXPECT_EQ(ParseError(ParseCube, CubeRecord({{"attributes", Json::array()}})),
            "cube 'Sales Cube': metrics: required");
  EXPECT_EQ(
      ParseError(
          ParseCube,
          CubeRecord({{"attributes", Json::array()}, {"metrics", Json::array()}, {"filter", 7}})),
      "cube 'Sales Cube': filter: must be an object id (a string of 32 hex digits)");
}

TEST(UsedObjectIds, TableUsesNothing) {
  EXPECT_THAT(UsedObjectIds(TableRecord({{"physicalName", "t"}, {"columns", Json::array()}})),
              ElementsAre());
}

TEST(UsedObjectIds, AttributeUsesLookupTableAndParent) {
  EXPECT_THAT(UsedObjectIds(AttributeRecord(ValidAttribute())), ElementsAre(kTableId, kCountryId));
}

TEST(UsedObjectIds, FactUsesItsTables) {
  EXPECT_THAT(
      UsedObjectIds(FactRecord({{"tables", {kTableId, kOtherTableId}}, {"expression", "x"}})),
      ElementsAre(kTableId, kOtherTableId));
}

TEST(UsedObjectIds, SimpleMetricUsesItsFactOrAttribute) {
  EXPECT_THAT(UsedObjectIds(MetricRecord({{"function", "sum"}, {"fact", kFactId}})),
              ElementsAre(kFactId));
  EXPECT_THAT(
      UsedObjectIds(MetricRecord({{"function", "count_distinct"}, {"attribute", kRegionId}})),
      ElementsAre(kRegionId));
}

TEST(UsedObjectIds, CompoundMetricUsesEachComponentOnce) {
  std::string revenue = "[" + kRevenueId + "]";
  std::string cost = "[" + kCostId + "]";
  EXPECT_THAT(UsedObjectIds(
                  MetricRecord({{"expression", "(" + revenue + " - " + cost + ") / " + revenue}})),
              ElementsAre(kRevenueId, kCostId));
}

TEST(UsedObjectIds, FilterUsesEveryObjectInItsQualification) {
  const std::string form_attribute = "BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB";
  const std::string colon_attribute = "CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC";
  Json qualification = {
      {"operator", "And"},
      {"operands",
       {{{"operator", "In"},
         {"operands",
          {{{"type", "attribute"}, {"id", kRegionId}},
           {{"type", "elements"},
            {"elements",
             {{{"id", "h1;" + kCountryId + ";North"}}, {{"id", colon_attribute + ":2024"}}}}}}}},
        {{"operator", "Greater"},
         {"operands",
          {{{"type", "metric"}, {"id", kRevenueId}},
           {{"type", "constant"}, {"dataType", "Real"}, {"value", "10"}}}}},
        {{"operator", "Equals"},
         {"operands",
          {{{"type", "form"},
            {"attribute", {{"id", form_attribute}}},
            {"form", {{"id", "45C11FA478E745FEA08D781CEA190FE5"}}}},
           {{"type", "constant"}, {"dataType", "Char"}, {"value", "x"}}}}}}}};
  EXPECT_THAT(UsedObjectIds(FilterRecord({{"qualification", qualification}})),
              ElementsAre(kRegionId, kCountryId, colon_attribute, kRevenueId, form_attribute));
}

TEST(UsedObjectIds, ReportUsesRowsColumnsFilterAndCube) {
  EXPECT_THAT(UsedObjectIds(ReportRecord({{"source", "cube"},
                                          {"cube", kCubeId},
                                          {"rows", {kRegionId}},
                                          {"columns", {kRevenueId, kCostId}},
                                          {"filter", kFilterId}})),
              ElementsAre(kRegionId, kRevenueId, kCostId, kFilterId, kCubeId));
}

TEST(UsedObjectIds, CubeUsesAttributesMetricsAndFilter) {
  EXPECT_THAT(UsedObjectIds(CubeRecord(
                  {{"attributes", {kRegionId}}, {"metrics", {kRevenueId}}, {"filter", kFilterId}})),
              ElementsAre(kRegionId, kRevenueId, kFilterId));
}

TEST(UsedObjectIds, DashboardUsesItsDatasetsAttributesAndMetricsOnce) {
  Json definition = {{"datasets", {{{"id", kCubeId}, {"name", "Sales Cube"}}}},
                     {"chapters",
                      {{{"pages",
                         {{{"visualizations",
                            {{{"dataset", kCubeId},
                              {"attributes", {kRegionId}},
                              {"metrics", {{{"id", kRevenueId}, {"name", "Revenue"}}}},
                              {"id", kOwnId}}}}}}}}}}};
  ObjectRecord dashboard =
      Record(kTypeDocumentDefinition, kSubtypeDashboard, "Overview", definition);
  EXPECT_THAT(UsedObjectIds(dashboard), ElementsAre(kCubeId, kRegionId, kRevenueId));
}

TEST(UsedObjectIds, NeverListsTheObjectItself) {
  EXPECT_THAT(UsedObjectIds(MetricRecord({{"expression", "[" + kOwnId + "] + 1"}})), ElementsAre());
}

TEST(UsedObjectIds, OtherTypesUseNothing) {
  EXPECT_THAT(UsedObjectIds(Record(kTypeFolder, kSubtypeFolder, "Reports", {{"x", kTableId}})),
              ElementsAre());
}

}  // namespace
}  // namespace tessera::model
