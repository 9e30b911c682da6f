// DatasetBuilder::AddRowBlocks builds the same Dataset as AddRow of the same rows: random rows read
// through column maps (permuted columns, null slots, several blocks) on one and on four threads,
// compared with AddRow of the rows assembled here, element by element and row by row. Bad column
// maps and short rows are refused before any row is added.
#include "engine/sql/dataset_builder.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/error.h"

namespace tessera::engine::sql {
namespace {

using model::DataType;
using Rows = std::vector<std::vector<Cell>>;

std::string Describe(const Cell& cell) {
  if (std::holds_alternative<std::monostate>(cell)) return "null";
  if (const auto* integer = std::get_if<int64_t>(&cell)) return "i" + std::to_string(*integer);
  if (const auto* real = std::get_if<double>(&cell)) return "r" + CellText(*real);
  return "t" + std::get<std::string>(cell);
}

std::vector<AttributeSpec> Attributes() {
  return {{"A1", "Order", {{"ID", DataType::kInteger}}, false},
          {"A2", "Store", {{"ID", DataType::kText}, {"DESC", DataType::kText}}, false},
          {"A3", "Price", {{"ID", DataType::kReal}}, false},
          {"A4", "Day", {{"ID", DataType::kDate}, {"NUM", DataType::kInteger}}, false}};
}

MetricSpec Metric(const char* id, const char* name, model::AggregateFunction function) {
  MetricSpec spec;
  spec.id = id;
  spec.name = name;
  spec.function = function;
  return spec;
}

std::vector<MetricSpec> Metrics() {
  MetricSpec sum = Metric("M1", "Amount", model::AggregateFunction::kSum);
  MetricSpec avg = Metric("M2", "Average", model::AggregateFunction::kAvg);
  avg.with_count = true;
  MetricSpec shared = Metric("M3", "Amount again", model::AggregateFunction::kSum);
  shared.shares_values_of = "M1";
  MetricSpec rows = Metric("M4", "Rows", model::AggregateFunction::kCount);
  rows.counts_rows = true;
  MetricSpec distinct = Metric("M5", "Stores", model::AggregateFunction::kCountDistinct);
  distinct.counted_attribute_id = "A2";
  return {sum, avg, shared, rows, distinct};
}

// A stored row of 9 columns: order, store, store name, price, day, day number, amount, average,
// count, so that an element's first row decides its other forms and numbers come as integers
// and reals alike.
std::vector<Cell> RandomStoredRow(std::mt19937_64& random) {
  const int64_t order = static_cast<int64_t>(random() % 300);
  const int64_t store = static_cast<int64_t>(random() % 40);
  const int64_t price = static_cast<int64_t>(random() % 25);
  const int64_t day = static_cast<int64_t>(random() % 28) + 1;
  std::vector<Cell> row(9);
  row[0] = random() % 5 == 0 ? Cell(static_cast<double>(order)) : Cell(order);
  row[1] = store == 0 ? Cell() : Cell("Store " + std::to_string(store));
  row[2] = "Name " + std::to_string(random() % 3) + " of a store with a long name";
  row[3] = random() % 2 == 0 ? Cell(price) : Cell(price / 2.0);
  row[4] = "2024-05-" + std::string(day < 10 ? "0" : "") + std::to_string(day);
  row[5] = random() % 7 == 0 ? Cell() : Cell(day);
  row[6] = random() % 9 == 0 ? Cell("n/a") : Cell(static_cast<double>(random() % 1000) / 8);
  row[7] = random() % 11 == 0 ? Cell() : Cell(static_cast<int64_t>(random() % 50));
  row[8] = static_cast<int64_t>(random() % 4);
  return row;
}

// The builder's row of a stored row under `columns` (AddRowBlocks' reading).
std::vector<Cell> Assembled(const std::vector<Cell>& stored, const std::vector<int>& columns) {
  std::vector<Cell> row;
  for (int column : columns) {
    row.push_back(column < 0 ? Cell() : stored[static_cast<size_t>(column)]);
  }
  return row;
}

void ExpectSameDataset(const Dataset& expected, const Dataset& actual) {
  ASSERT_EQ(actual.row_count(), expected.row_count());
  ASSERT_EQ(actual.attributes().size(), expected.attributes().size());
  for (size_t a = 0; a < expected.attributes().size(); ++a) {
    const AttributeColumn& want = expected.attribute(a);
    const AttributeColumn& got = actual.attribute(a);
    ASSERT_EQ(got.dictionary.size(), want.dictionary.size()) << want.name;
    for (size_t f = 0; f < want.dictionary.forms().size(); ++f) {
      for (uint32_t code = 0; code < want.dictionary.size(); ++code) {
        ASSERT_EQ(Describe(got.dictionary.Value(f, code)), Describe(want.dictionary.Value(f, code)))
            << want.name << " form " << f << " code " << code;
        ASSERT_EQ(got.dictionary.Rank(f, code), want.dictionary.Rank(f, code));
      }
    }
    ASSERT_EQ(got.codes.width(), want.codes.width());
    for (size_t row = 0; row < expected.row_count(); ++row) {
      ASSERT_EQ(got.codes[row], want.codes[row]) << want.name << " row " << row;
    }
  }
  ASSERT_EQ(actual.metrics().size(), expected.metrics().size());
  for (size_t m = 0; m < expected.metrics().size(); ++m) {
    const MetricColumn& want = expected.metric(m);
    const MetricColumn& got = actual.metric(m);
    ASSERT_EQ(got.CountsRows(), want.CountsRows()) << want.name;
    ASSERT_EQ(got.HasNulls(), want.HasNulls()) << want.name;
    ASSERT_EQ(got.counted_attribute, want.counted_attribute) << want.name;
    ASSERT_EQ(got.counts != nullptr, want.counts != nullptr) << want.name;
    if (want.CountsRows()) continue;
    for (size_t row = 0; row < expected.row_count(); ++row) {
      ASSERT_EQ(got.IsValid(row), want.IsValid(row)) << want.name << " row " << row;
      ASSERT_EQ((*got.values)[row], (*want.values)[row]) << want.name << " row " << row;
      if (want.counts) {
        ASSERT_EQ((*got.counts)[row], (*want.counts)[row]);
      }
    }
  }
}

TEST(DatasetBuilderRowBlocks, BuildWhatAddRowBuildsFromTheSameRows) {
  // Per block, where each builder value is in its stored rows; -1 is a null slot.
  const std::vector<std::vector<int>> maps = {
      {0, 1, 2, 3, 4, 5, 6, 7, 8}, {0, 1, 2, -1, 4, 5, 6, -1, 8}, {0, -1, -1, 3, 4, -1, -1, 7, 8}};
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    std::mt19937_64 random(seed);
    std::vector<Rows> stored(maps.size());
    for (auto& rows : stored) {
      const size_t count = random() % 3 == 0 ? 0 : 2000 + random() % 3000;
      for (size_t r = 0; r < count; ++r) rows.push_back(RandomStoredRow(random));
    }
    DatasetBuilder by_row(Attributes(), Metrics());
    for (size_t b = 0; b < maps.size(); ++b) {
      for (const auto& row : stored[b]) by_row.AddRow(Assembled(row, maps[b]));
    }
    const Dataset expected = by_row.Finish();
    for (size_t threads : {1, 4}) {
      std::vector<DatasetBuilder::RowBlock> blocks;
      for (size_t b = 0; b < maps.size(); ++b) blocks.push_back({&stored[b], maps[b]});
      DatasetBuilder by_block(Attributes(), Metrics());
      by_block.AddRowBlocks(blocks, threads);
      SCOPED_TRACE("seed " + std::to_string(seed) + ", threads " + std::to_string(threads));
      ExpectSameDataset(expected, by_block.Finish(threads));
    }
  }
}

TEST(DatasetBuilderRowBlocks, FollowRowsAddedOneByOne) {
  std::mt19937_64 random(7);
  const std::vector<int> map = {0, 1, 2, 3, 4, 5, 6, 7, 8};
  Rows first, second;
  for (int r = 0; r < 500; ++r) first.push_back(RandomStoredRow(random));
  for (int r = 0; r < 500; ++r) second.push_back(RandomStoredRow(random));
  DatasetBuilder by_row(Attributes(), Metrics());
  for (const auto& row : first) by_row.AddRow(row);
  for (const auto& row : second) by_row.AddRow(row);
  DatasetBuilder mixed(Attributes(), Metrics());
  for (const auto& row : first) mixed.AddRow(row);
  mixed.AddRowBlocks({{&second, map}}, 2);
  EXPECT_EQ(mixed.row_count(), 1000u);
  ExpectSameDataset(by_row.Finish(), mixed.Finish());
}

TEST(DatasetBuilderRowBlocks, RefuseABadColumnMapOrAShortRowAndAddNothing) {
  Rows rows = {{int64_t{1}, "S", "N", 1.5, "2024-05-01", int64_t{1}, 2.0, int64_t{3}, int64_t{1}},
               {int64_t{2}, "S"}};
  DatasetBuilder builder(Attributes(), Metrics());
  EXPECT_THROW(builder.AddRowBlocks({{&rows, {0, 1, 2}}}, 2), Error);
  try {
    builder.AddRowBlocks({{&rows, {0, 1, 2, 3, 4, 5, 6, 7, 8}}}, 2);
    ADD_FAILURE() << "a short row was accepted";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kInvalidInput);
  }
  EXPECT_EQ(builder.row_count(), 0u);
  EXPECT_EQ(builder.Finish().attribute(0).dictionary.size(), 0u);
}

}  // namespace
}  // namespace tessera::engine::sql
