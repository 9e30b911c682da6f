// The engine's answers against a reference written plainly here, on raw row values (not codes),
// for random datasets, filters, attribute subsets, limits and sorts; and against SQLite.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <tuple>

#include "core/error.h"
#include "core/thread_pool.h"
#include "engine/cube_executor.h"
#include "engine/metric_spec.h"
#include "engine/row_selection.h"
#include "engine/sql/dataset_builder.h"
#include "engine/warehouse/warehouse.h"
#include "support/temp_dir.h"

namespace tessera::engine {
namespace {

using model::AggregateFunction;
using model::DataType;

constexpr int kAttributes = 3;
const int kCardinality[kAttributes] = {4, 23, 300};

// One fact row as the reference sees it.
struct Row {
  int64_t ids[kAttributes];
  std::optional<double> x;  // summed and averaged; sometimes null
  double y;                 // min and max
  double s;                 // avg's sum
  double count;             // avg's count
};

std::string DescOf(int attribute, int64_t id) {
  static const char* kWords[] = {"Alpha", "bravo", "Ünïcødé", "東京", "delta", "Echo", "mañana"};
  const int64_t word = ((id + attribute) % 7 + 7) % 7;
  return std::string(kWords[word]) + " " + std::to_string(id);
}

std::vector<Row> RandomRows(std::mt19937& random, size_t count, double null_share) {
  std::vector<Row> rows(count);
  std::uniform_real_distribution<double> unit(0, 1);
  for (auto& row : rows) {
    for (int a = 0; a < kAttributes; ++a) {
      // Skewed ids, negative ones too, so ID order is not insertion order.
      const int card = kCardinality[a];
      row.ids[a] = static_cast<int64_t>(std::pow(unit(random), 2) * card) * 3 - card;
    }
    if (unit(random) >= null_share) row.x = std::round(unit(random) * 100000) / 100;
    row.y = std::round((unit(random) - 0.3) * 10000) / 100;
    row.count = 1 + static_cast<int>(unit(random) * 3);
    row.s = row.y * row.count;
  }
  return rows;
}

enum Metric { kXSum, kYMin, kYMax, kAvg, kRows, kDistinctC, kMetricCount };

std::shared_ptr<const Dataset> BuildDataset(const std::vector<Row>& rows) {
  std::vector<sql::AttributeSpec> attributes;
  for (int a = 0; a < kAttributes; ++a) {
    attributes.push_back({"A" + std::to_string(a),
                          "Attribute " + std::to_string(a),
                          {{"ID", DataType::kInteger}, {"DESC", DataType::kText}}});
  }
  std::vector<sql::MetricSpec> metrics(kMetricCount);
  metrics[kXSum] = MetricSpecOf("x_sum", "X", AggregateFunction::kSum);
  metrics[kYMin] = MetricSpecOf("y_min", "Y min", AggregateFunction::kMin);
  metrics[kYMax] = MetricSpecOf("y_max", "Y max", AggregateFunction::kMax);
  metrics[kYMax].shares_values_of = "y_min";
  metrics[kAvg] = MetricSpecOf("avg", "Average", AggregateFunction::kAvg);
  metrics[kAvg].with_count = true;
  metrics[kRows] = MetricSpecOf("rows", "Rows", AggregateFunction::kCount);
  metrics[kRows].counts_rows = true;
  metrics[kDistinctC] = MetricSpecOf("distinct_c", "Distinct C", AggregateFunction::kCountDistinct);
  metrics[kDistinctC].counted_attribute_id = "A2";
  sql::DatasetBuilder builder(attributes, metrics);
  for (const Row& row : rows) {
    std::vector<Cell> cells;
    for (int a = 0; a < kAttributes; ++a) {
      cells.emplace_back(row.ids[a]);
      cells.emplace_back(DescOf(a, row.ids[a]));
    }
    cells.push_back(row.x ? Cell(*row.x) : Cell());
    cells.emplace_back(row.y);
    cells.emplace_back(row.s);
    cells.emplace_back(row.count);
    builder.AddRow(cells);
  }
  return std::make_shared<const Dataset>(builder.Finish());
}

// A filter both sides understand: the engine gets a RowFilter, the reference a predicate on Rows.
struct TestFilter {
  RowFilter engine;
  std::function<bool(const Row&)> holds;
};

TestFilter RandomLeaf(std::mt19937& random, const Dataset& dataset) {
  const int a = static_cast<int>(random() % kAttributes);
  const Dictionary& dictionary = dataset.attribute(a).dictionary;
  switch (random() % 3) {
    case 0: {  // element list
      std::set<int64_t> ids;
      for (int i = 0; i < 3; ++i)
        ids.insert(std::get<int64_t>(dictionary.Value(0, random() % dictionary.size())));
      std::vector<uint8_t> keep(dictionary.size(), 0);
      for (int64_t id : ids) keep[dictionary.CodeOfId(Cell(id))] = 1;
      return {RowFilter::Codes(a, keep),
              [a, ids](const Row& row) { return ids.contains(row.ids[a]); }};
    }
    case 1: {  // text comparison on DESC
      const std::string bound =
          DescOf(a, std::get<int64_t>(dictionary.Value(0, random() % dictionary.size())));
      return {
          RowFilter::Codes(a, MaskOfForm(dictionary, 1, CompareOp::kGreaterEqual, {Cell(bound)})),
          [a, bound](const Row& row) { return DescOf(a, row.ids[a]) >= bound; }};
    }
    default: {  // the row's own y, and x with its nulls
      const double bound = static_cast<int>(random() % 60) - 20;
      if (random() % 2) {
        return {RowFilter::Metric(kYMin, CompareOp::kLess, {bound}),
                [bound](const Row& row) { return row.y < bound; }};
      }
      return {RowFilter::Metric(kXSum, CompareOp::kBetween, {bound * 10, bound * 10 + 400}),
              [bound](const Row& row) {
                return row.x && *row.x >= bound * 10 && *row.x <= bound * 10 + 400;
              }};
    }
  }
}

TestFilter RandomFilter(std::mt19937& random, const Dataset& dataset, int depth = 0) {
  const int choice = static_cast<int>(random() % (depth >= 2 ? 1 : 5));
  if (choice == 0) return RandomLeaf(random, dataset);
  if (choice == 4) {
    TestFilter inner = RandomFilter(random, dataset, depth + 1);
    return {RowFilter::Combine(RowFilter::Kind::kNot, {inner.engine}),
            [holds = inner.holds](const Row& row) { return !holds(row); }};
  }
  const bool is_and = choice <= 2;
  TestFilter left = RandomFilter(random, dataset, depth + 1);
  TestFilter right = RandomFilter(random, dataset, depth + 1);
  return {RowFilter::Combine(is_and ? RowFilter::Kind::kAnd : RowFilter::Kind::kOr,
                             {left.engine, right.engine}),
          [is_and, l = left.holds, r = right.holds](const Row& row) {
            return is_and ? (l(row) && r(row)) : (l(row) || r(row));
          }};
}

// The reference's answer: one row per group, ids then metric values (X, Y min, Y max, avg,
// rows, distinct C, and the formula X / rows).
using Answer = std::vector<std::pair<std::vector<int64_t>, std::vector<std::optional<double>>>>;

Answer Reference(const std::vector<Row>& rows, const std::vector<int>& attributes,
                 const std::function<bool(const Row&)>& holds) {
  struct Accumulator {
    double x = 0;
    int x_seen = 0;
    double y_min = INFINITY, y_max = -INFINITY, s = 0, count = 0;
    int rows = 0;
    std::set<int64_t> c;
  };
  std::map<std::vector<int64_t>, Accumulator> groups;
  for (const Row& row : rows) {
    if (holds && !holds(row)) continue;
    std::vector<int64_t> key;
    for (int a : attributes) key.push_back(row.ids[a]);
    Accumulator& acc = groups[key];
    if (row.x) acc.x += *row.x, ++acc.x_seen;
    acc.y_min = std::min(acc.y_min, row.y);
    acc.y_max = std::max(acc.y_max, row.y);
    acc.s += row.s;
    acc.count += row.count;
    ++acc.rows;
    acc.c.insert(row.ids[2]);
  }
  if (attributes.empty() && groups.empty()) groups[{}] = Accumulator{};
  Answer answer;
  for (const auto& [key, acc] : groups) {
    std::optional<double> x = acc.x_seen ? std::optional<double>(acc.x) : std::nullopt;
    std::optional<double> ratio =
        x && acc.rows ? std::optional<double>(*x / acc.rows) : std::nullopt;
    answer.push_back({key,
                      {x, acc.rows ? std::optional<double>(acc.y_min) : std::nullopt,
                       acc.rows ? std::optional<double>(acc.y_max) : std::nullopt,
                       acc.count ? std::optional<double>(acc.s / acc.count) : std::nullopt,
                       static_cast<double>(acc.rows), static_cast<double>(acc.c.size()), ratio}});
  }
  return answer;
}

CubeQuery QueryOf(const std::vector<int>& attributes, RowFilter filter) {
  CubeQuery query;
  query.attributes = attributes;
  const char* ids[] = {"x_sum", "y_min", "y_max", "avg", "rows", "distinct_c"};
  for (int m = 0; m < kMetricCount; ++m) query.metrics.push_back({ids[m], ids[m], m, {}, false});
  query.metrics.push_back(
      {"ratio", "Ratio", -1, model::ParseArithmetic("[x_sum] / [rows]"), false});
  query.filter = std::move(filter);
  return query;
}

Answer AnswerOf(const ResultSet& result) {
  Answer answer;
  for (size_t row = 0; row < result.row_count; ++row) {
    std::vector<int64_t> key;
    for (size_t a = 0; a < result.attributes.size(); ++a) {
      const auto& dictionary = result.dataset->attribute(result.attributes[a]).dictionary;
      key.push_back(std::get<int64_t>(dictionary.Value(0, result.codes[a][row])));
    }
    std::vector<std::optional<double>> values;
    for (size_t m = 0; m < result.metrics.size(); ++m) values.push_back(result.Value(m, row));
    answer.push_back({key, values});
  }
  return answer;
}

bool Near(std::optional<double> a, std::optional<double> b) {
  if (!a || !b) return a.has_value() == b.has_value();
  return std::abs(*a - *b) <= 1e-9 * std::max({1.0, std::abs(*a), std::abs(*b)});
}

void ExpectSameAnswer(const Answer& actual, const Answer& expected, const std::string& context) {
  ASSERT_EQ(actual.size(), expected.size()) << context;
  for (size_t row = 0; row < actual.size(); ++row) {
    ASSERT_EQ(actual[row].first, expected[row].first) << context << " row " << row;
    ASSERT_EQ(actual[row].second.size(), expected[row].second.size()) << context;
    for (size_t m = 0; m < actual[row].second.size(); ++m) {
      ASSERT_TRUE(Near(actual[row].second[m], expected[row].second[m]))
          << context << " row " << row << " metric " << m << ": "
          << actual[row].second[m].value_or(NAN) << " vs " << expected[row].second[m].value_or(NAN);
    }
  }
}

std::vector<int> RandomSubset(std::mt19937& random) {
  std::vector<int> attributes;
  for (int a = 0; a < kAttributes; ++a) {
    if (random() % 2) attributes.push_back(a);
  }
  std::shuffle(attributes.begin(), attributes.end(), random);
  return attributes;
}

// The reference sorts by ids in key order; so does the engine without sort keys.
TEST(CubeExecutor, RandomQueriesMatchTheReference) {
  std::mt19937 random(20261121);
  ThreadPool pool(2);
  for (int dataset_round = 0; dataset_round < 4; ++dataset_round) {
    const auto rows = RandomRows(random, 3000 + random() % 20000, dataset_round == 3 ? 1.0 : 0.05);
    const auto dataset = BuildDataset(rows);
    for (int round = 0; round < 30; ++round) {
      const std::vector<int> attributes = RandomSubset(random);
      TestFilter filter =
          round % 4 == 0 ? TestFilter{RowFilter::All(), nullptr} : RandomFilter(random, *dataset);
      const Answer expected = Reference(rows, attributes, filter.holds);
      ThreadPool* maybe_pool = round % 2 ? &pool : nullptr;
      const ResultSet result =
          ExecuteCubeQuery(dataset, QueryOf(attributes, filter.engine), maybe_pool);
      ExpectSameAnswer(
          AnswerOf(result), expected,
          "dataset " + std::to_string(dataset_round) + " query " + std::to_string(round));
    }
  }
}

// Rows published in the order of A0 then A1, as a fact table ordered by date is: zones hold one
// or few elements, so filters pass or drop whole zones and zones of one group fold at once. The
// answers must not change.
TEST(CubeExecutor, ClusteredRowsMatchTheReference) {
  std::mt19937 random(1121);
  ThreadPool pool(2);
  for (const double null_share : {0.0, 0.05, 1.0}) {
    auto rows = RandomRows(random, 50000, null_share);
    std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
      return std::tie(a.ids[0], a.ids[1]) < std::tie(b.ids[0], b.ids[1]);
    });
    const auto dataset = BuildDataset(rows);
    for (int round = 0; round < 30; ++round) {
      const std::vector<int> attributes = RandomSubset(random);
      TestFilter filter =
          round % 5 == 0 ? TestFilter{RowFilter::All(), nullptr} : RandomFilter(random, *dataset);
      const Answer expected = Reference(rows, attributes, filter.holds);
      const ResultSet result = ExecuteCubeQuery(dataset, QueryOf(attributes, filter.engine),
                                                round % 2 ? &pool : nullptr);
      ExpectSameAnswer(AnswerOf(result), expected,
                       "nulls " + std::to_string(null_share) + " query " + std::to_string(round));
    }
  }
}

TEST(RowSelector, ZoneMapsDecideWholeZonesOfClusteredRows) {
  std::mt19937 random(5);
  auto rows = RandomRows(random, 3 * CodeColumn::kZoneRows, 0);
  for (size_t i = 0; i < rows.size(); ++i)
    rows[i].ids[0] = static_cast<int64_t>(i / CodeColumn::kZoneRows);
  const auto dataset = BuildDataset(rows);
  const size_t zone = CodeColumn::kZoneRows;
  const Dictionary& a0 = dataset->attribute(0).dictionary;
  std::vector<uint8_t> keep_first(a0.size(), 0);
  keep_first[a0.CodeOfId(Cell(int64_t{0}))] = 1;

  const RowSelector first(*dataset, RowFilter::Codes(0, keep_first));
  EXPECT_EQ(first.Cover(0, zone), RowSelector::Coverage::kAll);
  EXPECT_EQ(first.Cover(zone, 2 * zone), RowSelector::Coverage::kNone);
  std::vector<uint32_t> selected(zone);
  EXPECT_EQ(first.Select(zone, 2 * zone, selected.data()), 0u);
  ASSERT_EQ(first.Select(0, zone, selected.data()), zone);
  EXPECT_EQ(selected.back(), zone - 1);

  // Not inverts whole zones; a metric condition always needs the rows; a range not at a zone's
  // start is never decided by the maps.
  const RowSelector others(
      *dataset, RowFilter::Combine(RowFilter::Kind::kNot, {RowFilter::Codes(0, keep_first)}));
  EXPECT_EQ(others.Cover(0, zone), RowSelector::Coverage::kNone);
  EXPECT_EQ(others.Cover(2 * zone, 3 * zone), RowSelector::Coverage::kAll);
  const RowSelector with_metric(
      *dataset,
      RowFilter::Combine(RowFilter::Kind::kAnd, {RowFilter::Codes(0, keep_first),
                                                 RowFilter::Metric(kYMin, CompareOp::kLess, {0})}));
  EXPECT_EQ(with_metric.Cover(0, zone), RowSelector::Coverage::kSome);
  EXPECT_EQ(with_metric.Cover(zone, 2 * zone), RowSelector::Coverage::kNone);
  EXPECT_EQ(first.Cover(1, zone), RowSelector::Coverage::kSome);
}

TEST(CodeColumn, ZonesHoldEachZonesSmallestAndLargestCode) {
  std::mt19937 random(9);
  std::vector<uint32_t> codes(2 * CodeColumn::kZoneRows + 17);
  for (auto& code : codes) code = random() % 70000;
  const CodeColumn column(codes, 70000);
  for (size_t z = 0; z < 3; ++z) {
    const auto first = codes.begin() + static_cast<long>(z * CodeColumn::kZoneRows);
    const auto last =
        codes.begin() + static_cast<long>(std::min(codes.size(), (z + 1) * CodeColumn::kZoneRows));
    EXPECT_EQ(column.zone(z).min, *std::min_element(first, last)) << z;
    EXPECT_EQ(column.zone(z).max, *std::max_element(first, last)) << z;
  }
  const CodeColumn copy = CodeColumn::FromBytes(column.bytes(), column.width());
  EXPECT_EQ(copy.zone(2).min, column.zone(2).min);
  EXPECT_EQ(copy.zone(2).max, column.zone(2).max);
}

TEST(CubeExecutor, MetricLimitsSortAndTopMatchTheReference) {
  std::mt19937 random(7);
  const auto rows = RandomRows(random, 20000, 0.1);
  const auto dataset = BuildDataset(rows);
  for (int round = 0; round < 12; ++round) {
    const std::vector<int> attributes = {1, 2};
    Answer expected = Reference(rows, attributes, nullptr);
    CubeQuery query = QueryOf(attributes, RowFilter::All());
    // Keep groups whose X is above a threshold or among the 5 lowest averages; sort by X
    // descending (nulls last), ties by ids, and keep the first `top`.
    const double threshold = static_cast<double>(random() % 3000);
    query.limit_filter = RowFilter::Combine(
        RowFilter::Kind::kOr, {RowFilter::Metric(kXSum, CompareOp::kGreater, {threshold}),
                               RowFilter::Metric(kAvg, CompareOp::kRankBottom, {5})});
    std::vector<double> averages;
    for (const auto& [key, values] : expected) {
      if (values[kAvg]) averages.push_back(*values[kAvg]);
    }
    std::sort(averages.begin(), averages.end());
    const double fifth_lowest = averages.size() >= 5 ? averages[4] : INFINITY;
    std::erase_if(expected, [&](const auto& group) {
      const auto& v = group.second;
      return !((v[kXSum] && *v[kXSum] > threshold) || (v[kAvg] && *v[kAvg] <= fifth_lowest));
    });
    std::stable_sort(expected.begin(), expected.end(), [](const auto& a, const auto& b) {
      const auto& x = a.second[kXSum];
      const auto& y = b.second[kXSum];
      if (x.has_value() != y.has_value()) return x.has_value();
      return x && *x > *y;
    });
    query.sort = {{SortKey::Kind::kMetric, kXSum, 0, true}};
    const size_t top = random() % 40;
    query.top = top;
    if (expected.size() > top) expected.resize(top);
    ExpectSameAnswer(AnswerOf(ExecuteCubeQuery(dataset, query)), expected,
                     "round " + std::to_string(round));
  }
}

// QueryOf with the rows count hidden (a dashboard selector's metric the visualization does not
// show): request indexes stay kXSum..ratio, returned indexes skip kRows.
CubeQuery QueryWithHiddenRows(const std::vector<int>& attributes) {
  CubeQuery query = QueryOf(attributes, RowFilter::All());
  query.metrics[kRows].hidden = true;
  return query;
}

Answer WithoutRows(Answer answer) {
  for (auto& group : answer) group.second.erase(group.second.begin() + kRows);
  return answer;
}

// The n-th greatest of the groups' values of `metric` (nulls skipped): a rank-n threshold.
double NthGreatest(const Answer& answer, int metric, size_t n) {
  std::vector<double> values;
  for (const auto& group : answer) {
    if (group.second[metric]) values.push_back(*group.second[metric]);
  }
  std::sort(values.rbegin(), values.rend());
  return n <= values.size() ? values[n - 1] : -INFINITY;
}

TEST(CubeExecutorGroupFilter, FiltersGroupsOnAHiddenMetricWithoutReturningIt) {
  std::mt19937 random(29);
  const auto rows = RandomRows(random, 20000, 0.1);
  const auto dataset = BuildDataset(rows);
  const std::vector<int> attributes = {1};
  Answer expected = Reference(rows, attributes, nullptr);
  std::vector<double> counts;
  for (const auto& group : expected) counts.push_back(*group.second[kRows]);
  std::sort(counts.begin(), counts.end());
  const double median = counts[counts.size() / 2];
  std::erase_if(expected, [&](const auto& group) { return !(*group.second[kRows] > median); });
  ASSERT_GT(expected.size(), 0u);
  ASSERT_LT(expected.size(), counts.size());

  CubeQuery query = QueryWithHiddenRows(attributes);
  query.group_filter = RowFilter::Metric(kRows, CompareOp::kGreater, {median});
  const ResultSet result = ExecuteCubeQuery(dataset, query);

  ASSERT_EQ(result.metrics.size(), static_cast<size_t>(kMetricCount));  // 7 requests, 1 hidden
  for (const auto& metric : result.metrics) EXPECT_NE(metric.id, "rows");
  ExpectSameAnswer(AnswerOf(result), WithoutRows(expected), "rows > " + std::to_string(median));
}

TEST(CubeExecutorGroupFilter, IsAndedWithTheLimitAndBothRankAmongAllGroups) {
  std::mt19937 random(31);
  const auto rows = RandomRows(random, 30000, 0.1);
  const auto dataset = BuildDataset(rows);
  const std::vector<int> attributes = {1};
  Answer expected = Reference(rows, attributes, nullptr);
  const double tenth_x = NthGreatest(expected, kXSum, 10);
  const double fifth_rows = NthGreatest(expected, kRows, 5);

  // Keep the 10 best X overall, less the 5 largest row counts overall. Returned index 4 is
  // distinct_c (at most 300 here), request index 4 the hidden row count (mostly above 300).
  CubeQuery query = QueryWithHiddenRows(attributes);
  query.limit_filter = RowFilter::Combine(RowFilter::Kind::kAnd,
                                          {RowFilter::Metric(kXSum, CompareOp::kRankTop, {10}),
                                           RowFilter::Metric(4, CompareOp::kLessEqual, {300})});
  query.group_filter = RowFilter::Combine(RowFilter::Kind::kNot,
                                          {RowFilter::Metric(kRows, CompareOp::kRankTop, {5})});
  std::erase_if(expected, [&](const auto& group) {
    const auto& v = group.second;
    const bool in_limit = v[kXSum] && *v[kXSum] >= tenth_x && *v[kDistinctC] <= 300;
    const bool in_group_filter = !(*v[kRows] >= fifth_rows);
    return !(in_limit && in_group_filter);
  });
  ASSERT_GT(expected.size(), 0u);
  ASSERT_LT(expected.size(), 10u);
  ExpectSameAnswer(AnswerOf(ExecuteCubeQuery(dataset, query)), WithoutRows(expected),
                   "top 10 X, not top 5 rows");

  // Indexes are checked in each limit's own space.
  CubeQuery bad_limit = QueryWithHiddenRows(attributes);
  bad_limit.limit_filter = RowFilter::Metric(kMetricCount, CompareOp::kIsNull, {});
  CubeQuery good_group = QueryWithHiddenRows(attributes);
  good_group.group_filter = RowFilter::Metric(kMetricCount, CompareOp::kIsNull, {});
  CubeQuery bad_group = QueryWithHiddenRows(attributes);
  bad_group.group_filter = RowFilter::Combine(
      RowFilter::Kind::kOr, {RowFilter::Metric(kXSum, CompareOp::kIsNull, {}),
                             RowFilter::Metric(kMetricCount + 1, CompareOp::kIsNull, {})});
  for (const CubeQuery* query : {&bad_limit, &bad_group}) {
    try {
      ExecuteCubeQuery(dataset, *query);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kInvalidInput) << e.what();
    }
  }
  EXPECT_NO_THROW(ExecuteCubeQuery(dataset, good_group));
}

TEST(CubeExecutor, SortByTextFormUsesTheFormsOrder) {
  std::mt19937 random(3);
  const auto rows = RandomRows(random, 5000, 0);
  const auto dataset = BuildDataset(rows);
  CubeQuery query = QueryOf({1}, RowFilter::All());
  query.sort = {{SortKey::Kind::kAttribute, 0, 1, true}};
  const ResultSet result = ExecuteCubeQuery(dataset, query);
  const auto& dictionary = dataset->attribute(1).dictionary;
  ASSERT_GT(result.row_count, 2u);
  for (size_t row = 1; row < result.row_count; ++row) {
    EXPECT_GE(std::get<std::string>(dictionary.Value(1, result.codes[0][row - 1])),
              std::get<std::string>(dictionary.Value(1, result.codes[0][row])));
  }
}

TEST(CubeExecutor, AnswersEqualSqliteOnTheSameRows) {
  std::mt19937 random(11);
  const auto rows = RandomRows(random, 30000, 0.05);
  const auto dataset = BuildDataset(rows);
  testing::TempDir dir;
  auto warehouse =
      warehouse::Warehouse::Open({"check", "sqlite:///" + (dir.path() / "check.db").string()});
  size_t next = 0;
  warehouse->BulkLoad({"t",
                       {{"a0", DataType::kInteger},
                        {"a1", DataType::kInteger},
                        {"a2", DataType::kInteger},
                        {"x", DataType::kReal},
                        {"y", DataType::kReal},
                        {"s", DataType::kReal},
                        {"n", DataType::kReal}},
                       {}},
                      [&](std::vector<warehouse::SqlValue>& cells) {
                        if (next == rows.size()) return false;
                        const Row& row = rows[next++];
                        cells = {
                            row.ids[0], row.ids[1],
                            row.ids[2], row.x ? warehouse::SqlValue(*row.x) : warehouse::SqlValue(),
                            row.y,      row.s,
                            row.count};
                        return true;
                      });
  const std::vector<std::vector<int>> subsets = {{}, {0}, {2}, {1, 0}, {0, 1, 2}, {2, 1}};
  for (const auto& attributes : subsets) {
    std::string columns;
    for (int a : attributes) columns += "a" + std::to_string(a) + ", ";
    std::string group = columns.empty() ? ""
                                        : " GROUP BY " + columns.substr(0, columns.size() - 2) +
                                              " ORDER BY " + columns.substr(0, columns.size() - 2);
    const std::string sql =
        "SELECT " + columns +
        "SUM(x), MIN(y), MAX(y), SUM(s) / SUM(n), COUNT(*), COUNT(DISTINCT a2), "
        "SUM(x) / COUNT(*) FROM t WHERE y < 40" +
        group;
    struct Sink : warehouse::RowSink {
      void OnColumns(const std::vector<std::string>&) override {}
      void OnRow(const std::vector<warehouse::SqlValue>& row) override {
        std::vector<int64_t> key;
        std::vector<std::optional<double>> values;
        for (size_t i = 0; i < row.size(); ++i) {
          if (i < width) {
            key.push_back(std::get<int64_t>(row[i]));
          } else if (const auto* d = std::get_if<double>(&row[i])) {
            values.push_back(*d);
          } else if (const auto* n = std::get_if<int64_t>(&row[i])) {
            values.push_back(static_cast<double>(*n));
          } else {
            values.push_back(std::nullopt);
          }
        }
        answer.push_back({key, values});
      }
      size_t width = 0;
      Answer answer;
    } sink;
    sink.width = attributes.size();
    warehouse->Query({sql, {}}, sink);
    const ResultSet result = ExecuteCubeQuery(
        dataset, QueryOf(attributes, RowFilter::Metric(kYMin, CompareOp::kLess, {40})));
    ExpectSameAnswer(AnswerOf(result), sink.answer, "SQL: " + sql);
  }
}

TEST(CubeExecutorEdges, EmptyDatasetGivesNoGroupsButOneGrandTotal) {
  const auto dataset = BuildDataset({});
  EXPECT_EQ(ExecuteCubeQuery(dataset, QueryOf({0, 1}, RowFilter::All())).row_count, 0u);
  const ResultSet total = ExecuteCubeQuery(dataset, QueryOf({}, RowFilter::All()));
  ASSERT_EQ(total.row_count, 1u);
  EXPECT_FALSE(total.Value(kXSum, 0).has_value());
  EXPECT_FALSE(total.Value(kAvg, 0).has_value());
  EXPECT_EQ(total.Value(kRows, 0), 0.0);
}

TEST(CubeExecutorEdges, AllNullMetricAndDivisionByZeroGiveNulls) {
  std::mt19937 random(5);
  const auto dataset = BuildDataset(RandomRows(random, 500, 1.0));
  const ResultSet result = ExecuteCubeQuery(dataset, QueryOf({0}, RowFilter::All()));
  ASSERT_GT(result.row_count, 0u);
  for (size_t row = 0; row < result.row_count; ++row) {
    EXPECT_FALSE(result.Value(kXSum, row).has_value());
    EXPECT_FALSE(result.Value(kMetricCount, row).has_value());  // X / rows with X null
  }
  CubeQuery query = QueryOf({0}, RowFilter::All());
  query.metrics.push_back(
      {"zero", "Zero", -1, model::ParseArithmetic("[rows] / ([rows] - [rows])"), false});
  const ResultSet divided = ExecuteCubeQuery(dataset, query);
  for (size_t row = 0; row < divided.row_count; ++row) {
    EXPECT_FALSE(divided.Value(kMetricCount + 1, row).has_value());
  }
}

TEST(CubeExecutorEdges, LimitThatKeepsNothingAndFilterThatKeepsNothing) {
  std::mt19937 random(9);
  const auto dataset = BuildDataset(RandomRows(random, 2000, 0));
  CubeQuery query = QueryOf({1}, RowFilter::All());
  query.limit_filter = RowFilter::Metric(kRows, CompareOp::kGreater, {1e9});
  EXPECT_EQ(ExecuteCubeQuery(dataset, query).row_count, 0u);
  const std::vector<uint8_t> none(dataset->attribute(0).dictionary.size(), 0);
  EXPECT_EQ(ExecuteCubeQuery(dataset, QueryOf({1}, RowFilter::Codes(0, none))).row_count, 0u);
}

TEST(CubeExecutorEdges, MillionElementAttributeAggregatesThroughTheHashTable) {
  sql::DatasetBuilder builder({{"big", "Big", {{"ID", DataType::kInteger}}},
                               {"small", "Small", {{"ID", DataType::kInteger}}}},
                              {MetricSpecOf("v", "V", AggregateFunction::kSum)});
  constexpr int64_t kElements = 1000000;
  std::map<int64_t, double> by_small;
  for (int64_t i = 0; i < kElements; ++i) {
    const int64_t id = (i * 7919) % kElements;  // every id once, out of order
    builder.AddRow({id, id % 5, static_cast<double>(id % 13)});
    by_small[id % 5] += static_cast<double>(id % 13);
  }
  const auto dataset = std::make_shared<const Dataset>(builder.Finish());
  EXPECT_EQ(dataset->attribute(0).codes.width(), 4);
  ThreadPool pool(2);
  CubeQuery query;
  query.attributes = {0, 1};  // 5M combinations: beyond the dense arrays
  query.metrics = {{"v", "V", 0, {}, false}};
  query.sort = {{SortKey::Kind::kMetric, 0, 0, true}};
  query.top = 3;
  const ResultSet top = ExecuteCubeQuery(dataset, query, &pool);
  ASSERT_EQ(top.row_count, 3u);
  EXPECT_EQ(top.Value(0, 0), 12.0);
  query.attributes = {1};
  query.sort.clear();
  query.top.reset();
  const ResultSet rolled = ExecuteCubeQuery(dataset, query, &pool);
  ASSERT_EQ(rolled.row_count, 5u);
  for (size_t row = 0; row < 5; ++row) {
    EXPECT_DOUBLE_EQ(*rolled.Value(0, row), by_small[static_cast<int64_t>(row)]);
  }
}

TEST(CubeExecutorEdges, AttributesWhoseCombinationsOverflowSixtyFourBitsStillAggregate) {
  // Five attributes of 20,000 elements each: 20,000^5 combinations, far beyond a 64-bit key.
  constexpr int kColumns = 5;
  constexpr int64_t kElements = 20000;
  std::vector<sql::AttributeSpec> attributes;
  for (int a = 0; a < kColumns; ++a) {
    attributes.push_back({"a" + std::to_string(a), "A", {{"ID", DataType::kInteger}}});
  }
  sql::DatasetBuilder builder(attributes, {MetricSpecOf("v", "V", AggregateFunction::kSum)});
  // Each id appears once per column; rows repeat every 3 * kElements, so groups have 1-3 rows.
  std::map<std::vector<int64_t>, double> reference;
  for (int64_t i = 0; i < 3 * kElements + 500; ++i) {
    std::vector<int64_t> key;
    std::vector<Cell> row;
    for (int a = 0; a < kColumns; ++a) {
      const int64_t id = ((i % kElements) * (a + 3) * 7919 + a) % kElements;
      key.push_back(id);
      row.push_back(id);
    }
    const double value = static_cast<double>(i % 17);
    row.push_back(value);
    reference[key] += value;
    builder.AddRow(row);
  }
  const auto dataset = std::make_shared<const Dataset>(builder.Finish());
  ThreadPool pool(2);
  CubeQuery query;
  query.attributes = {0, 1, 2, 3, 4};
  query.metrics = {{"v", "V", 0, {}, false}};
  const ResultSet result = ExecuteCubeQuery(dataset, query, &pool);
  ASSERT_EQ(result.row_count, reference.size());
  size_t row = 0;
  for (const auto& [key, sum] : reference) {  // groups come out in ID order, like the map
    for (int a = 0; a < kColumns; ++a) {
      const Dictionary& dictionary = dataset->attribute(a).dictionary;
      EXPECT_EQ(std::get<int64_t>(dictionary.Value(0, result.codes[a][row])), key[a])
          << "row " << row << " attribute " << a;
    }
    EXPECT_DOUBLE_EQ(*result.Value(0, row), sum) << "row " << row;
    ++row;
  }
}

// Sums of many doubles depend on the order of their additions; a result computed again (after
// the memory budget dropped it, or by another node rebuilding an instance) must have the very
// same values, page for page, whichever thread took which rows.
TEST(CubeExecutor, ARepeatedQueryGivesTheSameValuesToTheLastBit) {
  sql::DatasetBuilder builder({{"few", "Few", {{"ID", DataType::kInteger}}},
                               {"many", "Many", {{"ID", DataType::kInteger}}}},
                              {MetricSpecOf("v", "V", AggregateFunction::kSum)});
  std::mt19937_64 random(42);
  std::uniform_real_distribution<double> value(0.0, 1000.0);
  for (int64_t i = 0; i < 1200000; ++i) {  // about twenty chunks of rows
    builder.AddRow({i % 3, static_cast<int64_t>(random() % 50000), value(random)});
  }
  const auto dataset = std::make_shared<const Dataset>(builder.Finish());
  ThreadPool pool(2);
  for (const std::vector<int>& attributes : {std::vector<int>{0}, std::vector<int>{0, 1}}) {
    CubeQuery query;
    query.attributes = attributes;
    query.metrics = {{"v", "V", 0, {}, false}};
    const ResultSet first = ExecuteCubeQuery(dataset, query, &pool);
    for (int run = 0; run < 20; ++run) {
      const ResultSet again = ExecuteCubeQuery(dataset, query, &pool);
      ASSERT_EQ(again.row_count, first.row_count);
      for (size_t row = 0; row < first.row_count; ++row) {
        ASSERT_EQ(again.Value(0, row), first.Value(0, row))
            << "run " << run << ", row " << row << " of " << attributes.size() << " attributes";
      }
    }
  }
}

TEST(CubeExecutorEdges, AQueryPastItsDeadlineStopsWithATimeout) {
  std::mt19937 random(5);
  const auto dataset = BuildDataset(RandomRows(random, 5000, 0));
  CubeQuery query = QueryOf({0, 1}, RowFilter::All());
  query.deadline = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  try {
    ExecuteCubeQuery(dataset, query);
    FAIL() << "no timeout";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kTimeout);
    EXPECT_NE(std::string(error.message()).find("time budget"), std::string::npos);
  }
  query.deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  EXPECT_GT(ExecuteCubeQuery(dataset, query).row_count, 0u);
}

TEST(CubeExecutorElements, SearchPagingAndCascadingFromOtherSelections) {
  std::mt19937 random(13);
  const auto rows = RandomRows(random, 20000, 0);
  const auto dataset = BuildDataset(rows);
  const Dictionary& dictionary = dataset->attribute(1).dictionary;

  ElementSearch search;
  search.pattern = "ÜNÏ";  // only ASCII folds; the non-ASCII letters match as written
  EXPECT_EQ(ListElements(*dataset, 1, RowFilter::All(), search).total, 0u);
  search.pattern = "Ünïcødé";
  const ElementList unicode = ListElements(*dataset, 1, RowFilter::All(), search);
  EXPECT_GT(unicode.total, 0u);
  for (uint32_t code : unicode.codes) {
    EXPECT_THAT(std::get<std::string>(dictionary.Value(1, code)), ::testing::HasSubstr("Ünïcødé"));
  }

  search.pattern = "ALPHA";
  search.prefix = true;
  const ElementList all = ListElements(*dataset, 1, RowFilter::All(), search);
  search.offset = 1;
  search.limit = 2;
  const ElementList page = ListElements(*dataset, 1, RowFilter::All(), search);
  EXPECT_EQ(page.total, all.total);
  ASSERT_GE(all.codes.size(), 3u);
  EXPECT_EQ(page.codes, std::vector<uint32_t>(all.codes.begin() + 1, all.codes.begin() + 3));

  // Only elements of attribute 1 that occur with attribute 0's first element.
  std::vector<uint8_t> first(dataset->attribute(0).dictionary.size(), 0);
  first[0] = 1;
  const int64_t first_id = std::get<int64_t>(dataset->attribute(0).dictionary.Value(0, 0));
  std::set<int64_t> expected;
  for (const Row& row : rows) {
    if (row.ids[0] == first_id) expected.insert(row.ids[1]);
  }
  ThreadPool pool(2);
  const ElementList cascaded = ListElements(*dataset, 1, RowFilter::Codes(0, first), {}, &pool);
  std::set<int64_t> actual;
  for (uint32_t code : cascaded.codes) actual.insert(std::get<int64_t>(dictionary.Value(0, code)));
  EXPECT_EQ(actual, expected);
}

// Airports: the ID form is a code, the DESC form a nickname; "b" begins BOS and two nicknames.
std::shared_ptr<const Dataset> AirportDataset() {
  sql::MetricSpec flights;
  flights.id = flights.name = "flights";
  sql::DatasetBuilder builder(
      {{"airport", "Airport", {{"ID", DataType::kText}, {"DESC", DataType::kText}}}}, {flights});
  builder.AddRow({std::string("NYC"), std::string("Big Apple"), 1.0});
  builder.AddRow({std::string("LAX"), std::string("Angels"), 1.0});
  builder.AddRow({std::string("SFO"), std::string("Bay Area"), 1.0});
  builder.AddRow({std::string("BOS"), std::string("Hub"), 1.0});
  return std::make_shared<const Dataset>(builder.Finish());
}

std::set<std::string> FoundIds(const Dataset& dataset, const ElementSearch& search) {
  std::set<std::string> ids;
  for (uint32_t code : ListElements(dataset, 0, RowFilter::All(), search).codes) {
    ids.insert(std::get<std::string>(dataset.attribute(0).dictionary.Value(0, code)));
  }
  return ids;
}

TEST(CubeExecutorElements, SearchMatchesAnElementWhenAnyOfItsFormsMatches) {
  const auto dataset = AirportDataset();
  ElementSearch search;
  search.pattern = "b";
  search.prefix = true;
  EXPECT_EQ(FoundIds(*dataset, search), (std::set<std::string>{"NYC", "SFO"}));  // DESC
  search.forms = {0};
  EXPECT_EQ(FoundIds(*dataset, search), (std::set<std::string>{"BOS"}));
  search.forms = {1};
  EXPECT_EQ(FoundIds(*dataset, search), (std::set<std::string>{"NYC", "SFO"}));
  search.forms = {0, 1};
  EXPECT_EQ(FoundIds(*dataset, search), (std::set<std::string>{"BOS", "NYC", "SFO"}));
  EXPECT_EQ(ListElements(*dataset, 0, RowFilter::All(), search).total, 3u);
  search.forms = {1, 2};
  EXPECT_THROW(ListElements(*dataset, 0, RowFilter::All(), search), Error);
}

TEST(CubeExecutorErrors, BadIndexesAndReferencesAreInvalidInput) {
  std::mt19937 random(17);
  const auto dataset = BuildDataset(RandomRows(random, 100, 0));
  auto expect_invalid = [&](const CubeQuery& query) {
    try {
      ExecuteCubeQuery(dataset, query);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kInvalidInput) << e.what();
    }
  };
  expect_invalid(QueryOf({7}, RowFilter::All()));
  expect_invalid(QueryOf({1, 1}, RowFilter::All()));
  expect_invalid(QueryOf({0}, RowFilter::Codes(0, {1})));
  expect_invalid(QueryOf({0}, RowFilter::Metric(99, CompareOp::kLess, {1})));
  CubeQuery unknown = QueryOf({0}, RowFilter::All());
  unknown.metrics.push_back({"bad", "Bad", -1, model::ParseArithmetic("[nothing] + 1"), false});
  expect_invalid(unknown);
  CubeQuery sort = QueryOf({0}, RowFilter::All());
  sort.sort = {{SortKey::Kind::kMetric, 40, 0, false}};
  expect_invalid(sort);
}

TEST(Dataset, MemoryIsCodesAndValuesPlusDictionaries) {
  std::mt19937 random(19);
  constexpr size_t kRowCount = 30000;
  const auto dataset = BuildDataset(RandomRows(random, kRowCount, 0.01));
  // 3 one-byte or two-byte code columns; x, y (shared by min and max), s, count; a null bitmap.
  EXPECT_EQ(dataset->attribute(0).codes.width(), 1);
  EXPECT_EQ(dataset->attribute(2).codes.width(), 2);
  const size_t raw = dataset->RawBytes();
  EXPECT_EQ(raw, kRowCount * (1 + 1 + 2) + kRowCount * 8 * 4 + ((kRowCount + 63) / 64) * 8);
  size_t dictionaries = 0;
  for (const auto& attribute : dataset->attributes())
    dictionaries += attribute.dictionary.MemoryBytes();
  EXPECT_LE(dataset->MemoryBytes(), raw * 3 / 2 + dictionaries);
}

}  // namespace
}  // namespace tessera::engine
