// Grouped sums, averages, row counts, minimums and maximums of columns without nulls, checked
// against plain loops over the same rows for every way the aggregator numbers groups: a few keys
// (lanes), up to 2^16 slots, wider dense key spaces and the hash table; with and without a filter,
// on one thread and on a pool; with more sums than one pass folds at once, and a min and a max of
// one column (folded together) beside a max alone.
#include "engine/group_aggregator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "core/thread_pool.h"
#include "engine/metric_spec.h"
#include "engine/sql/dataset_builder.h"

namespace tessera::engine {
namespace {

using model::AggregateFunction;
using model::DataType;

constexpr int kAttributes = 3;
constexpr int kCardinality[kAttributes] = {200, 400, 1000};
constexpr int kSums = 5;

struct Row {
  int64_t ids[kAttributes];
  double values[kSums];
};

std::vector<Row> RandomRows(std::mt19937& random, size_t count) {
  std::vector<Row> rows(count);
  for (auto& row : rows) {
    for (int a = 0; a < kAttributes; ++a) row.ids[a] = random() % kCardinality[a];
    for (double& value : row.values) value = static_cast<double>(random() % 200001) / 100 - 1000;
  }
  return rows;
}

// Metrics: kSums sums, the average of the first column, the row count, the min and the max of the
// second column, and the max of the third.
Dataset BuildDataset(const std::vector<Row>& rows) {
  std::vector<sql::AttributeSpec> attributes;
  for (int a = 0; a < kAttributes; ++a) {
    attributes.push_back(
        {"A" + std::to_string(a), "A" + std::to_string(a), {{"ID", DataType::kInteger}}});
  }
  std::vector<sql::MetricSpec> metrics;
  for (int s = 0; s < kSums; ++s) {
    metrics.push_back(MetricSpecOf("s" + std::to_string(s), "S", AggregateFunction::kSum));
  }
  sql::MetricSpec average = MetricSpecOf("avg", "Average", AggregateFunction::kAvg);
  average.shares_values_of = "s0";
  metrics.push_back(average);
  sql::MetricSpec count = MetricSpecOf("rows", "Rows", AggregateFunction::kCount);
  count.counts_rows = true;
  metrics.push_back(count);
  for (auto [id, function, of] : {std::tuple{"min1", AggregateFunction::kMin, "s1"},
                                  std::tuple{"max1", AggregateFunction::kMax, "s1"},
                                  std::tuple{"max2", AggregateFunction::kMax, "s2"}}) {
    sql::MetricSpec extreme = MetricSpecOf(id, id, function);
    extreme.shares_values_of = of;
    metrics.push_back(extreme);
  }
  sql::DatasetBuilder builder(attributes, metrics);
  for (const Row& row : rows) {
    std::vector<Cell> cells;
    for (int64_t id : row.ids) cells.emplace_back(id);
    for (double value : row.values) cells.emplace_back(value);
    builder.AddRow(cells);
  }
  return builder.Finish();
}

struct Totals {
  double sums[kSums] = {};
  double rows = 0;
  double min1 = std::numeric_limits<double>::infinity();
  double max1 = -std::numeric_limits<double>::infinity();
  double max2 = -std::numeric_limits<double>::infinity();
};

using Answer = std::map<std::vector<int64_t>, Totals>;

Answer Reference(const std::vector<Row>& rows, const std::vector<int>& attributes, int64_t below) {
  Answer answer;
  for (const Row& row : rows) {
    if (row.ids[0] >= below) continue;
    std::vector<int64_t> key;
    for (int a : attributes) key.push_back(row.ids[a]);
    Totals& totals = answer[key];
    for (int s = 0; s < kSums; ++s) totals.sums[s] += row.values[s];
    ++totals.rows;
    totals.min1 = std::min(totals.min1, row.values[1]);
    totals.max1 = std::max(totals.max1, row.values[1]);
    totals.max2 = std::max(totals.max2, row.values[2]);
  }
  return answer;
}

bool Near(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b)); }

// What metric `m` (in BuildDataset's order) comes to for a group.
double ExpectedValue(int m, const Totals& totals) {
  if (m < kSums) return totals.sums[m];
  switch (m - kSums) {
    case 0:
      return totals.sums[0] / totals.rows;
    case 1:
      return totals.rows;
    case 2:
      return totals.min1;
    case 3:
      return totals.max1;
    default:
      return totals.max2;
  }
}

void ExpectSameGroups(const Dataset& dataset, const Groups& groups,
                      const std::vector<int>& attributes, const std::vector<int>& metric_columns,
                      const Answer& expected, const std::string& context) {
  ASSERT_EQ(groups.count, expected.size()) << context;
  for (size_t g = 0; g < groups.count; ++g) {
    std::vector<int64_t> key;
    for (size_t a = 0; a < attributes.size(); ++a) {
      const Dictionary& dictionary = dataset.attribute(attributes[a]).dictionary;
      key.push_back(std::get<int64_t>(dictionary.Value(0, groups.codes[a][g])));
    }
    const auto found = expected.find(key);
    ASSERT_NE(found, expected.end()) << context << ": an unexpected group";
    for (size_t i = 0; i < metric_columns.size(); ++i) {
      // Only a grand total is a group without rows; its row count is 0, every other metric null.
      const bool any_row = found->second.rows > 0;
      const bool counts_rows = metric_columns[i] == kSums + 1;
      ASSERT_EQ(groups.present[i][g] != 0, any_row || counts_rows) << context;
      if (!any_row && !counts_rows) continue;
      const double value = ExpectedValue(metric_columns[i], found->second);
      ASSERT_TRUE(Near(groups.values[i][g], value))
          << context << ", metric " << metric_columns[i] << ": " << groups.values[i][g] << " vs "
          << value;
    }
  }
}

TEST(GroupAggregator, SumsAveragesAndCountsWithoutNullsMatchPlainLoops) {
  std::mt19937 random(20261127);
  const std::vector<Row> rows = RandomRows(random, 60000);
  const Dataset dataset = BuildDataset(rows);
  ThreadPool pool(2);
  // 200 keys (lanes), 400 and 1000 (16-bit slots), 80,000 and 400,000 (dense, 32-bit slots),
  // 80,000,000 (hash table), and the grand total.
  const std::vector<std::vector<int>> groupings = {{0}, {1}, {2}, {0, 1}, {1, 2}, {0, 1, 2}, {}};
  std::vector<int> every_metric;
  for (int m = 0; m < kSums + 5; ++m) every_metric.push_back(m);
  // Every metric: the min and max of column 1 fold in the pass that sums it. Then that pair with
  // no sum (a pass of its own) and the row count, and a max alone before a sum.
  const std::vector<std::vector<int>> metric_lists = {
      every_metric, {kSums + 2, kSums + 3, kSums + 1}, {kSums + 4, 0}};
  for (const auto& attributes : groupings) {
    for (const int64_t below : {int64_t{kCardinality[0]}, int64_t{70}}) {
      std::vector<uint8_t> keep(dataset.attribute(0).dictionary.size(), 0);
      for (size_t code = 0; code < keep.size(); ++code) {
        keep[code] = std::get<int64_t>(dataset.attribute(0).dictionary.Value(0, code)) < below;
      }
      const RowSelector selector(
          dataset, below < kCardinality[0] ? RowFilter::Codes(0, keep) : RowFilter::All());
      const Answer expected = Reference(rows, attributes, below);
      for (const auto& metric_columns : metric_lists) {
        for (ThreadPool* threads : {static_cast<ThreadPool*>(nullptr), &pool}) {
          const Groups groups =
              AggregateGroups(dataset, attributes, metric_columns, selector, threads);
          ExpectSameGroups(dataset, groups, attributes, metric_columns, expected,
                           std::to_string(attributes.size()) + " attributes, ids below " +
                               std::to_string(below) + ", " +
                               std::to_string(metric_columns.size()) + " metrics" +
                               (threads ? ", on the pool" : ""));
        }
      }
    }
  }
}

// A group is a group when its sums come to zero, whatever the sign of that zero: the aggregator
// tells groups that had rows from those that had none by a mark per row, or, for a summed column
// without -0.0, by the sum still being the -0.0 it started at. Every way of numbering groups.
TEST(GroupAggregator, GroupsWhoseSumsAreZeroKeepTheirRowsAndAbsentGroupsStayAbsent) {
  std::mt19937 random(20261129);
  std::vector<Row> rows = RandomRows(random, 60000);
  for (Row& row : rows) {
    if (row.ids[0] == 5) std::fill(row.values, row.values + kSums, 0.0);
    if (row.ids[0] == 6) row.values[1] = -0.0;  // only column 1 holds -0.0
    if (row.ids[0] == 7) row.values[0] = row.ids[1] % 2 == 0 ? 0.25 : -0.25;
  }
  const Dataset dataset = BuildDataset(rows);
  ASSERT_TRUE(dataset.HoldsNoNegativeZero(0));
  ASSERT_FALSE(dataset.HoldsNoNegativeZero(1));
  ThreadPool pool(2);
  const std::vector<std::vector<int>> groupings = {{0}, {1}, {0, 1}, {0, 1, 2}, {}};
  // Column 0 alone and first (it tells rows apart), column 1 alone and first (marks), both.
  const std::vector<std::vector<int>> sum_lists = {{0}, {1}, {0, 1, 2, 3}, {1, 0}};
  for (const auto& attributes : groupings) {
    for (const int64_t below : {int64_t{kCardinality[0]}, int64_t{70}, int64_t{0}}) {
      std::vector<uint8_t> keep(dataset.attribute(0).dictionary.size(), 0);
      for (size_t code = 0; code < keep.size(); ++code) {
        keep[code] = std::get<int64_t>(dataset.attribute(0).dictionary.Value(0, code)) < below;
      }
      const RowSelector selector(
          dataset, below < kCardinality[0] ? RowFilter::Codes(0, keep) : RowFilter::All());
      Answer expected = Reference(rows, attributes, below);
      // Like SQL, the grand total is one row even when no row passes.
      if (attributes.empty() && expected.empty()) expected[{}] = Totals{};
      for (const auto& sums : sum_lists) {
        for (ThreadPool* threads : {static_cast<ThreadPool*>(nullptr), &pool}) {
          const std::string context = std::to_string(attributes.size()) +
                                      " attributes, ids below " + std::to_string(below) + ", " +
                                      std::to_string(sums.size()) + " sums from column " +
                                      std::to_string(sums[0]) + (threads ? ", on the pool" : "");
          const Groups groups = AggregateGroups(dataset, attributes, sums, selector, threads);
          ExpectSameGroups(dataset, groups, attributes, sums, expected, context);
        }
      }
    }
  }
}

// Two bounds on one column are read in one pass; the rows they select are the rows between them.
TEST(GroupAggregator, TwoBoundsOnOneColumnSelectTheRowsBetween) {
  std::mt19937 random(1127);
  const std::vector<Row> rows = RandomRows(random, 3 * RowSelector::kBatch + 77);
  const Dataset dataset = BuildDataset(rows);
  const CompareOp lower_ops[] = {CompareOp::kGreater, CompareOp::kGreaterEqual};
  const CompareOp upper_ops[] = {CompareOp::kLess, CompareOp::kLessEqual};
  for (int round = 0; round < 8; ++round) {
    const double lower = rows[random() % rows.size()].values[1];
    const double upper = lower + static_cast<double>(random() % 1000);
    const CompareOp lower_op = lower_ops[round % 2];
    const CompareOp upper_op = upper_ops[round / 2 % 2];
    std::vector<RowFilter> bounds = {RowFilter::Metric(1, lower_op, {lower}),
                                     RowFilter::Metric(1, upper_op, {upper})};
    if (round >= 4) std::swap(bounds[0], bounds[1]);
    const RowSelector selector(dataset, RowFilter::Combine(RowFilter::Kind::kAnd, bounds));
    std::vector<uint32_t> expected;
    for (size_t row = 0; row < rows.size(); ++row) {
      const double v = rows[row].values[1];
      const bool above = lower_op == CompareOp::kGreater ? v > lower : v >= lower;
      const bool below = upper_op == CompareOp::kLess ? v < upper : v <= upper;
      if (above && below) expected.push_back(static_cast<uint32_t>(row));
    }
    std::vector<uint32_t> selected;
    std::vector<uint32_t> batch(RowSelector::kBatch);
    for (size_t begin = 0; begin < rows.size(); begin += RowSelector::kBatch) {
      const size_t end = std::min(rows.size(), begin + RowSelector::kBatch);
      const size_t n = selector.Select(begin, end, batch.data());
      selected.insert(selected.end(), batch.begin(), batch.begin() + static_cast<long>(n));
    }
    EXPECT_EQ(selected, expected) << "round " << round;
  }
}

}  // namespace
}  // namespace tessera::engine
