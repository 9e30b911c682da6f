// Roll-ups answer as the base: random datasets (random attributes and cardinalities, hidden
// attributes, every metric function with nulls, avg with and without counts, count distinct with
// and without a counted attribute), random grains and random queries, each answered from the
// roll-up Choose() names and compared with ExecuteCubeQuery on the base, the reference. Also which
// roll-up the chooser names, and what Build keeps.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

#include "core/thread_pool.h"
#include "engine/cube_executor.h"
#include "engine/rollup_set.h"

namespace tessera::engine {
namespace {

using model::AggregateFunction;
using model::DataType;

constexpr RollupOptions kKeepEvery{1.0, 1e9};

Dictionary DictionaryOf(int attribute, size_t cardinality) {
  FormValues id{"ID", DataType::kInteger, {}, {}};
  FormValues desc{"DESC", DataType::kText, {}, {}};
  for (size_t code = 0; code < cardinality; ++code) {
    id.values.emplace_back(static_cast<int64_t>(code * 3));
    // Descriptions in another order than the ids, so sorts by DESC differ from code order.
    desc.values.emplace_back("e" + std::to_string((code * 7 + attribute) % cardinality) + "_" +
                             std::to_string(code));
  }
  return Dictionary({std::move(id), std::move(desc)});
}

AttributeColumn AttributeOf(int index, size_t cardinality, bool hidden,
                            const std::vector<uint32_t>& codes) {
  return {"A" + std::to_string(index), "Attribute " + std::to_string(index), hidden,
          DictionaryOf(index, cardinality), CodeColumn(codes, cardinality)};
}

std::shared_ptr<const std::vector<uint64_t>> RandomValid(std::mt19937& random, size_t rows,
                                                         int null_percent) {
  std::vector<uint64_t> words((rows + 63) / 64, 0);
  for (size_t row = 0; row < rows; ++row) {
    if (static_cast<int>(random() % 100) >= null_percent)
      words[row >> 6] |= uint64_t{1} << (row & 63);
  }
  return std::make_shared<const std::vector<uint64_t>>(std::move(words));
}

// Whole numbers, so every sum is exact and orders by value cannot differ in the last bits.
std::shared_ptr<const std::vector<double>> RandomValues(std::mt19937& random, size_t rows, int low,
                                                        int high) {
  std::vector<double> values(rows);
  for (auto& value : values) value = low + static_cast<int>(random() % (high - low + 1));
  return std::make_shared<const std::vector<double>>(std::move(values));
}

MetricColumn MetricOf(std::string id, AggregateFunction function) {
  MetricColumn column;
  column.name = "Metric " + id;
  column.id = std::move(id);
  column.function = function;
  return column;
}

// Attributes: 3 to 6, one or two hidden (the last ones), cardinalities 1 to 40. Metrics: every
// function, with and without nulls; count distinct of a hidden, a visible and no attribute.
std::shared_ptr<const Dataset> RandomDataset(std::mt19937& random, size_t rows) {
  const int attribute_count = 3 + static_cast<int>(random() % 4);
  const int hidden_count = 1 + static_cast<int>(random() % 2);
  std::vector<AttributeColumn> attributes;
  for (int a = 0; a < attribute_count; ++a) {
    const size_t cardinality = 1 + random() % (a % 2 ? 40 : 6);
    std::vector<uint32_t> codes(rows);
    for (auto& code : codes) code = static_cast<uint32_t>(random() % cardinality);
    attributes.push_back(AttributeOf(a, cardinality, a >= attribute_count - hidden_count, codes));
  }
  std::vector<MetricColumn> metrics;
  auto values = RandomValues(random, rows, -50, 200);
  auto nulls = RandomValid(random, rows, 20);
  auto add = [&](std::string id, AggregateFunction function, bool with_nulls) {
    MetricColumn column = MetricOf(std::move(id), function);
    column.values = values;
    if (with_nulls) column.valid = nulls;
    metrics.push_back(std::move(column));
  };
  add("sum", AggregateFunction::kSum, false);
  add("sum_nulls", AggregateFunction::kSum, true);
  add("min_nulls", AggregateFunction::kMin, true);
  add("max", AggregateFunction::kMax, false);
  add("max_nulls", AggregateFunction::kMax, true);
  add("count_values", AggregateFunction::kCount, true);
  metrics.push_back(MetricOf("count_rows", AggregateFunction::kCount));  // no values: 1 per row
  add("avg_nulls", AggregateFunction::kAvg, true);                       // 1 per valid row
  add("avg", AggregateFunction::kAvg, false);
  add("avg_counts", AggregateFunction::kAvg, true);
  metrics.back().counts = RandomValues(random, rows, 0, 3);
  MetricColumn hidden_distinct = MetricOf("distinct_hidden", AggregateFunction::kCountDistinct);
  hidden_distinct.counted_attribute = attribute_count - 1;
  metrics.push_back(hidden_distinct);
  MetricColumn visible_distinct = MetricOf("distinct_visible", AggregateFunction::kCountDistinct);
  visible_distinct.counted_attribute = 1;
  metrics.push_back(visible_distinct);
  MetricColumn full_grain = MetricOf("distinct_full_grain", AggregateFunction::kCountDistinct);
  full_grain.values = std::make_shared<const std::vector<double>>(rows, 1.0);
  metrics.push_back(full_grain);
  return std::make_shared<const Dataset>(rows, std::move(attributes), std::move(metrics));
}

std::vector<int> RandomSubset(std::mt19937& random, int count, int percent) {
  std::vector<int> subset;
  for (int i = 0; i < count; ++i) {
    if (static_cast<int>(random() % 100) < percent) subset.push_back(i);
  }
  std::shuffle(subset.begin(), subset.end(), random);
  return subset;
}

RowFilter RandomRowFilter(std::mt19937& random, const Dataset& dataset, int depth = 0) {
  const int choice = static_cast<int>(random() % (depth >= 2 ? 2 : 5));
  if (choice == 0) {
    const int a = static_cast<int>(random() % dataset.attributes().size());
    std::vector<uint8_t> keep(dataset.attribute(a).dictionary.size());
    for (auto& k : keep) k = random() % 2;
    return RowFilter::Codes(a, std::move(keep));
  }
  if (choice == 1) {
    if (random() % 4 != 0) return RandomRowFilter(random, dataset, 2);  // metric leaves rarer
    return RowFilter::Metric(static_cast<int>(random() % 2), CompareOp::kGreater,
                             {static_cast<double>(random() % 100)});
  }
  std::vector<RowFilter> children;
  const int count = choice == 4 ? 1 : 1 + static_cast<int>(random() % 3);
  for (int i = 0; i < count; ++i) children.push_back(RandomRowFilter(random, dataset, depth + 1));
  const RowFilter::Kind kinds[] = {RowFilter::Kind::kAnd, RowFilter::Kind::kOr,
                                   RowFilter::Kind::kNot};
  return RowFilter::Combine(kinds[choice - 2], std::move(children));
}

CubeQuery RandomQuery(std::mt19937& random, const Dataset& dataset) {
  CubeQuery query;
  query.attributes = RandomSubset(random, static_cast<int>(dataset.attributes().size()), 35);
  for (int m : RandomSubset(random, static_cast<int>(dataset.metrics().size()), 30)) {
    query.metrics.push_back({dataset.metric(m).id, dataset.metric(m).name, m, {}, false});
  }
  if (query.metrics.empty()) query.metrics.push_back({"sum", "Sum", 0, {}, false});
  if (random() % 3 == 0) query.filter = RandomRowFilter(random, dataset);
  const int returned = static_cast<int>(query.metrics.size());
  if (random() % 4 == 0) {
    const CompareOp op = random() % 2 ? CompareOp::kRankTop : CompareOp::kGreater;
    query.limit_filter = RowFilter::Metric(static_cast<int>(random() % returned), op,
                                           {static_cast<double>(random() % 5 + 1)});
  }
  if (random() % 2) {
    SortKey key;
    key.descending = random() % 2;
    if (!query.attributes.empty() && random() % 2) {
      key.index = static_cast<int>(random() % query.attributes.size());
      key.form = static_cast<int>(random() % 2);
    } else {
      key.kind = SortKey::Kind::kMetric;
      key.index = static_cast<int>(random() % returned);
    }
    query.sort.push_back(key);
  }
  if (random() % 4 == 0) query.top = random() % 10;
  return query;
}

void ExpectSameResult(const ResultSet& expected, const ResultSet& actual) {
  EXPECT_EQ(actual.dataset, expected.dataset);
  EXPECT_EQ(actual.attributes, expected.attributes);
  ASSERT_EQ(actual.row_count, expected.row_count);
  ASSERT_EQ(actual.codes, expected.codes);
  ASSERT_EQ(actual.metrics.size(), expected.metrics.size());
  for (size_t m = 0; m < expected.metrics.size(); ++m) {
    EXPECT_EQ(actual.metrics[m].id, expected.metrics[m].id);
    EXPECT_EQ(actual.metrics[m].column, expected.metrics[m].column);
    ASSERT_EQ(actual.present[m], expected.present[m]) << expected.metrics[m].id;
    for (size_t row = 0; row < expected.row_count; ++row) {
      const double want = expected.values[m][row];
      EXPECT_NEAR(actual.values[m][row], want, 1e-9 * std::max(1.0, std::abs(want)))
          << expected.metrics[m].id << " row " << row;
    }
  }
}

// What a query needs from a roll-up, worked out here from ids rather than indexes.
std::set<std::string> NeededAttributeIds(const Dataset& base, const CubeQuery& query) {
  std::set<std::string> ids;
  for (int a : query.attributes) ids.insert(base.attribute(a).id);
  std::vector<const RowFilter*> pending{&query.filter};
  while (!pending.empty()) {
    const RowFilter* filter = pending.back();
    pending.pop_back();
    if (filter->kind == RowFilter::Kind::kCodes) ids.insert(base.attribute(filter->attribute).id);
    for (const auto& child : filter->children) pending.push_back(&child);
  }
  for (const auto& request : query.metrics) {
    const MetricColumn& column = base.metric(request.column);
    if (column.function == AggregateFunction::kCountDistinct && column.counted_attribute >= 0) {
      ids.insert(base.attribute(column.counted_attribute).id);
    }
  }
  return ids;
}

void ExpectChoiceHoldsWhatTheQueryNeeds(const Dataset& base, const CubeQuery& query,
                                        const Rollup& rollup) {
  for (const auto& id : NeededAttributeIds(base, query)) {
    EXPECT_GE(rollup.dataset->AttributeIndex(id), 0) << "attribute " << id;
  }
  for (const auto& request : query.metrics) {
    const MetricColumn& column = base.metric(request.column);
    const int index = rollup.dataset->MetricIndex(column.id);
    ASSERT_GE(index, 0) << "metric " << column.id;
    EXPECT_NE(column.id, "distinct_full_grain");
    if (column.function == AggregateFunction::kCountDistinct) {
      EXPECT_EQ(rollup.dataset->attribute(rollup.dataset->metric(index).counted_attribute).id,
                base.attribute(column.counted_attribute).id);
    }
  }
}

TEST(RollupSet, EveryRandomQueryAnswersAsTheBase) {
  ThreadPool pool(2);
  size_t answered_by_rollups = 0;
  for (uint32_t seed = 1; seed <= 12; ++seed) {
    std::mt19937 random(seed);
    const auto base = RandomDataset(random, 2000 + random() % 20000);
    std::vector<std::vector<int>> grains{VisibleGrain(*base)};
    for (int g = 0; g < 4; ++g) {
      grains.push_back(RandomSubset(random, static_cast<int>(base->attributes().size()), 50));
    }
    const RollupSet rollups =
        RollupSet::Build(*base, grains, kKeepEvery, seed % 2 ? &pool : nullptr);
    ASSERT_FALSE(rollups.rollups().empty());
    for (int q = 0; q < 150; ++q) {
      const CubeQuery query = RandomQuery(random, *base);
      SCOPED_TRACE("seed " + std::to_string(seed) + " query " + std::to_string(q));
      const Rollup* chosen = rollups.Choose(*base, query);
      if (chosen) {
        ExpectChoiceHoldsWhatTheQueryNeeds(*base, query, *chosen);
        ++answered_by_rollups;
      }
      ExpectSameResult(ExecuteCubeQuery(base, query, &pool),
                       ExecuteCubeQuery(base, &rollups, query, q % 2 ? &pool : nullptr));
    }
  }
  EXPECT_GT(answered_by_rollups, 500u);  // the comparison is not only of the base with itself
}

// A roll-up of a roll-up answers as the base too: grains built coarse from fine.
TEST(RollupSet, RollupsBuiltFromRollupsAnswerAsTheBase) {
  std::mt19937 random(99);
  const auto base = RandomDataset(random, 30000);
  const Rollup fine = BuildRollup(*base, *base, nullptr, {0, 1, 2});
  const Rollup coarse = BuildRollup(*base, *fine.dataset, &fine, {0, 2});
  const Rollup direct = BuildRollup(*base, *base, nullptr, {0, 2});
  ASSERT_EQ(coarse.dataset->row_count(), direct.dataset->row_count());
  ASSERT_EQ(coarse.metric_of_base, direct.metric_of_base);
  for (size_t m = 0; m < base->metrics().size(); ++m) {
    if (coarse.metric_of_base[m] < 0) continue;
    CubeQuery query;
    query.attributes = {0, 2};
    query.metrics.push_back({base->metric(m).id, "", static_cast<int>(m), {}, false});
    CubeQuery on_coarse = query;
    on_coarse.attributes = {0, 1};
    on_coarse.metrics[0].column = coarse.metric_of_base[m];
    const ResultSet want = ExecuteCubeQuery(base, query);
    const ResultSet got = ExecuteCubeQuery(coarse.dataset, on_coarse);
    EXPECT_EQ(got.codes, want.codes);
    EXPECT_EQ(got.present, want.present) << base->metric(m).id;
    EXPECT_EQ(got.values, want.values) << base->metric(m).id;
  }
}

// Attributes: 0 (2 elements), 1 (3), 2 (50), 3 (200, hidden, counted by metric 1).
std::shared_ptr<const Dataset> FourAttributes() {
  const size_t rows = 20000;
  const size_t cardinality[] = {2, 3, 50, 200};
  std::vector<AttributeColumn> attributes;
  for (int a = 0; a < 4; ++a) {
    std::vector<uint32_t> codes(rows);
    std::mt19937 random(a + 1);
    for (auto& code : codes) code = static_cast<uint32_t>(random() % cardinality[a]);
    attributes.push_back(AttributeOf(a, cardinality[a], a == 3, codes));
  }
  MetricColumn sum = MetricOf("sum", AggregateFunction::kSum);
  sum.values = std::make_shared<const std::vector<double>>(rows, 2.0);
  MetricColumn distinct = MetricOf("distinct", AggregateFunction::kCountDistinct);
  distinct.counted_attribute = 3;
  MetricColumn full_grain = MetricOf("full_grain", AggregateFunction::kCountDistinct);
  full_grain.values = sum.values;
  return std::make_shared<const Dataset>(rows, std::vector<AttributeColumn>(std::move(attributes)),
                                         std::vector<MetricColumn>{sum, distinct, full_grain});
}

CubeQuery QueryOf(std::vector<int> attributes, int metric) {
  CubeQuery query;
  query.attributes = std::move(attributes);
  query.metrics.push_back({"m", "m", metric, {}, false});
  return query;
}

std::vector<std::string> AttributeIdsOf(const Rollup* rollup) {
  std::vector<std::string> ids;
  if (!rollup) return {"base"};
  for (const auto& attribute : rollup->dataset->attributes()) ids.push_back(attribute.id);
  return ids;
}

TEST(RollupSet, ChoosesTheSmallestRollupThatHoldsTheQuery) {
  const auto base = FourAttributes();
  const RollupSet rollups = RollupSet::Build(*base, {{0}, {0, 1}, {0, 1, 2}}, kKeepEvery);
  ASSERT_EQ(rollups.rollups().size(), 3u);
  using Ids = std::vector<std::string>;
  EXPECT_EQ(AttributeIdsOf(rollups.Choose(*base, QueryOf({0}, 0))), Ids({"A0"}));
  EXPECT_EQ(AttributeIdsOf(rollups.Choose(*base, QueryOf({1}, 0))), Ids({"A0", "A1"}));
  EXPECT_EQ(AttributeIdsOf(rollups.Choose(*base, QueryOf({}, 0))), Ids({"A0"}));
  CubeQuery filtered = QueryOf({1}, 0);
  filtered.filter = RowFilter::Codes(2, std::vector<uint8_t>(50, 1));
  EXPECT_EQ(AttributeIdsOf(rollups.Choose(*base, filtered)), Ids({"A0", "A1", "A2"}));
}

TEST(RollupSet, CountDistinctOfADroppedAttributeRunsOnTheBase) {
  const auto base = FourAttributes();
  const RollupSet rollups = RollupSet::Build(*base, {VisibleGrain(*base), {0, 3}}, kKeepEvery);
  using Ids = std::vector<std::string>;
  // The hidden counted attribute is kept only by the grain {0, 3}.
  EXPECT_EQ(AttributeIdsOf(rollups.Choose(*base, QueryOf({0}, 1))), Ids({"A0", "A3"}));
  EXPECT_EQ(AttributeIdsOf(rollups.Choose(*base, QueryOf({1}, 1))), Ids({"base"}));
  // Without a counted attribute, exact only at the base's full grain.
  EXPECT_EQ(AttributeIdsOf(rollups.Choose(*base, QueryOf({0}, 2))), Ids({"base"}));
}

TEST(RollupSet, FilterOnARowsOwnMetricValueRunsOnTheBase) {
  const auto base = FourAttributes();
  const RollupSet rollups = RollupSet::Build(*base, {{0}}, kKeepEvery);
  CubeQuery query = QueryOf({0}, 0);
  query.filter = RowFilter::Metric(0, CompareOp::kGreater, {1});
  EXPECT_EQ(rollups.Choose(*base, query), nullptr);
}

TEST(RollupSet, GrandTotalOfACountOfRowsRunsOnTheBase) {
  std::vector<uint32_t> codes{0, 1, 0, 1};
  std::vector<AttributeColumn> attributes;
  attributes.push_back(AttributeOf(0, 2, false, codes));
  attributes.push_back(AttributeOf(1, 2, false, codes));
  const auto base = std::make_shared<const Dataset>(
      4, std::move(attributes),
      std::vector<MetricColumn>{MetricOf("rows", AggregateFunction::kCount)});
  const RollupSet rollups = RollupSet::Build(*base, {{0}}, kKeepEvery);
  EXPECT_EQ(rollups.Choose(*base, QueryOf({}, 0)), nullptr);
  CubeQuery nothing = QueryOf({}, 0);
  nothing.filter = RowFilter::Codes(0, {0, 0});
  const ResultSet result = ExecuteCubeQuery(base, &rollups, nothing);
  ASSERT_EQ(result.row_count, 1u);
  EXPECT_EQ(result.Value(0, 0), 0.0);  // a count over no row is 0, not null
  EXPECT_NE(rollups.Choose(*base, QueryOf({0}, 0)), nullptr);
}

TEST(RollupSet, BuildKeepsOnlyRollupsWithinTheRowAndMemoryShares) {
  const auto base = FourAttributes();
  // {0, 1, 2} has at most 300 groups: within a quarter of 20,000 rows; {2, 3} has more than 5,000.
  std::set<std::pair<uint32_t, uint32_t>> pairs;
  for (size_t row = 0; row < base->row_count(); ++row) {
    pairs.emplace(base->attribute(2).codes[row], base->attribute(3).codes[row]);
  }
  ASSERT_GT(pairs.size(), 5000u);
  const RollupSet by_rows = RollupSet::Build(*base, {{0, 1, 2}, {2, 3}, {0}}, {0.25, 1e9});
  std::vector<size_t> rows;
  for (const auto& rollup : by_rows.rollups()) rows.push_back(rollup.dataset->row_count());
  EXPECT_TRUE(std::is_sorted(rows.begin(), rows.end()));
  for (size_t count : rows) EXPECT_LE(count, 5000u);
  EXPECT_EQ(by_rows.rollups().size(), 2u);
  EXPECT_LE(by_rows.MemoryBytes(), base->MemoryBytes() / 5);

  const RollupSet none = RollupSet::Build(*base, {{0, 1, 2}, {0}}, {1.0, 0.0});
  EXPECT_TRUE(none.rollups().empty());
  const RollupSet capped = RollupSet::Build(*base, {{0, 1, 2}, {0}}, {1.0, 0.2});
  EXPECT_LE(capped.MemoryBytes(), base->MemoryBytes() / 5);
}

TEST(RollupSet, ARollupKeepsTheBaseDictionaries) {
  const auto base = FourAttributes();
  const Rollup rollup = BuildRollup(*base, *base, nullptr, {2, 0});
  ASSERT_EQ(rollup.dataset->attributes().size(), 2u);
  EXPECT_EQ(rollup.base_attributes, (std::vector<int>{0, 2}));
  for (size_t i = 0; i < 2; ++i) {
    const Dictionary& want = base->attribute(rollup.base_attributes[i]).dictionary;
    const Dictionary& got = rollup.dataset->attribute(i).dictionary;
    ASSERT_EQ(got.size(), want.size());
    for (uint32_t code = 0; code < want.size(); ++code) {
      EXPECT_EQ(CellText(got.Value(1, code)), CellText(want.Value(1, code)));
    }
  }
  EXPECT_EQ(rollup.metric_of_base, (std::vector<int>{0, -1, -1}));
}

}  // namespace
}  // namespace tessera::engine
