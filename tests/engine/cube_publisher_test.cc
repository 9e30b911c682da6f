// Publishing cubes: every row and element dictionary of the published Dataset against the same
// aggregates computed by SQL written by hand over the flattened demo star schema, for the demo
// cubes and for cubes with avg, min/max with nulls, count distinct, compound metrics and a
// filter, on SQLite and PostgreSQL warehouses.
#include "engine/cube_publisher.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>

#include "core/ids.h"
#include "engine/demo_fixture.h"
#include "model/object_types.h"

namespace tessera::testing {
namespace {

using engine::Dataset;
using engine::warehouse::SqlValue;

bool Close(std::optional<double> a, std::optional<double> b) {
  if (!a || !b) return !a && !b;
  double scale = std::max({1.0, std::fabs(*a), std::fabs(*b)});
  return std::fabs(*a - *b) <= 1e-9 * scale;
}

std::string Show(std::optional<double> value) {
  return value ? std::to_string(*value) : std::string("null");
}

// Reference rows by the text of their key columns (the first `key_columns` of each row).
using Reference = std::map<std::string, std::vector<std::optional<double>>>;

std::string KeyOf(const std::vector<std::string>& parts) {
  std::string key;
  for (const auto& part : parts) key += part + "|";
  return key;
}

Reference ReferenceRows(engine::warehouse::Warehouse& warehouse, const std::string& sql,
                        size_t key_columns) {
  Reference reference;
  for (const auto& row : QueryRows(warehouse, sql)) {
    std::vector<std::string> key;
    std::vector<std::optional<double>> values;
    for (size_t i = 0; i < row.size(); ++i) {
      if (i < key_columns) {
        key.push_back(CellText(row[i]));
      } else {
        values.push_back(CellNumber(row[i]));
      }
    }
    reference[KeyOf(key)] = values;
  }
  return reference;
}

// One number per dataset row, read from the dataset as a client of it would.
using Column = std::function<std::optional<double>(size_t row)>;

Column ValuesOf(const Dataset& dataset, const std::string& metric_id) {
  const int index = dataset.MetricIndex(metric_id);
  EXPECT_GE(index, 0) << metric_id;
  const engine::MetricColumn* metric = index < 0 ? nullptr : &dataset.metric(index);
  return [metric](size_t row) -> std::optional<double> {
    if (!metric || !metric->IsValid(row)) return std::nullopt;
    if (metric->CountsRows()) return 1.0;
    return (*metric->values)[row];
  };
}

Column CountsOf(const Dataset& dataset, const std::string& metric_id) {
  const int index = dataset.MetricIndex(metric_id);
  EXPECT_GE(index, 0) << metric_id;
  const engine::MetricColumn* metric = index < 0 ? nullptr : &dataset.metric(index);
  return [metric](size_t row) -> std::optional<double> {
    if (!metric || !metric->counts) return std::nullopt;
    return (*metric->counts)[row];
  };
}

std::string RowKey(const Dataset& dataset, const std::vector<int>& attributes, size_t row) {
  std::vector<std::string> parts;
  for (int index : attributes) {
    const auto& attribute = dataset.attribute(index);
    parts.push_back(CellText(attribute.dictionary.Value(0, attribute.codes[row])));
  }
  return KeyOf(parts);
}

// Every dataset row has the reference row of its attribute IDs with the same numbers, no two
// dataset rows share their IDs, and no reference row is missing.
void ExpectRowsMatch(const Dataset& dataset, const std::vector<std::string>& key_attribute_ids,
                     const std::vector<Column>& columns, const Reference& reference) {
  std::vector<int> attributes;
  for (const auto& id : key_attribute_ids) {
    attributes.push_back(dataset.AttributeIndex(id));
    ASSERT_GE(attributes.back(), 0) << id;
  }
  EXPECT_EQ(dataset.row_count(), reference.size());
  std::set<std::string> seen;
  int failures = 0;
  for (size_t row = 0; row < dataset.row_count() && failures < 10; ++row) {
    const std::string key = RowKey(dataset, attributes, row);
    if (!seen.insert(key).second) {
      ADD_FAILURE() << "two rows for " << key;
      ++failures;
      continue;
    }
    auto it = reference.find(key);
    if (it == reference.end()) {
      ADD_FAILURE() << "no reference row for " << key;
      ++failures;
      continue;
    }
    for (size_t i = 0; i < columns.size(); ++i) {
      const std::optional<double> actual = columns[i](row);
      if (!Close(actual, it->second[i])) {
        ADD_FAILURE() << key << " column " << i << ": " << Show(actual) << " instead of "
                      << Show(it->second[i]);
        ++failures;
      }
    }
  }
}

// The forms of each demo attribute as columns of `flat`, ID first.
const std::map<std::string, std::vector<std::string>>& FlatColumns() {
  static const std::map<std::string, std::vector<std::string>> columns = {
      {"Year", {"year_id"}},
      {"Quarter", {"quarter_id"}},
      {"Month", {"month_id", "month_name"}},
      {"Day", {"day_id"}},
      {"Region", {"region_id", "region_name"}},
      {"Country", {"country_id", "country_name"}},
      {"Category", {"category_id", "category_name"}},
      {"Subcategory", {"subcategory_id", "subcategory_name"}},
      {"Item", {"item_id", "item_name", "list_price"}},
      {"Customer Segment", {"customer_segment_id", "customer_segment_name"}},
      {"Customer", {"customer_id", "customer_name"}},
      {"Channel", {"channel_id", "channel_name"}},
  };
  return columns;
}

// Each attribute's dictionary holds exactly the elements `flat` has (under `where`), ordered by
// ID (numbers numerically, text by bytes), with every form's value.
void ExpectDictionariesMatch(engine::warehouse::Warehouse& warehouse, const Dataset& dataset,
                             const std::string& where = "") {
  for (const auto& attribute : dataset.attributes()) {
    SCOPED_TRACE(attribute.name);
    const auto& columns = FlatColumns().at(attribute.name);
    std::string sql = "SELECT DISTINCT ";
    for (size_t i = 0; i < columns.size(); ++i) sql += (i ? ", " : "") + columns[i];
    sql += " FROM flat" + where;
    auto rows = QueryRows(warehouse, sql);
    std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
      if (std::holds_alternative<int64_t>(a[0]) && std::holds_alternative<int64_t>(b[0])) {
        return std::get<int64_t>(a[0]) < std::get<int64_t>(b[0]);
      }
      return CellText(a[0]) < CellText(b[0]);
    });
    const auto& dictionary = attribute.dictionary;
    ASSERT_EQ(dictionary.forms().size(), columns.size());
    ASSERT_EQ(dictionary.size(), rows.size());
    for (uint32_t code = 0; code < rows.size(); ++code) {
      for (size_t form = 0; form < columns.size(); ++form) {
        ASSERT_EQ(CellText(dictionary.Value(form, code)), CellText(rows[code][form]))
            << "element " << code << " form " << form;
      }
    }
  }
}

model::ObjectRecord TestObject(int type, int subtype, const std::string& name, Json definition) {
  model::ObjectRecord record;
  record.id = DeterministicObjectId("cube publisher test:" + name);
  record.type = type;
  record.subtype = subtype;
  record.name = name;
  record.definition = std::move(definition);
  return record;
}

class CubePublish : public ::testing::TestWithParam<StoreBackend> {
 protected:
  void SetUp() override {
    if (!IsBackendConfigured(GetParam())) {
      GTEST_SKIP() << "TESSERA_TEST_PG is not set (scripts/with-test-postgres.sh sets it)";
    }
  }

  engine::warehouse::Warehouse& warehouse() { return *SharedDemoWarehouse(GetParam()).warehouse; }

  static std::string Id(const model::SemanticModel& model, int type, const std::string& name) {
    auto id = model.FindByName(type, name);
    EXPECT_TRUE(id) << name;
    return id.value_or("");
  }

  std::shared_ptr<const Dataset> Publish(const model::SemanticModel& model,
                                         const std::string& cube_name) {
    return engine::PublishCubeDataset(
        warehouse(), model, model.cube(Id(model, model::kTypeReportDefinition, cube_name)));
  }

  // Demo metrics and attributes plus test cubes over them.
  static model::SemanticModel ModelWithTestCubes() {
    model::SemanticModel demo = DemoModel();
    auto metric = [&](const std::string& name) { return Id(demo, model::kTypeMetric, name); };
    auto attribute = [&](const std::string& name) { return Id(demo, model::kTypeAttribute, name); };
    const std::string revenue_fact = demo.metric(metric("Revenue")).fact_id;
    const std::string discount_fact = demo.metric(metric("Discount")).fact_id;
    EXPECT_EQ(demo.metric(metric("Avg Revenue")).fact_id, revenue_fact);
    std::vector<model::ObjectRecord> extra = {
        TestObject(model::kTypeMetric, 1024, "Max Discount",
                   {{"function", "max"}, {"fact", discount_fact}}),
        TestObject(model::kTypeMetric, 1024, "Min Discount",
                   {{"function", "min"}, {"fact", discount_fact}}),
    };
    extra.push_back(TestObject(
        model::kTypeReportDefinition, model::kSubtypeOlapCube, "Western Europe Cube",
        {{"attributes",
          Json::array({attribute("Region"), attribute("Channel"), attribute("Customer")})},
         {"metrics", Json::array({metric("Avg Revenue"), extra[0].id, metric("Profit Margin"),
                                  metric("Customer Count")})},
         {"filter", Id(demo, model::kTypeFilter, "Western Europe")}}));
    extra.push_back(TestObject(
        model::kTypeReportDefinition, model::kSubtypeOlapCube, "Discount Cube",
        {{"attributes", Json::array({attribute("Day"), attribute("Item"), attribute("Customer")})},
         {"metrics", Json::array({extra[0].id, extra[1].id, metric("Discount")})}}));
    extra.push_back(TestObject(model::kTypeReportDefinition, model::kSubtypeOlapCube, "Margin Cube",
                               {{"attributes", Json::array({attribute("Year")})},
                                {"metrics", Json::array({metric("Profit Margin")})}}));
    return DemoModel(extra);
  }
};

TEST_P(CubePublish, SalesCubeKeepsItsAttributesTheCountedCustomerHiddenAndSimpleMetrics) {
  model::SemanticModel model = DemoModel();
  auto dataset = Publish(model, "Sales Cube");
  std::vector<std::string> names;
  for (const auto& attribute : dataset->attributes()) {
    names.push_back(attribute.name + (attribute.hidden ? " (hidden)" : ""));
  }
  EXPECT_EQ(names, (std::vector<std::string>{"Year", "Quarter", "Month", "Region", "Country",
                                             "Category", "Subcategory", "Customer Segment",
                                             "Channel", "Customer (hidden)"}));
  std::vector<std::string> metrics;
  for (const auto& metric : dataset->metrics()) metrics.push_back(metric.name);
  // Profit is compound: its components are columns, it is not.
  EXPECT_EQ(metrics, (std::vector<std::string>{"Revenue", "Cost", "Units Sold", "Customer Count",
                                               "Order Lines"}));
  const auto& customer_count =
      dataset->metric(dataset->MetricIndex(Id(model, model::kTypeMetric, "Customer Count")));
  EXPECT_EQ(customer_count.function, model::AggregateFunction::kCountDistinct);
  EXPECT_EQ(customer_count.counted_attribute,
            dataset->AttributeIndex(Id(model, model::kTypeAttribute, "Customer")));
  EXPECT_EQ(dataset->metric(0).format_string, "#,##0.00");
  // Form types come from the lookup tables' columns.
  const auto& month = dataset->attribute(2).dictionary;
  EXPECT_EQ(month.forms()[0].type, model::DataType::kText);
  EXPECT_EQ(month.forms()[1].name, "DESC");
  EXPECT_EQ(dataset->attribute(0).dictionary.forms()[0].type, model::DataType::kInteger);
}

TEST_P(CubePublish, SalesCubeRowsHoldTheWarehouseAggregatesAtTheCubeLevel) {
  model::SemanticModel model = DemoModel();
  auto dataset = Publish(model, "Sales Cube");
  const std::string keys =
      "year_id, quarter_id, month_id, region_id, country_id, category_id, subcategory_id, "
      "customer_segment_id, channel_id, customer_id";
  Reference reference = ReferenceRows(
      warehouse(),
      "SELECT " + keys + ", SUM(revenue), SUM(cost), SUM(units), COUNT(*) FROM flat GROUP BY " +
          keys,
      10);
  std::vector<std::string> attribute_ids;
  for (const auto& name : {"Year", "Quarter", "Month", "Region", "Country", "Category",
                           "Subcategory", "Customer Segment", "Channel", "Customer"}) {
    attribute_ids.push_back(Id(model, model::kTypeAttribute, name));
  }
  auto metric = [&](const std::string& name) {
    return ValuesOf(*dataset, Id(model, model::kTypeMetric, name));
  };
  ExpectRowsMatch(*dataset, attribute_ids,
                  {metric("Revenue"), metric("Cost"), metric("Units Sold"), metric("Order Lines")},
                  reference);
}

TEST_P(CubePublish, SalesCubeDictionariesHoldEveryElementInIdOrder) {
  auto dataset = Publish(DemoModel(), "Sales Cube");
  ExpectDictionariesMatch(warehouse(), *dataset);
}

TEST_P(CubePublish, TheHiddenCustomerCountsDistinctCustomersExactlyAtAnyLevel) {
  model::SemanticModel model = DemoModel();
  auto dataset = Publish(model, "Sales Cube");
  const auto& metric =
      dataset->metric(dataset->MetricIndex(Id(model, model::kTypeMetric, "Customer Count")));
  const auto& counted = dataset->attribute(metric.counted_attribute);
  const auto& region =
      dataset->attribute(dataset->AttributeIndex(Id(model, model::kTypeAttribute, "Region")));
  std::map<std::string, std::set<uint32_t>> customers_by_region;
  for (size_t row = 0; row < dataset->row_count(); ++row) {
    customers_by_region[CellText(region.dictionary.Value(0, region.codes[row]))].insert(
        counted.codes[row]);
  }
  Reference reference = ReferenceRows(
      warehouse(), "SELECT region_id, COUNT(DISTINCT customer_id) FROM flat GROUP BY region_id", 1);
  ASSERT_EQ(customers_by_region.size(), reference.size());
  for (const auto& [region_id, customers] : customers_by_region) {
    EXPECT_EQ(static_cast<double>(customers.size()), reference.at(KeyOf({region_id}))[0])
        << region_id;
  }
}

TEST_P(CubePublish, ItemSalesCubeRowsAndDictionariesMatchTheWarehouse) {
  model::SemanticModel model = DemoModel();
  auto dataset = Publish(model, "Item Sales Cube");
  EXPECT_EQ(dataset->attributes().size(), 5u);  // no count distinct: nothing hidden
  const std::string keys = "item_id, subcategory_id, category_id, month_id, channel_id";
  Reference reference = ReferenceRows(
      warehouse(),
      "SELECT " + keys + ", SUM(revenue), SUM(cost), SUM(units) FROM flat GROUP BY " + keys, 5);
  std::vector<std::string> attribute_ids;
  for (const auto& name : {"Item", "Subcategory", "Category", "Month", "Channel"}) {
    attribute_ids.push_back(Id(model, model::kTypeAttribute, name));
  }
  auto metric = [&](const std::string& name) {
    return ValuesOf(*dataset, Id(model, model::kTypeMetric, name));
  };
  ExpectRowsMatch(*dataset, attribute_ids,
                  {metric("Revenue"), metric("Cost"), metric("Units Sold")}, reference);
  ExpectDictionariesMatch(warehouse(), *dataset);
}

TEST_P(CubePublish, AFilteredCubeKeepsOnlyItsRowsWithAvgAsSumAndCount) {
  model::SemanticModel model = ModelWithTestCubes();
  auto dataset = Publish(model, "Western Europe Cube");
  // Customer Count's attribute is listed: nothing hidden. Profit Margin brings Revenue and Cost.
  EXPECT_EQ(dataset->attributes().size(), 3u);
  std::vector<std::string> metrics;
  for (const auto& metric : dataset->metrics()) metrics.push_back(metric.name);
  EXPECT_EQ(metrics, (std::vector<std::string>{"Avg Revenue", "Max Discount", "Revenue", "Cost",
                                               "Customer Count"}));
  EXPECT_EQ(dataset->metric(4).counted_attribute, 2);
  const std::string where = " WHERE region_name = 'Western Europe'";
  Reference reference = ReferenceRows(warehouse(),
                                      "SELECT region_id, channel_id, customer_id, SUM(revenue), "
                                      "COUNT(revenue), MAX(discount), SUM(revenue), SUM(cost) "
                                      "FROM flat" +
                                          where + " GROUP BY region_id, channel_id, customer_id",
                                      3);
  ASSERT_FALSE(reference.empty());
  auto id = [&](const std::string& name) { return Id(model, model::kTypeMetric, name); };
  std::vector<std::string> attribute_ids;
  for (const auto& name : {"Region", "Channel", "Customer"}) {
    attribute_ids.push_back(Id(model, model::kTypeAttribute, name));
  }
  ExpectRowsMatch(*dataset, attribute_ids,
                  {ValuesOf(*dataset, id("Avg Revenue")), CountsOf(*dataset, id("Avg Revenue")),
                   ValuesOf(*dataset, id("Max Discount")), ValuesOf(*dataset, id("Revenue")),
                   ValuesOf(*dataset, id("Cost"))},
                  reference);
  ExpectDictionariesMatch(warehouse(), *dataset, where);
}

TEST_P(CubePublish, NullAggregatesAreNullRowsOfTheirMetric) {
  model::SemanticModel model = ModelWithTestCubes();
  auto dataset = Publish(model, "Discount Cube");
  Reference reference = ReferenceRows(
      warehouse(),
      "SELECT day_id, item_id, customer_id, MAX(discount), MIN(discount), SUM(discount) "
      "FROM flat GROUP BY day_id, item_id, customer_id",
      3);
  size_t null_rows = 0;
  for (const auto& [key, values] : reference) null_rows += values[0] ? 0 : 1;
  ASSERT_GT(null_rows, 0u) << "the demo data has null discounts";
  auto id = [&](const std::string& name) { return Id(model, model::kTypeMetric, name); };
  std::vector<std::string> attribute_ids;
  for (const auto& name : {"Day", "Item", "Customer"}) {
    attribute_ids.push_back(Id(model, model::kTypeAttribute, name));
  }
  ExpectRowsMatch(*dataset, attribute_ids,
                  {ValuesOf(*dataset, id("Max Discount")), ValuesOf(*dataset, id("Min Discount")),
                   ValuesOf(*dataset, id("Discount"))},
                  reference);
  EXPECT_TRUE(dataset->metric(dataset->MetricIndex(id("Max Discount"))).HasNulls());
}

TEST_P(CubePublish, ACompoundMetricAloneStoresItsComponentsRecursively) {
  model::SemanticModel model = ModelWithTestCubes();
  auto dataset = Publish(model, "Margin Cube");
  // Profit Margin = Profit / Revenue, Profit = Revenue - Cost.
  std::vector<std::string> metrics;
  for (const auto& metric : dataset->metrics()) metrics.push_back(metric.name);
  EXPECT_EQ(metrics, (std::vector<std::string>{"Revenue", "Cost"}));
  Reference reference = ReferenceRows(
      warehouse(), "SELECT year_id, SUM(revenue), SUM(cost) FROM flat GROUP BY year_id", 1);
  ExpectRowsMatch(*dataset, {Id(model, model::kTypeAttribute, "Year")},
                  {ValuesOf(*dataset, Id(model, model::kTypeMetric, "Revenue")),
                   ValuesOf(*dataset, Id(model, model::kTypeMetric, "Cost"))},
                  reference);
}

TEST_P(CubePublish, TheCubeQuerySelectsAvgAsSumAndCountWithoutSorting) {
  model::SemanticModel model = ModelWithTestCubes();
  const auto& cube = model.cube(Id(model, model::kTypeReportDefinition, "Western Europe Cube"));
  engine::CubeLayout layout = engine::LayoutOfCube(model, cube);
  auto generated = engine::sql::GenerateReportSql(model, layout.query, warehouse().dialect());
  const std::string& sql = generated.statement.text;
  EXPECT_EQ(sql.find("AVG("), std::string::npos) << sql;
  EXPECT_NE(sql.find("COUNT(f.\"revenue\")"), std::string::npos) << sql;
  EXPECT_EQ(sql.find("ORDER BY"), std::string::npos) << sql;
  EXPECT_NE(sql.find("WHERE"), std::string::npos) << sql;
  EXPECT_EQ(generated.statement.parameters.size(), 1u);  // 'Western Europe', bound
}

TEST_P(CubePublish, AnUnreachableWarehouseFailsThePublishWithItsError) {
  model::SemanticModel model = DemoModel();
  auto unreachable = engine::warehouse::Warehouse::Open(
      {.name = "nowhere", .url = "postgresql://tessera@127.0.0.1:1/none?connect_timeout=2"});
  auto error = ErrorFrom([&] {
    engine::PublishCubeDataset(*unreachable, model,
                               model.cube(Id(model, model::kTypeReportDefinition, "Sales Cube")));
  });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->code(), ErrorCode::kEngineUnreachable);
}

INSTANTIATE_TEST_SUITE_P(Backends, CubePublish, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
