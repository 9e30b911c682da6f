// Warehouse reports: results of the generated SQL against the same aggregates computed by SQL
// written by hand over a hand-written flattening of the demo star schema, for every demo report
// and for hundreds of random templates and filters, on SQLite and PostgreSQL.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>

#include "core/error.h"
#include "core/strings.h"
#include "engine/demo/data.h"
#include "engine/demo_fixture.h"
#include "engine/sql/report_runner.h"
#include "engine/sql/report_sql.h"
#include "engine/warehouse_fixture.h"
#include "model/bundle/bundle.h"
#include "model/object_types.h"
#include "model/semantic_model.h"

namespace tessera::testing {
namespace {

using engine::warehouse::SqlValue;

// Each demo metric as an aggregate over `flat`, written independently of the bundle.
const std::map<std::string, std::string>& ReferenceMetrics() {
  static const std::map<std::string, std::string> metrics = {
      {"Revenue", "SUM(revenue)"},
      {"Cost", "SUM(cost)"},
      {"Profit", "(SUM(revenue) - SUM(cost))"},
      {"Profit Margin", "((SUM(revenue) - SUM(cost)) * 1.0 / NULLIF(SUM(revenue), 0))"},
      {"Units Sold", "SUM(units)"},
      {"Discount", "SUM(discount)"},
      {"Avg Unit Price", "(SUM(revenue) * 1.0 / NULLIF(SUM(units), 0))"},
      {"Customer Count", "COUNT(DISTINCT customer_id)"},
      {"Order Lines", "COUNT(*)"},
  };
  return metrics;
}

std::optional<double> Number(const SqlValue& value) {
  if (auto* integer = std::get_if<int64_t>(&value)) return static_cast<double>(*integer);
  if (auto* real = std::get_if<double>(&value)) return *real;
  return std::nullopt;
}

bool Close(std::optional<double> a, std::optional<double> b) {
  if (!a || !b) return !a && !b;
  double scale = std::max({1.0, std::fabs(*a), std::fabs(*b)});
  return std::fabs(*a - *b) <= 1e-9 * scale;
}

// The shared demo warehouse (engine/demo_fixture.h) and the demo model, once per backend.
struct DemoEnvironment {
  engine::warehouse::Warehouse* warehouse = nullptr;
  std::unique_ptr<model::SemanticModel> model;
};

DemoEnvironment& Demo(StoreBackend backend) {
  static std::map<StoreBackend, DemoEnvironment> environments;
  auto& environment = environments[backend];
  if (!environment.warehouse) {
    environment.warehouse = SharedDemoWarehouse(backend).warehouse.get();
    environment.model = std::make_unique<model::SemanticModel>(DemoModel());
  }
  return environment;
}

// A report query and the same question as hand-written SQL over `flat`.
struct Case {
  engine::sql::ReportQuery query;
  std::vector<std::string> reference_columns;  // attribute columns of flat, in form order
  std::vector<std::string> reference_metrics;  // aggregate expressions
  std::vector<std::string> order_columns;
  std::string where;
  std::string having;
  std::vector<SqlValue> where_parameters;
  std::vector<SqlValue> having_parameters;
  std::string description;
};

class ReportSql : public StoreBackendTest {
 public:
  void SetUp() override {
    StoreBackendTest::SetUp();
    if (IsSkipped()) return;
    environment_ = &Demo(GetParam());
  }

  const model::SemanticModel& model() { return *environment_->model; }
  engine::warehouse::Warehouse& warehouse() { return *environment_->warehouse; }

  std::string Id(int type, const std::string& name) {
    auto id = model().FindByName(type, name);
    EXPECT_TRUE(id) << name;
    return id.value_or("");
  }

  void AddAttribute(Case& c, const std::string& name) {
    const model::Attribute& attribute = model().attribute(Id(model::kTypeAttribute, name));
    c.query.attribute_ids.push_back(attribute.id);
    for (const auto& form : attribute.forms) c.reference_columns.push_back(form.column);
    c.order_columns.push_back(attribute.id_form().column);
  }

  void AddMetric(Case& c, const std::string& name) {
    c.query.metric_ids.push_back(Id(model::kTypeMetric, name));
    c.reference_metrics.push_back(ReferenceMetrics().at(name));
  }

  std::vector<std::vector<SqlValue>> Reference(const Case& c) {
    std::vector<std::string> select = c.reference_columns;
    select.insert(select.end(), c.reference_metrics.begin(), c.reference_metrics.end());
    bool aggregates = !c.reference_metrics.empty() || !c.having.empty();
    std::string sql = std::string(aggregates ? "SELECT " : "SELECT DISTINCT ") +
                      JoinStrings(select, ", ") + " FROM flat";
    if (!c.where.empty()) sql += " WHERE " + c.where;
    if (aggregates && !c.reference_columns.empty()) {
      sql += " GROUP BY " + JoinStrings(c.reference_columns, ", ");
    }
    if (!c.having.empty()) sql += " HAVING " + c.having;
    if (!c.order_columns.empty()) sql += " ORDER BY " + JoinStrings(c.order_columns, ", ");
    std::vector<SqlValue> parameters = c.where_parameters;
    parameters.insert(parameters.end(), c.having_parameters.begin(), c.having_parameters.end());
    return QueryRows(warehouse(), sql, parameters);
  }

  // Returns how many rows both gave.
  size_t ExpectSameResult(const Case& c) {
    SCOPED_TRACE(c.description);
    engine::sql::ReportResult actual = engine::sql::RunReport(warehouse(), model(), c.query);
    auto expected = Reference(c);
    EXPECT_EQ(actual.rows.size(), expected.size());
    if (actual.rows.size() != expected.size()) return 0;
    const size_t attribute_columns = c.reference_columns.size();
    for (size_t r = 0; r < expected.size(); ++r) {
      const auto& row = actual.rows[r];
      EXPECT_EQ(row.attribute_values.size(), attribute_columns);
      for (size_t i = 0; i < attribute_columns && i < row.attribute_values.size(); ++i) {
        EXPECT_EQ(row.attribute_values[i], expected[r][i]) << "row " << r << " column " << i;
      }
      for (size_t m = 0; m < c.reference_metrics.size(); ++m) {
        EXPECT_TRUE(Close(row.metric_values[m], Number(expected[r][attribute_columns + m])))
            << "row " << r << " metric " << c.reference_metrics[m];
      }
      if (HasFailure()) return 0;
    }
    return expected.size();
  }

 private:
  DemoEnvironment* environment_ = nullptr;
};

TEST_P(ReportSql, EveryDemoWarehouseReportMatchesHandWrittenSql) {
  int checked = 0;
  for (const auto& [id, report] : model().reports()) {
    if (report.source != model::ReportSource::kWarehouse) continue;
    Case c;
    c.description = report.name;
    for (const auto& attribute_id : report.attribute_ids)
      AddAttribute(c, model().attribute(attribute_id).name);
    for (const auto& metric_id : report.metric_ids) AddMetric(c, model().metric(metric_id).name);
    c.query = engine::sql::QueryOfReport(model(), report);
    if (report.filter_id) {
      // The demo filters, written by hand: see demo/tutorial/filters.yaml.
      const std::string name = model().filter(*report.filter_id).name;
      if (name == "Western Europe") {
        c.where = "region_name IN (?)";
        c.where_parameters = {std::string("Western Europe")};
      } else if (name == "Electronics and Apparel") {
        c.where = "category_name IN (?, ?)";
        c.where_parameters = {std::string("Electronics"), std::string("Apparel")};
      } else if (name == "Year 2024") {
        c.where = "year_id IN (?)";
        c.where_parameters = {int64_t{2024}};
      } else if (name == "Online in Western Europe") {
        c.where = "region_name IN (?) AND channel_name IN (?)";
        c.where_parameters = {std::string("Western Europe"), std::string("Online")};
      } else if (name == "Corporate and Government") {
        c.where = "customer_segment_name IN (?, ?)";
        c.where_parameters = {std::string("Corporate"), std::string("Government")};
      } else if (name == "High Revenue Lines") {
        c.having = "SUM(revenue) > ?";
        c.having_parameters = {1000.0};
      } else {
        ADD_FAILURE() << "no hand-written SQL for filter " << name;
        continue;
      }
    }
    EXPECT_GT(ExpectSameResult(c), 0u) << report.name;
    ++checked;
  }
  EXPECT_GE(checked, 4);
}

// Random templates and filters. Filter leaves draw their values from the data itself.
class RandomCases {
 public:
  RandomCases(ReportSql& test, uint64_t seed) : test_(test), random_(seed) {}

  Case Next(const model::SemanticModel& model) {
    Case c;
    auto attributes = Pick(AttributeNames(), Uniform(0, 3));
    auto metrics = Pick(MetricNames(), Uniform(attributes.empty() ? 1 : 0, 3));
    for (const auto& name : attributes) test_.AddAttribute(c, name);
    for (const auto& name : metrics) test_.AddMetric(c, name);
    c.description = "attributes [" + JoinStrings(attributes, ", ") + "] metrics [" +
                    JoinStrings(metrics, ", ") + "]";
    AddFilter(model, c, !metrics.empty());
    return c;
  }

 private:
  static std::vector<std::string> AttributeNames() {
    return {"Year", "Quarter",  "Month",       "Day",  "Region",           "Country",
            "City", "Category", "Subcategory", "Item", "Customer Segment", "Channel"};
  }
  static std::vector<std::string> MetricNames() {
    std::vector<std::string> names;
    for (const auto& [name, sql] : ReferenceMetrics()) names.push_back(name);
    return names;
  }

  int Uniform(int low, int high) { return std::uniform_int_distribution<int>(low, high)(random_); }

  std::vector<std::string> Pick(std::vector<std::string> names, int count) {
    std::shuffle(names.begin(), names.end(), random_);
    names.resize(std::min<size_t>(count, names.size()));
    return names;
  }

  struct Leaf {
    Json qualification;
    std::string sql;
    std::vector<SqlValue> parameters;
  };

  // A random attribute's elements, by ID form value.
  Leaf ElementList(const model::SemanticModel& model, bool negate) {
    std::string name =
        Pick({"Region", "Category", "Channel", "Customer Segment", "Year", "Country"}, 1)[0];
    const model::Attribute& attribute =
        model.attribute(*model.FindByName(model::kTypeAttribute, name));
    const std::string column = attribute.id_form().column;
    auto values =
        QueryRows(test_.warehouse(), "SELECT DISTINCT " + column + " FROM flat ORDER BY " + column);
    std::shuffle(values.begin(), values.end(), random_);
    values.resize(std::min<size_t>(values.size(), Uniform(1, 3)));
    Leaf leaf;
    Json elements = Json::array();
    std::vector<std::string> placeholders;
    for (const auto& value : values) {
      std::string key = std::holds_alternative<int64_t>(value[0])
                            ? std::to_string(std::get<int64_t>(value[0]))
                            : std::get<std::string>(value[0]);
      elements.push_back({{"id", attribute.id + ":" + key}});
      placeholders.push_back("?");
      leaf.parameters.push_back(value[0]);
    }
    leaf.qualification = {{"operator", negate ? "NotIn" : "In"},
                          {"operands",
                           {{{"type", "attribute"}, {"id", attribute.id}},
                            {{"type", "elements"}, {"elements", elements}}}}};
    leaf.sql = column + (negate ? " NOT IN (" : " IN (") + JoinStrings(placeholders, ", ") + ")";
    return leaf;
  }

  Leaf DayRange(const model::SemanticModel& model) {
    const std::string day = *model.FindByName(model::kTypeAttribute, "Day");
    int month = Uniform(1, 12);
    char low[16], high[16];
    std::snprintf(low, sizeof low, "2023-%02d-01", month);
    std::snprintf(high, sizeof high, "2024-%02d-15", month);
    Leaf leaf;
    leaf.qualification = {
        {"operator", "Between"},
        {"operands",
         {{{"type", "form"}, {"attribute", {{"id", day}}}, {"form", {{"name", "ID"}}}},
          {{"type", "constant"}, {"dataType", "Date"}, {"value", low}},
          {{"type", "constant"}, {"dataType", "Date"}, {"value", high}}}}};
    leaf.sql = "day_id BETWEEN ? AND ?";
    leaf.parameters = {std::string(low), std::string(high)};
    return leaf;
  }

  Leaf CityContains(const model::SemanticModel& model) {
    const std::string city = *model.FindByName(model::kTypeAttribute, "City");
    auto names = QueryRows(test_.warehouse(), "SELECT city_name FROM lu_city ORDER BY city_id");
    std::string name =
        std::get<std::string>(names[Uniform(0, static_cast<int>(names.size()) - 1)][0]);
    int start = Uniform(0, static_cast<int>(name.size()) - 3);
    std::string fragment = name.substr(start, 3);
    Leaf leaf;
    leaf.qualification = {
        {"operator", "Contains"},
        {"operands",
         {{{"type", "form"}, {"attribute", {{"id", city}}}, {"form", {{"name", "DESC"}}}},
          {{"type", "constant"}, {"dataType", "Char"}, {"value", ToUpper(fragment)}}}}};
    leaf.sql = "LOWER(city_name) LIKE ?";
    leaf.parameters = {"%" + ToLower(fragment) + "%"};
    return leaf;
  }

  Leaf YearAtLeast(const model::SemanticModel& model) {
    const std::string year = *model.FindByName(model::kTypeAttribute, "Year");
    int64_t from = Uniform(2022, 2024);
    Leaf leaf;
    leaf.qualification = {
        {"operator", "GreaterEqual"},
        {"operands",
         {{{"type", "form"}, {"attribute", {{"id", year}}}, {"form", {{"name", "ID"}}}},
          {{"type", "constant"}, {"dataType", "Int64"}, {"value", std::to_string(from)}}}}};
    leaf.sql = "year_id >= ?";
    leaf.parameters = {from};
    return leaf;
  }

  Leaf RowLeaf(const model::SemanticModel& model) {
    switch (Uniform(0, 4)) {
      case 0:
        return ElementList(model, false);
      case 1:
        return ElementList(model, true);
      case 2:
        return DayRange(model);
      case 3:
        return CityContains(model);
      default:
        return YearAtLeast(model);
    }
  }

  void AddFilter(const model::SemanticModel& model, Case& c, bool has_metrics) {
    int shape = Uniform(0, 5);
    if (shape == 0) return;
    std::vector<Json> parts;
    std::vector<std::string> where;
    auto take = [&](Leaf leaf) {
      parts.push_back(leaf.qualification);
      where.push_back("(" + leaf.sql + ")");
      c.where_parameters.insert(c.where_parameters.end(), leaf.parameters.begin(),
                                leaf.parameters.end());
    };
    if (shape == 1) {
      take(RowLeaf(model));
      c.query.filter = parts[0];
    } else if (shape == 2 || shape == 3) {
      take(RowLeaf(model));
      take(RowLeaf(model));
      c.query.filter = {{"operator", shape == 2 ? "And" : "Or"}, {"operands", parts}};
      where = {JoinStrings(where, shape == 2 ? " AND " : " OR ")};
    } else if (shape == 4) {
      take(RowLeaf(model));
      c.query.filter = {{"operator", "Not"}, {"operands", parts}};
      where = {"NOT " + where[0]};
    } else {
      take(RowLeaf(model));
      Json rows = parts[0];
      if (has_metrics) {
        const std::string revenue = *model.FindByName(model::kTypeMetric, "Revenue");
        double threshold = Uniform(0, 20000);
        Json metric_leaf = {{"operator", "Greater"},
                            {"operands",
                             {{{"type", "metric"}, {"id", revenue}},
                              {{"type", "constant"},
                               {"dataType", "Real"},
                               {"value", std::to_string(static_cast<int>(threshold))}}}}};
        c.query.filter = {{"operator", "And"}, {"operands", {rows, metric_leaf}}};
        c.having = "SUM(revenue) > ?";
        c.having_parameters = {static_cast<double>(static_cast<int>(threshold))};
      } else {
        c.query.filter = rows;
      }
    }
    c.where = where.empty() ? "" : where[0];
    c.description += " filter " + DumpJson(c.query.filter);
  }

  ReportSql& test_;
  std::mt19937_64 random_;
};

TEST_P(ReportSql, RandomTemplatesAndFiltersMatchHandWrittenSql) {
  RandomCases cases(*this, 20261121);
  int non_empty = 0;
  for (int i = 0; i < 250; ++i) {
    if (ExpectSameResult(cases.Next(model())) > 0) ++non_empty;
    if (HasFailure()) return;
  }
  EXPECT_GE(non_empty, 150);  // most cases must compare real rows, not two empty answers
}

TEST_P(ReportSql, ValuesFromRequestsAreBoundNeverSpliced) {
  const std::string region = Id(model::kTypeAttribute, "Region");
  const std::string revenue = Id(model::kTypeMetric, "Revenue");
  engine::sql::ReportQuery query;
  query.attribute_ids = {region};
  query.metric_ids = {revenue};
  query.filter = {
      {"operator", "In"},
      {"operands",
       {{{"type", "form"}, {"attribute", {{"id", region}}}, {"form", {{"name", "DESC"}}}},
        {{"type", "constants"},
         {"dataType", "Char"},
         {"values", {"x' OR '1'='1", "'); DROP TABLE sales_fact; --"}}}}}};
  auto generated = engine::sql::GenerateReportSql(model(), query, warehouse().dialect());
  EXPECT_EQ(generated.statement.text.find("DROP"), std::string::npos);
  EXPECT_EQ(generated.statement.text.find("OR '1'"), std::string::npos);
  EXPECT_TRUE(engine::sql::RunReport(warehouse(), model(), query).rows.empty());

  // An element id carrying SQL text is a value that matches nothing, not an error.
  query.filter = {{"operator", "In"},
                  {"operands",
                   {{{"type", "attribute"}, {"id", region}},
                    {{"type", "elements"}, {"elements", {{{"id", region + ":1 OR 1=1"}}}}}}}};
  EXPECT_TRUE(engine::sql::RunReport(warehouse(), model(), query).rows.empty());
  EXPECT_EQ(std::get<int64_t>(QueryValue(warehouse(), "SELECT COUNT(*) FROM sales_fact")), 20000);
}

TEST_P(ReportSql, BadFiltersAreRefusedWithTheReferenceMessages) {
  const std::string region = Id(model::kTypeAttribute, "Region");
  const std::string revenue = Id(model::kTypeMetric, "Revenue");
  engine::sql::ReportQuery query;
  query.attribute_ids = {region};
  query.metric_ids = {revenue};
  auto message_of = [&](Json filter) -> std::string {
    query.filter = std::move(filter);
    try {
      engine::sql::GenerateReportSql(model(), query, warehouse().dialect());
    } catch (const Error& e) {
      return std::string(e.message());
    }
    return "";
  };
  EXPECT_EQ(message_of({{"operator", "Betwen"}, {"operands", Json::array()}}),
            "Invalid operator - Betwen");
  EXPECT_EQ(message_of({{"operator", "In"},
                        {"operands",
                         {{{"type", "attribute"}, {"id", "0123456789ABCDEF0123456789ABCDEF"}},
                          {{"type", "elements"}, {"elements", Json::array()}}}}}),
            "Invalid attribute id - 0123456789ABCDEF0123456789ABCDEF");
  EXPECT_EQ(
      message_of({{"operator", "Greater"}, {"operands", {{{"type", "metric"}, {"id", revenue}}}}}),
      "There should be 2 operands for operator - Greater");
  EXPECT_EQ(
      message_of({{"operator", "Greater"},
                  {"operands",
                   {{{"type", "form"}, {"attribute", {{"id", region}}}, {"form", {{"name", "ID"}}}},
                    {{"type", "constant"}, {"dataType", "Int64"}, {"value", "abc"}}}}}),
      "'abc' is not a valid integer value for form ID of attribute Region");
  EXPECT_NE(message_of({{"operator", "Or"},
                        {"operands",
                         {{{"operator", "Greater"},
                           {"operands",
                            {{{"type", "metric"}, {"id", revenue}},
                             {{"type", "constant"}, {"dataType", "Real"}, {"value", "1"}}}}},
                          {{"operator", "In"},
                           {"operands",
                            {{{"type", "attribute"}, {"id", region}},
                             {{"type", "elements"}, {"elements", Json::array()}}}}}}}})
                .find("combine them with And"),
            std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Backends, ReportSql, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
