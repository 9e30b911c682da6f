// View filters compiled against a dataset: the rows each tree keeps equal a plain predicate written
// here on the raw rows, and every malformed tree is refused with its exact message.
#include "engine/view_filter.h"

#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <random>
#include <set>

#include "core/error.h"
#include "engine/qualification.h"
#include "engine/row_selection.h"
#include "engine/sql/dataset_builder.h"

namespace tessera::engine {
namespace {

using model::AggregateFunction;
using model::DataType;

const std::string kRegion = "A0000000000000000000000000000001";
const std::string kDay = "A0000000000000000000000000000002";
const std::string kSegment = "A0000000000000000000000000000003";
const std::string kHidden = "A0000000000000000000000000000004";
const std::string kRevenue = "B0000000000000000000000000000001";
const std::string kDistinct = "B0000000000000000000000000000002";
const std::string kUnknown = "C0000000000000000000000000000009";
const std::string kIdForm = "45C11FA478E745FEA08D781CEA190FE5";
const std::string kDescForm = "CCFBE2A5EADB4F50941FB879CCF1721C";

const char* kRegionNames[] = {"North", "south", "Ünïcødé East", "東京 West", "Central"};
const char* kSegments[] = {"Consumer", "Corporate", "Government"};

struct Row {
  int64_t region;   // 1..5
  std::string day;  // 2024-01-01 .. 2024-01-28
  std::string segment;
  int64_t hidden;
  std::optional<double> revenue;
};

struct Fixture {
  std::vector<Row> rows;
  std::shared_ptr<const Dataset> dataset;
};

const Fixture& Data() {
  static const Fixture fixture = [] {
    Fixture f;
    std::mt19937 random(17);
    for (int i = 0; i < 3000; ++i) {
      Row row;
      row.region = 1 + random() % 5;
      char day[16];
      std::snprintf(day, sizeof day, "2024-01-%02d", static_cast<int>(1 + random() % 28));
      row.day = day;
      row.segment = kSegments[random() % 3];
      row.hidden = random() % 7;
      if (random() % 10) row.revenue = static_cast<double>(random() % 200000) / 100 - 300;
      f.rows.push_back(row);
    }
    sql::MetricSpec revenue;
    revenue.id = kRevenue;
    revenue.name = "Revenue";
    sql::MetricSpec distinct;
    distinct.id = kDistinct;
    distinct.name = "Hidden count";
    distinct.function = AggregateFunction::kCountDistinct;
    distinct.counted_attribute_id = kHidden;
    sql::DatasetBuilder builder(
        {{kRegion, "Region", {{"ID", DataType::kInteger}, {"DESC", DataType::kText}}},
         {kDay, "Day", {{"ID", DataType::kDate}}},
         {kSegment, "Segment", {{"ID", DataType::kText}}},
         {kHidden, "Hidden", {{"ID", DataType::kInteger}}, true}},
        {revenue, distinct});
    for (const Row& row : f.rows) {
      builder.AddRow({Cell(row.region), Cell(std::string(kRegionNames[row.region - 1])),
                      Cell(row.day), Cell(row.segment), Cell(row.hidden),
                      row.revenue ? Cell(*row.revenue) : Cell()});
    }
    f.dataset = std::make_shared<const Dataset>(builder.Finish());
    return f;
  }();
  return fixture;
}

std::set<size_t> Selected(const Json& tree) {
  const Dataset& dataset = *Data().dataset;
  const RowSelector selector(dataset, CompileViewFilter(dataset, tree));
  std::set<size_t> rows;
  std::vector<uint32_t> batch(RowSelector::kBatch);
  for (size_t begin = 0; begin < dataset.row_count(); begin += RowSelector::kBatch) {
    const size_t end = std::min(dataset.row_count(), begin + RowSelector::kBatch);
    const size_t n = selector.Select(begin, end, batch.data());
    rows.insert(batch.begin(), batch.begin() + static_cast<long>(n));
  }
  return rows;
}

std::set<size_t> Expected(const std::function<bool(const Row&)>& holds) {
  std::set<size_t> rows;
  for (size_t i = 0; i < Data().rows.size(); ++i) {
    if (holds(Data().rows[i])) rows.insert(i);
  }
  return rows;
}

Json Attribute(const std::string& id) { return {{"type", "attribute"}, {"id", id}}; }
Json Form(const std::string& attribute, const std::string& form) {
  return {{"type", "form"}, {"attribute", {{"id", attribute}}}, {"form", {{"id", form}}}};
}
Json Metric(const std::string& id) { return {{"type", "metric"}, {"id", id}}; }
Json Constant(const std::string& type, const std::string& value) {
  return {{"type", "constant"}, {"dataType", type}, {"value", value}};
}
Json Constants(const std::string& type, const std::vector<std::string>& values) {
  return {{"type", "constants"}, {"dataType", type}, {"values", values}};
}
Json Elements(const std::vector<std::string>& ids) {
  Json elements = Json::array();
  for (const auto& id : ids) elements.push_back({{"id", id}});
  return {{"type", "elements"}, {"elements", elements}};
}
Json Node(const std::string& op, std::vector<Json> operands) {
  return {{"operator", op}, {"operands", operands}};
}

TEST(ViewFilter, ElementListsInBothIdFormsAndUnknownValuesMatchNothing) {
  const Json in =
      Node("In", {Attribute(kRegion),
                  Elements({kRegion + ":2", "h4;" + kRegion + ";display text", kRegion + ":99"})});
  EXPECT_EQ(Selected(in), Expected([](const Row& r) { return r.region == 2 || r.region == 4; }));
  const Json not_in = Node("NotIn", {Attribute(kSegment), Elements({kSegment + ":Consumer"})});
  EXPECT_EQ(Selected(not_in), Expected([](const Row& r) { return r.segment != "Consumer"; }));
  EXPECT_EQ(Selected(Node("In", {Attribute(kRegion), Elements({kRegion + ":x"})})).size(), 0u);
}

TEST(ViewFilter, FormQualificationsOnNumbersTextAndDates) {
  EXPECT_EQ(Selected(Node(">=", {Form(kRegion, kIdForm), Constant("Real", "3")})),
            Expected([](const Row& r) { return r.region >= 3; }));
  EXPECT_EQ(Selected(Node("Equals", {Form(kRegion, kDescForm), Constant("Char", "south")})),
            Expected([](const Row& r) { return r.region == 2; }));
  EXPECT_EQ(Selected(Node("Between", {Form(kDay, kIdForm), Constant("Date", "1/5/2024"),
                                      Constant("Date", "2024-01-09")})),
            Expected([](const Row& r) { return r.day >= "2024-01-05" && r.day <= "2024-01-09"; }));
  EXPECT_EQ(Selected(Node(
                "In", {Form(kSegment, kIdForm), Constants("Char", {"Government", "Corporate"})})),
            Expected([](const Row& r) { return r.segment != "Consumer"; }));
  EXPECT_EQ(Selected(Node("Contains", {Form(kRegion, kDescForm), Constant("Char", "WEST")})),
            Expected([](const Row& r) { return r.region == 4; }));
  EXPECT_EQ(Selected(Node("NotBeginsWith", {Form(kRegion, kDescForm), Constant("Char", "ÜN")})),
            Expected([](const Row& r) { return r.region != 3; }));
  EXPECT_EQ(Selected(Node("Like", {Form(kSegment, kIdForm), Constant("Char", "co_s%")})),
            Expected([](const Row& r) { return r.segment == "Consumer"; }));
  // A form named by name instead of id.
  const Json by_name = {
      {"type", "form"}, {"attribute", {{"id", kRegion}}}, {"form", {{"name", "DESC"}}}};
  EXPECT_EQ(Selected(Node("EndsWith", {by_name, Constant("Char", "th")})),
            Expected([](const Row& r) { return r.region == 1 || r.region == 2; }));
}

TEST(ViewFilter, MetricQualificationsComparePerRowValuesAndNulls) {
  EXPECT_EQ(Selected(Node("Greater", {Metric(kRevenue), Constant("Real", "100.5")})),
            Expected([](const Row& r) { return r.revenue && *r.revenue > 100.5; }));
  EXPECT_EQ(
      Selected(Node("NotBetween",
                    {Metric(kRevenue), Constant("Int64", "0"), Constant("BigDecimal", "500")})),
      Expected([](const Row& r) { return r.revenue && (*r.revenue < 0 || *r.revenue > 500); }));
  EXPECT_EQ(Selected(Node("IsNull", {Metric(kRevenue)})),
            Expected([](const Row& r) { return !r.revenue; }));
  const Json number = {{"type", "constant"}, {"dataType", "Real"}, {"value", 250}};
  EXPECT_EQ(Selected(Node("<", {Metric(kRevenue), number})),
            Expected([](const Row& r) { return r.revenue && *r.revenue < 250; }));
}

TEST(ViewFilter, AndOrNotCombineAndNullKeepsEverything) {
  const Json tree =
      Node("Or", {Node("And", {Node("In", {Attribute(kRegion), Elements({kRegion + ":1"})}),
                               Node("Not", {Node("In", {Attribute(kSegment),
                                                        Elements({kSegment + ":Corporate"})})})}),
                  Node(">", {Metric(kRevenue), Constant("Real", "1500")})});
  EXPECT_EQ(Selected(tree), Expected([](const Row& r) {
              return (r.region == 1 && r.segment != "Corporate") ||
                     (r.revenue && *r.revenue > 1500);
            }));
  EXPECT_EQ(Selected(nullptr).size(), Data().rows.size());
}

void ExpectRefused(const Json& tree, ErrorCode code, const std::string& message) {
  try {
    CompileViewFilter(*Data().dataset, tree);
    ADD_FAILURE() << DumpJson(tree) << " was accepted";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), code) << DumpJson(tree);
    EXPECT_EQ(std::string(error.what()), message) << DumpJson(tree);
  }
}

TEST(ViewFilter, MalformedTreesAreRefusedWithTheSpecsMessages) {
  const Json region_in = Node("In", {Attribute(kRegion), Elements({kRegion + ":1"})});
  ExpectRefused(Node("Sometimes", {region_in}), ErrorCode::kInvalidInput,
                "Invalid operator - Sometimes");
  ExpectRefused(Node("And", {region_in}), ErrorCode::kInvalidInput,
                "There should be at least 2 operands for operator - And");
  ExpectRefused(Node("Not", {region_in, region_in}), ErrorCode::kInvalidInput,
                "There should be 1 operands for operator - Not");
  ExpectRefused(Node("Between", {Metric(kRevenue), Constant("Real", "1")}),
                ErrorCode::kInvalidInput, "There should be 3 operands for operator - Between");
  ExpectRefused(Node("In", {Attribute("nope"), Elements({})}), ErrorCode::kInvalidInput,
                "Invalid attribute id - nope");
  ExpectRefused(Node("In", {Attribute(kUnknown), Elements({})}), ErrorCode::kInvalidInput,
                "Failed to find the attribute " + kUnknown + " in the report or cube.");
  ExpectRefused(Node("In", {Attribute(kHidden), Elements({})}), ErrorCode::kInvalidInput,
                "Failed to find the attribute " + kHidden + " in the report or cube.");
  ExpectRefused(Node("In", {Attribute(kRegion), Elements({kSegment + ":Consumer"})}),
                ErrorCode::kInvalidInput, "Invalid element id - " + kSegment + ":Consumer");
  ExpectRefused(Node("In", {Attribute(kRegion), Elements({"garbage"})}), ErrorCode::kInvalidInput,
                "Invalid element id - garbage");
  ExpectRefused(Node(">", {Metric(kUnknown), Constant("Real", "1")}), ErrorCode::kInvalidInput,
                "Failed to find the metric " + kUnknown + " in the report or cube.");
  ExpectRefused(Node(">", {Form(kRegion, kUnknown), Constant("Real", "1")}),
                ErrorCode::kInvalidInput, "Invalid attribute form id - " + kUnknown);
  ExpectRefused(Node(">", {Metric(kRevenue), Constant("Char", "1")}), ErrorCode::kInvalidInput,
                "Invalid constant data type for metric qualification - Char");
  ExpectRefused(Node(">", {Form(kRegion, kIdForm), Constant("Int64", "1")}),
                ErrorCode::kInvalidInput,
                "Invalid constant data type for attribute form qualification - Int64");
  ExpectRefused(Node(">", {Form(kRegion, kIdForm), Constant("Real", "three")}),
                ErrorCode::kInvalidInput, "Invalid constant value - three");
  ExpectRefused(Node(">", {Metric(kRevenue), Constant("Real", "1e")}), ErrorCode::kInvalidInput,
                "Invalid constant value - 1e");
  ExpectRefused(Node(">", {Form(kDay, kIdForm), Constant("Date", "2024-13-01")}),
                ErrorCode::kInvalidInput, "Invalid constant value - 2024-13-01");
  ExpectRefused(Node("Equals", {Attribute(kRegion), Constant("Real", "1")}),
                ErrorCode::kInvalidInput,
                "The operands type combination of [attribute, constant] is not supported for "
                "operator - Equals");
  ExpectRefused(Node("Contains", {Form(kRegion, kIdForm), Constant("Char", "1")}),
                ErrorCode::kInvalidInput,
                "The operands type combination of [form, constant] is not supported for "
                "operator - Contains");
  ExpectRefused(Node("In", {{{"type", "cube"}}, Elements({})}), ErrorCode::kInvalidInput,
                "Unknown operand type 'cube'; the known types are attribute, form, metric, "
                "elements, constant and constants");
  ExpectRefused(Node("Rank.Top", {Metric(kRevenue), Constant("Real", "3")}),
                ErrorCode::kNotSupported, "Rank.Top applies to computed grids: use metricLimits");
  ExpectRefused(Node(">", {Metric(kRevenue), Metric(kRevenue)}), ErrorCode::kNotSupported,
                "comparing a metric with another metric in a view filter");
  ExpectRefused(Node(">", {Metric(kDistinct), Constant("Real", "1")}), ErrorCode::kNotSupported,
                "a count-distinct metric has no value per row to qualify on");
  ExpectRefused(Json::array(), ErrorCode::kInvalidInput,
                "A qualification must be an object with an operator");
}

}  // namespace
}  // namespace tessera::engine
