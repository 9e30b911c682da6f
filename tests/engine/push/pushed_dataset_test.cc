// The Dataset a pushed dataset publishes: one attribute and one metric per model entry with stable
// ids, every table's rows once (so totals equal the input's), attributes a table lacks filled
// through a shared attribute. Expected values are computed here from the input rows.
#include "engine/push/pushed_dataset.h"
#include "engine/push/push_samples.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "core/error.h"
#include "core/ids.h"

namespace tessera::engine::push {
namespace {

using model::DataType;
using Row = std::vector<Cell>;

const char* kDatasetId = "0A1B2C3D4E5F60718293A4B5C6D7E8F9";

push::PushModel Model(const char* json) { return push::ParsePushModel(Json::parse(json)); }

int AttributeIndexByName(const Dataset& dataset, const std::string& name) {
  for (size_t i = 0; i < dataset.attributes().size(); ++i) {
    if (dataset.attribute(i).name == name) return static_cast<int>(i);
  }
  ADD_FAILURE() << "no attribute " << name;
  return 0;
}

int MetricIndexByName(const Dataset& dataset, const std::string& name) {
  for (size_t i = 0; i < dataset.metrics().size(); ++i) {
    if (dataset.metric(i).name == name) return static_cast<int>(i);
  }
  ADD_FAILURE() << "no metric " << name;
  return 0;
}

std::string Text(const Cell& cell) {
  return std::holds_alternative<std::monostate>(cell) ? "null" : CellText(cell);
}

// The metric's non-null values summed by the ID form of the attribute (as text, "null" for the
// null element), read from the dataset row by row.
std::map<std::string, double> SumBy(const Dataset& dataset, const std::string& attribute,
                                    const std::string& metric) {
  const AttributeColumn& a = dataset.attribute(AttributeIndexByName(dataset, attribute));
  const MetricColumn& m = dataset.metric(MetricIndexByName(dataset, metric));
  std::map<std::string, double> sums;
  for (size_t row = 0; row < dataset.row_count(); ++row) {
    if (!m.IsValid(row)) continue;
    sums[Text(a.dictionary.Value(0, a.codes[row]))] += (*m.values)[row];
  }
  return sums;
}

double Total(const std::map<std::string, double>& sums) {
  double total = 0;
  for (const auto& [key, value] : sums) total += value;
  return total;
}

void ExpectSums(const std::map<std::string, double>& actual,
                const std::map<std::string, double>& expected) {
  EXPECT_EQ(actual.size(), expected.size());
  for (const auto& [key, value] : expected) {
    auto it = actual.find(key);
    if (it == actual.end()) {
      ADD_FAILURE() << "no group " << key;
      continue;
    }
    EXPECT_NEAR(it->second, value, 1e-9 * std::max(1.0, std::fabs(value))) << key;
  }
}

// ---------------------------------------------------------------------------------------------
// One table

const char* kStores = R"({
  "name": "Stores", "tables": [{"name": "Stores", "columnHeaders": [
      {"name": "store_id", "dataType": "INTEGER"}, {"name": "city", "dataType": "STRING"},
      {"name": "sales", "dataType": "DOUBLE"}, {"name": "units", "dataType": "BIGINTEGER"},
      {"name": "open", "dataType": "BOOLEAN"}]}],
  "attributes": [
    {"name": "store_id", "attributeForms": [{"category": "ID", "expressions": [{"tableName": "Stores", "columnName": "store_id"}]}]},
    {"name": "city", "attributeForms": [{"category": "ID", "expressions": [{"tableName": "Stores", "columnName": "city"}]}]}],
  "metrics": [
    {"name": "sales", "expressions": [{"tableName": "Stores", "columnName": "sales"}]},
    {"name": "units", "expressions": [{"tableName": "Stores", "columnName": "units"}]},
    {"name": "open", "expressions": [{"tableName": "Stores", "columnName": "open"}]}]})";

push::PushedRows StoreRows(size_t count) {
  push::PushedRows rows;
  for (size_t i = 0; i < count; ++i) {
    const int64_t store = static_cast<int64_t>(i % 37);
    Cell sales = i % 11 == 0 ? Cell() : Cell(0.5 * static_cast<double>(i));
    rows.push_back(Row{store, "City " + std::to_string(store % 5), sales,
                       static_cast<int64_t>(i % 3), static_cast<int64_t>(i % 2)});
  }
  return rows;
}

TEST(PushedDataset, OneTableGivesEachRowAndSumsItsMetrics) {
  const push::PushModel model = Model(kStores);
  const push::PushedRows rows = StoreRows(1000);
  std::map<std::string, double> sales_by_city, units_by_store;
  for (const auto& row : rows) {
    if (!std::holds_alternative<std::monostate>(row[2])) {
      sales_by_city[std::get<std::string>(row[1])] += std::get<double>(row[2]);
    }
    units_by_store[std::to_string(std::get<int64_t>(row[0]))] +=
        static_cast<double>(std::get<int64_t>(row[3]));
  }

  const auto dataset = push::BuildPushedDataset(kDatasetId, model, {{"Stores", rows}});

  EXPECT_EQ(dataset->row_count(), 1000u);
  ASSERT_EQ(dataset->attributes().size(), 2u);
  EXPECT_EQ(dataset->attribute(0).dictionary.size(), 37u);
  EXPECT_EQ(dataset->attribute(1).dictionary.size(), 5u);
  ASSERT_EQ(dataset->metrics().size(), 3u);
  EXPECT_EQ(dataset->metric(0).function, model::AggregateFunction::kSum);
  ExpectSums(SumBy(*dataset, "city", "sales"), sales_by_city);
  ExpectSums(SumBy(*dataset, "store_id", "units"), units_by_store);
}

TEST(PushedDataset, NamesAttributesAndMetricsWithIdsDerivedFromTheDatasetAndName) {
  const auto dataset =
      push::BuildPushedDataset(kDatasetId, Model(kStores), {{"Stores", StoreRows(3)}});
  const auto other =
      push::BuildPushedDataset("FFFF2C3D4E5F60718293A4B5C6D7E8F9", Model(kStores), {});

  EXPECT_EQ(dataset->attribute(0).id,
            DeterministicObjectId(std::string(kDatasetId) + "attribute:store_id"));
  EXPECT_EQ(dataset->metric(1).id, DeterministicObjectId(std::string(kDatasetId) + "metric:units"));
  EXPECT_EQ(push::PushedTableId(kDatasetId, "Stores"),
            DeterministicObjectId(std::string(kDatasetId) + "table:Stores"));
  EXPECT_TRUE(IsObjectId(dataset->attribute(1).id));
  EXPECT_NE(dataset->attribute(0).id, other->attribute(0).id);
  EXPECT_EQ(other->row_count(), 0u);
}

TEST(PushedDataset, TakesTheMaxOfABooleanMetric) {
  const auto dataset =
      push::BuildPushedDataset(kDatasetId, Model(kStores), {{"Stores", StoreRows(4)}});
  const MetricColumn& open = dataset->metric(MetricIndexByName(*dataset, "open"));
  EXPECT_EQ(open.function, model::AggregateFunction::kMax);
  EXPECT_EQ(*open.values, (std::vector<double>{0, 1, 0, 1}));
}

TEST(PushedDataset, NamesFormsByCategoryWithTheIdFirst) {
  const push::PushModel model = Model(R"({
    "name": "Stores", "tables": [{"name": "Stores", "columnHeaders": [
        {"name": "city", "dataType": "STRING"}, {"name": "store_id", "dataType": "INTEGER"},
        {"name": "opened", "dataType": "DATE"}]}],
    "attributes": [{"name": "Store", "attributeForms": [
        {"category": "DESC", "expressions": [{"tableName": "Stores", "columnName": "city"}]},
        {"category": "ID", "expressions": [{"tableName": "Stores", "columnName": "store_id"}]},
        {"category": "Opened", "expressions": [{"tableName": "Stores", "columnName": "opened"}]}]}]})");
  const push::PushedRows rows = {Row{std::string("Oslo"), int64_t{2}, std::string("2020-01-02")},
                                 Row{std::string("Bergen"), int64_t{1}, Cell()}};

  const auto dataset = push::BuildPushedDataset(kDatasetId, model, {{"Stores", rows}});

  const auto& forms = dataset->attribute(0).dictionary.forms();
  ASSERT_EQ(forms.size(), 3u);
  EXPECT_EQ(forms[0].name, "ID");
  EXPECT_EQ(forms[0].type, DataType::kInteger);
  EXPECT_EQ(forms[1].name, "DESC");
  EXPECT_EQ(forms[1].type, DataType::kText);
  EXPECT_EQ(forms[2].name, "OPENED");
  EXPECT_EQ(forms[2].type, DataType::kDate);
  // Elements are ordered by ID: 1 Bergen, 2 Oslo.
  EXPECT_EQ(forms[0].values, (std::vector<Cell>{int64_t{1}, int64_t{2}}));
  EXPECT_EQ(forms[1].values, (std::vector<Cell>{std::string("Bergen"), std::string("Oslo")}));
  EXPECT_EQ(forms[2].values, (std::vector<Cell>{Cell(), std::string("2020-01-02")}));
}

// ---------------------------------------------------------------------------------------------
// Several tables

// Sales and Stores share store_id; units is a metric of both.
const char* const kSalesAndStores = tessera::testing::kSalesAndStoresModel;

struct SalesAndStores {
  push::PushedRows sales;   // store_id, day, revenue, units
  push::PushedRows stores;  // store_id, region, units
};

SalesAndStores SampleSalesAndStores() {
  SalesAndStores data;
  for (int64_t i = 0; i < 60; ++i) {
    data.sales.push_back(Row{1 + i % 4, "2024-05-0" + std::to_string(1 + i % 3),
                             10.0 + static_cast<double>(i), i % 5});
  }
  // Store 4 has no row here; store 5 has no sales; store 1 appears twice (the first row wins
  // when Sales rows look up their region).
  data.stores = {
      Row{int64_t{1}, std::string("North"), 100.0}, Row{int64_t{2}, std::string("South"), 200.0},
      Row{int64_t{3}, std::string("North"), 50.0}, Row{int64_t{5}, std::string("East"), 70.0},
      Row{int64_t{1}, std::string("West"), 999.0}};
  return data;
}

TEST(PushedDataset, CountsEveryTablesMetricsOnceAndFillsSharedAttributes) {
  const SalesAndStores data = SampleSalesAndStores();
  // Independent expectations, from the rows alone.
  std::map<int64_t, std::string> first_region;
  for (const auto& row : data.stores) {
    first_region.try_emplace(std::get<int64_t>(row[0]), std::get<std::string>(row[1]));
  }
  std::map<std::string, double> revenue_by_region, units_by_region, units_by_day, units_by_store;
  for (const auto& row : data.sales) {
    const int64_t store = std::get<int64_t>(row[0]);
    const std::string region = first_region.contains(store) ? first_region[store] : "null";
    const double units = static_cast<double>(std::get<int64_t>(row[3]));
    revenue_by_region[region] += std::get<double>(row[2]);
    units_by_region[region] += units;
    units_by_day[std::get<std::string>(row[1])] += units;
    units_by_store[std::to_string(store)] += units;
  }
  // Stores rows have no day: they take the day of the first Sales row of their store.
  std::map<int64_t, std::string> first_day;
  for (const auto& row : data.sales) {
    first_day.try_emplace(std::get<int64_t>(row[0]), std::get<std::string>(row[1]));
  }
  for (const auto& row : data.stores) {
    const int64_t store = std::get<int64_t>(row[0]);
    units_by_region[std::get<std::string>(row[1])] += std::get<double>(row[2]);
    units_by_day[first_day.contains(store) ? first_day[store] : "null"] += std::get<double>(row[2]);
    units_by_store[std::to_string(std::get<int64_t>(row[0]))] += std::get<double>(row[2]);
  }

  const auto dataset = push::BuildPushedDataset(kDatasetId, Model(kSalesAndStores),
                                                {{"Sales", data.sales}, {"Stores", data.stores}});

  EXPECT_EQ(dataset->row_count(), data.sales.size() + data.stores.size());
  ASSERT_EQ(dataset->attributes().size(), 3u);
  ASSERT_EQ(dataset->metrics().size(), 2u);
  EXPECT_EQ(dataset->attribute(0).dictionary.size(), 5u);  // stores 1-5, one attribute
  ExpectSums(SumBy(*dataset, "region", "revenue"), revenue_by_region);
  ExpectSums(SumBy(*dataset, "region", "units"), units_by_region);
  ExpectSums(SumBy(*dataset, "day", "units"), units_by_day);
  ExpectSums(SumBy(*dataset, "store_id", "units"), units_by_store);
  EXPECT_NEAR(Total(SumBy(*dataset, "day", "revenue")), 60 * 10.0 + 59 * 60 / 2.0, 1e-9);
}

TEST(PushedDataset, LeavesAnAttributeNullWhereNoSharedAttributeLeadsToIt) {
  const push::PushModel model = Model(R"({
    "name": "Apart", "tables": [
      {"name": "A", "columnHeaders": [{"name": "x", "dataType": "STRING"}, {"name": "m", "dataType": "DOUBLE"}]},
      {"name": "B", "columnHeaders": [{"name": "y", "dataType": "STRING"}, {"name": "n", "dataType": "DOUBLE"}]}],
    "attributes": [
      {"name": "x", "attributeForms": [{"category": "ID", "expressions": [{"tableName": "A", "columnName": "x"}]}]},
      {"name": "y", "attributeForms": [{"category": "ID", "expressions": [{"tableName": "B", "columnName": "y"}]}]}],
    "metrics": [
      {"name": "m", "expressions": [{"tableName": "A", "columnName": "m"}]},
      {"name": "n", "expressions": [{"tableName": "B", "columnName": "n"}]}]})");
  const push::PushedRows a = {Row{std::string("p"), 1.0}, Row{std::string("q"), 2.0}};
  const push::PushedRows b = {Row{std::string("r"), 4.0}, Row{std::string("s"), 8.0}};

  const auto dataset = push::BuildPushedDataset(kDatasetId, model, {{"A", a}, {"B", b}});

  ExpectSums(SumBy(*dataset, "x", "n"), {{"null", 12.0}});
  ExpectSums(SumBy(*dataset, "y", "m"), {{"null", 3.0}});
  ExpectSums(SumBy(*dataset, "x", "m"), {{"p", 1.0}, {"q", 2.0}});
}

TEST(PushedDataset, TakesAFormATableLacksFromAnotherTableWithTheSameElement) {
  const push::PushModel model = Model(R"({
    "name": "Orders", "tables": [
      {"name": "Orders", "columnHeaders": [{"name": "customer_id", "dataType": "INTEGER"}, {"name": "amount", "dataType": "DOUBLE"}]},
      {"name": "Customers", "columnHeaders": [{"name": "customer_id", "dataType": "INTEGER"}, {"name": "customer", "dataType": "STRING"}]}],
    "attributes": [{"name": "Customer", "attributeForms": [
      {"category": "ID", "expressions": [{"tableName": "Orders", "columnName": "customer_id"},
                                         {"tableName": "Customers", "columnName": "customer_id"}]},
      {"category": "DESC", "expressions": [{"tableName": "Customers", "columnName": "customer"}]}]}],
    "metrics": [{"name": "amount", "expressions": [{"tableName": "Orders", "columnName": "amount"}]}]})");
  // Orders come first, so without the lookup their rows would name the elements without a DESC.
  const push::PushedRows orders = {Row{int64_t{2}, 5.0}, Row{int64_t{1}, 7.0},
                                   Row{int64_t{9}, 1.0}};
  const push::PushedRows customers = {Row{int64_t{1}, std::string("Ann")},
                                      Row{int64_t{2}, std::string("Bob")},
                                      Row{int64_t{2}, std::string("Robert")}};

  const auto dataset =
      push::BuildPushedDataset(kDatasetId, model, {{"Orders", orders}, {"Customers", customers}});

  const auto& forms = dataset->attribute(0).dictionary.forms();
  EXPECT_EQ(forms[0].values, (std::vector<Cell>{int64_t{1}, int64_t{2}, int64_t{9}}));
  EXPECT_EQ(forms[1].values, (std::vector<Cell>{std::string("Ann"), std::string("Bob"), Cell()}));
  ExpectSums(SumBy(*dataset, "Customer", "amount"), {{"1", 7.0}, {"2", 5.0}, {"9", 1.0}});
}

TEST(PushedDataset, JoinsAnIntegerKeyWithARealKeyAsOneElement) {
  Json body = Json::parse(kSalesAndStores);
  body["tables"][1]["columnHeaders"][0]["dataType"] = "DOUBLE";
  const push::PushModel model = push::ParsePushModel(body);
  const push::PushedRows sales = {Row{int64_t{1}, std::string("2024-05-01"), 3.0, int64_t{1}},
                                  Row{int64_t{2}, std::string("2024-05-01"), 4.0, int64_t{1}}};
  const push::PushedRows stores = {Row{1.0, std::string("North"), 0.0},
                                   Row{2.0, std::string("South"), 0.0}};

  const auto dataset =
      push::BuildPushedDataset(kDatasetId, model, {{"Sales", sales}, {"Stores", stores}});

  EXPECT_EQ(dataset->attribute(0).dictionary.size(), 2u);
  EXPECT_EQ(dataset->attribute(0).dictionary.forms()[0].type, DataType::kReal);
  ExpectSums(SumBy(*dataset, "region", "revenue"), {{"North", 3.0}, {"South", 4.0}});
}

TEST(PushedDataset, RefusesRowsForAnUnknownTableOrOfTheWrongWidth) {
  const push::PushModel model = Model(kStores);
  try {
    push::BuildPushedDataset(kDatasetId, model, {{"Shops", {}}});
    ADD_FAILURE() << "accepted an unknown table";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kInvalidInput);
    EXPECT_EQ(error.message(), "rows were given for table 'Shops', which the model does not have");
  }
  try {
    push::BuildPushedDataset(kDatasetId, model, {{"Stores", {Row{int64_t{1}, std::string("x")}}}});
    ADD_FAILURE() << "accepted a short row";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kInvalidInput);
    EXPECT_EQ(error.message(), "a row of table 'Stores' has 2 cells; the table has 5 columns");
  }
}

}  // namespace
}  // namespace tessera::engine::push
