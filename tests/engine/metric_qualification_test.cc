// Dashboard metric-qualification selectors: the groups each operator keeps, on a hand-built dataset
// with ties and nulls, equal a plain computation of values and ranks written here; malformed
// expressions are refused with Error(kInvalidInput).
#include "engine/metric_qualification.h"

#include <gtest/gtest.h>

#include <cctype>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/error.h"
#include "engine/cube_executor.h"
#include "engine/sql/dataset_builder.h"

namespace tessera::engine {
namespace {

using model::DataType;

const std::string kStore = "A0000000000000000000000000000021";
const std::string kSales = "B0000000000000000000000000000021";
const std::string kCost = "B0000000000000000000000000000022";  // hidden in every query here
const std::string kAbsent = "B0000000000000000000000000000023";

struct Store {
  int64_t id;
  std::optional<double> sales;
  std::optional<double> cost;
};

// Sales ranked from the top: 5 (1st), 2 3 6 (2nd), 1 9 (5th), 10 (7th), 4 12 (8th), 8 (10th);
// 7 and 11 have no sales. Cost is 10 × the store id, none for store 3.
const std::vector<Store>& Stores() {
  static const std::vector<Store> stores = {
      {1, 50, 10},  {2, 80, 20},   {3, 80, std::nullopt},   {4, 20, 40},
      {5, 100, 50}, {6, 80, 60},   {7, std::nullopt, 70},   {8, 10, 80},
      {9, 50, 90},  {10, 35, 100}, {11, std::nullopt, 110}, {12, 20, 120}};
  return stores;
}

std::shared_ptr<const Dataset> StoreDataset() {
  static const std::shared_ptr<const Dataset> dataset = [] {
    sql::MetricSpec sales;
    sales.id = kSales;
    sales.name = "Sales";
    sql::MetricSpec cost;
    cost.id = kCost;
    cost.name = "Cost";
    sql::DatasetBuilder builder({{kStore, "Store", {{"ID", DataType::kInteger}}}}, {sales, cost});
    auto half = [](std::optional<double> value) { return value ? Cell(*value / 2) : Cell(); };
    for (const Store& store : Stores()) {
      // Two rows per store, so the values are aggregated.
      for (int row = 0; row < 2; ++row)
        builder.AddRow({store.id, half(store.sales), half(store.cost)});
    }
    return std::make_shared<const Dataset>(builder.Finish());
  }();
  return dataset;
}

// The stores a query by store returning Sales, with Cost hidden, keeps under `expression`.
std::set<int64_t> Kept(const Json& expression) {
  CubeQuery query;
  query.attributes = {0};
  query.metrics = {{kSales, "Sales", 0, {}, false}, {kCost, "Cost", 1, {}, true}};
  query.group_filter = CompileMetricQualification(expression, {kSales, kCost});
  const ResultSet result = ExecuteCubeQuery(StoreDataset(), query);
  EXPECT_EQ(result.metrics.size(), 1u);
  std::set<int64_t> stores;
  for (size_t row = 0; row < result.row_count; ++row) {
    stores.insert(
        std::get<int64_t>(StoreDataset()->attribute(0).dictionary.Value(0, result.codes[0][row])));
  }
  return stores;
}

std::set<int64_t> StoresWhere(const std::function<bool(const Store&)>& holds) {
  std::set<int64_t> stores;
  for (const Store& store : Stores()) {
    if (holds(store)) stores.insert(store.id);
  }
  return stores;
}

// 1 + the number of stores with strictly more (top) or less (bottom) sales.
int RankFromTop(const Store& store) {
  int rank = 1;
  for (const Store& other : Stores()) rank += other.sales && *other.sales > *store.sales;
  return rank;
}
int RankFromBottom(const Store& store) {
  int rank = 1;
  for (const Store& other : Stores()) rank += other.sales && *other.sales < *store.sales;
  return rank;
}
int RankedCount() {
  int count = 0;
  for (const Store& store : Stores()) count += store.sales.has_value();
  return count;
}
// The rank a whole percentage stands for: ceil(percent × N / 100).
int RankOfPercent(int percent) { return (percent * RankedCount() + 99) / 100; }

Json Metric(const std::string& id) { return {{"type", "metric"}, {"id", id}, {"name", "Sales"}}; }
Json Real(const std::string& value) {
  return {{"type", "constant"}, {"dataType", "Real"}, {"value", value}};
}
Json Node(const std::string& op, std::vector<Json> operands) {
  return {{"operator", op}, {"operands", std::move(operands)}};
}
Json On(const std::string& op, const std::string& metric, std::vector<std::string> constants) {
  std::vector<Json> operands = {Metric(metric)};
  for (const auto& constant : constants) operands.push_back(Real(constant));
  return Node(op, std::move(operands));
}

struct ValueCase {
  Json expression;
  std::function<bool(std::optional<double>)> holds;
};

TEST(MetricQualification, ValueOperatorsCompareTheAggregatedValue) {
  const std::vector<ValueCase> cases = {
      {On("Equals", kSales, {"80"}), [](auto v) { return v && *v == 80; }},
      {On("NotEqual", kSales, {"80"}), [](auto v) { return v && *v != 80; }},
      {On("Greater", kSales, {"50"}), [](auto v) { return v && *v > 50; }},
      {On("Less", kSales, {"50"}), [](auto v) { return v && *v < 50; }},
      {On("GreaterEqual", kSales, {"50"}), [](auto v) { return v && *v >= 50; }},
      {On(">=", kSales, {"50"}), [](auto v) { return v && *v >= 50; }},
      {On("LessEqual", kSales, {"35"}), [](auto v) { return v && *v <= 35; }},
      {On("Between", kSales, {"20", "50"}), [](auto v) { return v && *v >= 20 && *v <= 50; }},
      {On("NotBetween", kSales, {"20", "50"}), [](auto v) { return v && (*v < 20 || *v > 50); }},
      {On("In", kSales, {"10", "100"}), [](auto v) { return v && (*v == 10 || *v == 100); }},
      {On("NotIn", kSales, {"80"}), [](auto v) { return v && *v != 80; }},
      {On("IsNull", kSales, {}), [](auto v) { return !v; }},
      {On("IsNotNull", kSales, {}), [](auto v) { return v.has_value(); }},
  };
  for (const ValueCase& c : cases) {
    EXPECT_EQ(Kept(c.expression), StoresWhere([&](const Store& s) { return c.holds(s.sales); }))
        << DumpJson(c.expression);
  }
  EXPECT_EQ(Kept(On("Equals", kSales, {"80"})), (std::set<int64_t>{2, 3, 6}));
}

TEST(MetricQualification, InTakesAConstantsOperand) {
  const Json constants = {
      {"type", "constants"}, {"dataType", "Int64"}, {"values", {"20", 35, "100"}}};
  EXPECT_EQ(Kept(Node("In", {Metric(kSales), constants})), (std::set<int64_t>{4, 5, 10, 12}));
  EXPECT_EQ(Kept(Node("NotIn", {Metric(kSales), constants})),
            (std::set<int64_t>{1, 2, 3, 6, 8, 9}));
}

TEST(MetricQualification, QualifiesAHiddenMetricAndMatchesIdsCaseInsensitively) {
  std::string lower = kCost;
  for (char& c : lower) c = static_cast<char>(std::tolower(c));
  EXPECT_EQ(Kept(On("Greater", lower, {"75"})),
            StoresWhere([](const Store& s) { return s.cost && *s.cost > 75; }));
}

TEST(MetricQualification, RankOperatorsKeepRanksCountedOverTiedGroups) {
  // Stated literally once: the three stores tied second share rank 2, so no store is 3rd.
  EXPECT_EQ(Kept(On("Rank.Top", kSales, {"2"})), (std::set<int64_t>{2, 3, 5, 6}));
  EXPECT_EQ(Kept(On("Rank.Equals", kSales, {"3"})), (std::set<int64_t>{}));
  EXPECT_EQ(Kept(On("Rank.Bottom", kSales, {"2"})), (std::set<int64_t>{4, 8, 12}));
  EXPECT_EQ(Kept(On("Rank.ExcludeTop", kSales, {"2"})), (std::set<int64_t>{1, 4, 8, 9, 10, 12}));

  for (int n = 0; n <= 12; ++n) {
    const std::string amount = std::to_string(n);
    auto ranked = [](const std::function<bool(const Store&)>& holds) {
      return StoresWhere([&](const Store& s) { return s.sales && holds(s); });
    };
    EXPECT_EQ(Kept(On("Rank.Top", kSales, {amount})),
              ranked([&](const Store& s) { return RankFromTop(s) <= n; }))
        << n;
    EXPECT_EQ(Kept(On("Rank.Bottom", kSales, {amount})),
              ranked([&](const Store& s) { return RankFromBottom(s) <= n; }))
        << n;
    EXPECT_EQ(Kept(On("Rank.ExcludeTop", kSales, {amount})),
              ranked([&](const Store& s) { return RankFromTop(s) > n; }))
        << n;
    EXPECT_EQ(Kept(On("Rank.ExcludeBottom", kSales, {amount})),
              ranked([&](const Store& s) { return RankFromBottom(s) > n; }))
        << n;
    EXPECT_EQ(Kept(On("Rank.Equals", kSales, {amount})),
              ranked([&](const Store& s) { return RankFromTop(s) == n; }))
        << n;
    EXPECT_EQ(Kept(On("Rank.DifferentFrom", kSales, {amount})),
              ranked([&](const Store& s) { return RankFromTop(s) != n; }))
        << n;
    for (int high = 0; high <= 12; ++high) {
      const std::string to = std::to_string(high);
      EXPECT_EQ(Kept(On("Rank.Between", kSales, {amount, to})), ranked([&](const Store& s) {
                  return RankFromTop(s) >= n && RankFromTop(s) <= high;
                }))
          << n << ".." << high;
      EXPECT_EQ(Kept(On("Rank.NotBetween", kSales, {amount, to})),
                ranked([&](const Store& s) { return RankFromTop(s) < n || RankFromTop(s) > high; }))
          << n << ".." << high;
    }
  }
}

TEST(MetricQualification, PercentOperatorsAreRanksOfTheConvertedAmounts) {
  // 10 stores have sales: 20% stands for rank 2, 50% for rank 5.
  EXPECT_EQ(Kept(On("Percent.Top", kSales, {"20%"})), (std::set<int64_t>{2, 3, 5, 6}));
  EXPECT_EQ(Kept(On("Percent.Between", kSales, {"20%", "50%"})),
            (std::set<int64_t>{1, 2, 3, 6, 9}));

  const std::vector<int> percents = {0, 5, 10, 15, 20, 25, 33, 40, 50, 75, 99, 100};
  auto ranked = [](const std::function<bool(const Store&)>& holds) {
    return StoresWhere([&](const Store& s) { return s.sales && holds(s); });
  };
  for (const int p : percents) {
    const int k = RankOfPercent(p);
    const std::string amount = std::to_string(p) + "%";
    EXPECT_EQ(Kept(On("Percent.Top", kSales, {amount})),
              ranked([&](const Store& s) { return RankFromTop(s) <= k; }))
        << p;
    EXPECT_EQ(Kept(On("Percent.Bottom", kSales, {amount})),
              ranked([&](const Store& s) { return RankFromBottom(s) <= k; }))
        << p;
    EXPECT_EQ(Kept(On("Percent.ExcludeTop", kSales, {amount})),
              ranked([&](const Store& s) { return RankFromTop(s) > k; }))
        << p;
    EXPECT_EQ(Kept(On("Percent.ExcludeBottom", kSales, {amount})),
              ranked([&](const Store& s) { return RankFromBottom(s) > k; }))
        << p;
    EXPECT_EQ(Kept(On("Percent.Equals", kSales, {amount})),
              ranked([&](const Store& s) { return RankFromTop(s) == k; }))
        << p;
    EXPECT_EQ(Kept(On("Percent.DifferentFrom", kSales, {amount})),
              ranked([&](const Store& s) { return RankFromTop(s) != k; }))
        << p;
    for (const int high : percents) {
      const int h = RankOfPercent(high);
      const std::string to = std::to_string(high) + "%";
      EXPECT_EQ(Kept(On("Percent.Between", kSales, {amount, to})),
                ranked([&](const Store& s) { return RankFromTop(s) >= k && RankFromTop(s) <= h; }))
          << p << ".." << high;
      EXPECT_EQ(Kept(On("Percent.NotBetween", kSales, {amount, to})),
                ranked([&](const Store& s) { return RankFromTop(s) < k || RankFromTop(s) > h; }))
          << p << ".." << high;
    }
  }
}

TEST(MetricQualification, PercentAmountsMayBeFractionsOrPercentages) {
  const std::set<int64_t> forty = Kept(On("Percent.Top", kSales, {"40%"}));
  EXPECT_EQ(Kept(On("Percent.Top", kSales, {"0.4"})), forty);
  EXPECT_EQ(Kept(On("Percent.Top", kSales, {"40"})), forty);
  EXPECT_EQ(forty, (std::set<int64_t>{2, 3, 5, 6}));  // rank 4 is within the tie at rank 2
}

TEST(MetricQualification, AndOrNotCombineConditionsRankedOverAllGroups) {
  // The top 5 by sales among all stores, then those with cost below 60: not the top 5 of the
  // stores with cost below 60.
  const Json cheap_and_best =
      Node("And", {On("Rank.Top", kSales, {"5"}), On("Less", kCost, {"60"})});
  EXPECT_EQ(Kept(cheap_and_best), StoresWhere([](const Store& s) {
              return s.sales && RankFromTop(s) <= 5 && s.cost && *s.cost < 60;
            }));
  EXPECT_EQ(Kept(cheap_and_best), (std::set<int64_t>{1, 2, 5}));

  const Json either = Node("Or", {On("Rank.Bottom", kSales, {"1"}), On("IsNull", kCost, {})});
  EXPECT_EQ(Kept(either), (std::set<int64_t>{3, 8}));

  // Not of a rank keeps the unranked groups too, unlike ExcludeTop.
  EXPECT_EQ(Kept(Node("Not", {On("Rank.Top", kSales, {"2"})})),
            StoresWhere([](const Store& s) { return !s.sales || RankFromTop(s) > 2; }));
}

void ExpectRefused(const Json& expression, const std::string& message,
                   const std::vector<std::string>& request_ids = {kSales, kCost}) {
  try {
    CompileMetricQualification(expression, request_ids);
    ADD_FAILURE() << DumpJson(expression) << " was accepted";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kInvalidInput) << DumpJson(expression);
    EXPECT_EQ(std::string(error.what()), message) << DumpJson(expression);
  }
}

TEST(MetricQualification, MalformedExpressionsAreInvalidInput) {
  const Json attribute = {{"type", "attribute"}, {"id", kStore}};
  ExpectRefused(Node("Rank.Top", {attribute, Real("3")}),
                "In a metric qualification, the first operand of Rank.Top must be a metric, but "
                "it is attribute");
  ExpectRefused(Node("Greater", {Real("3"), Metric(kSales)}),
                "In a metric qualification, the first operand of Greater must be a metric, but "
                "it is constant");
  ExpectRefused(
      On("Greater", kAbsent, {"1"}),
      "Failed to find the metric " + kAbsent + " of a metric qualification in the query's metrics");
  ExpectRefused(
      On("Greater", kCost, {"1"}),
      "Failed to find the metric " + kCost + " of a metric qualification in the query's metrics",
      {kSales});
  ExpectRefused(On("Betwen", kSales, {"1", "2"}), "Invalid operator - Betwen");
  ExpectRefused(On("Rank.Highest", kSales, {"1"}), "Invalid operator - Rank.Highest");
  ExpectRefused(On("Greater", kSales, {}), "There should be 2 operands for operator - Greater");
  ExpectRefused(On("Between", kSales, {"1"}), "There should be 3 operands for operator - Between");
  ExpectRefused(On("IsNull", kSales, {"1"}), "There should be 1 operands for operator - IsNull");
  ExpectRefused(On("Rank.Top", kSales, {"1", "2"}),
                "There should be 2 operands for operator - Rank.Top");
  ExpectRefused(On("Percent.Between", kSales, {"10%"}),
                "There should be 3 operands for operator - Percent.Between");
  ExpectRefused(On("In", kSales, {}), "There should be 2 operands for operator - In");
  ExpectRefused(Node("Not", {}), "There should be 1 operands for operator - Not");
  ExpectRefused(Node("And", {On("IsNull", kSales, {})}),
                "There should be at least 2 operands for operator - And");
  ExpectRefused(On("Greater", kSales, {"lots"}), "Invalid constant value - lots");
  ExpectRefused(
      Node("In", {Metric(kSales),
                  {{"type", "constants"}, {"dataType", "Real"}, {"values", {"1", "two"}}}}),
      "Invalid constant value - two");
  ExpectRefused(Node("Greater", {Metric(kSales),
                                 {{"type", "constant"}, {"dataType", "Char"}, {"value", "1"}}}),
                "Invalid constant data type for metric qualification - Char");
  ExpectRefused(On("Rank.Top", kSales, {"2.5"}),
                "Invalid constant value - a rank needs a whole number");
  ExpectRefused(On("Percent.Top", kSales, {"many%"}), "Invalid constant value - many%");
  ExpectRefused(Node("Greater", {Metric(kSales), Metric(kCost)}),
                "The operands type combination of [metric, metric] is not supported for "
                "operator - Greater");
  ExpectRefused(On("Like", kSales, {"1"}),
                "The operands type combination of [metric, constant] is not supported for "
                "operator - Like");
  ExpectRefused(Json("Rank.Top"), "A qualification must be an object with an operator");
}

}  // namespace
}  // namespace tessera::engine
