// Metric limits: the groups each limit keeps equal a plain computation on the group sums written
// here, and malformed limits are refused with their exact messages.
#include "engine/metric_limits.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <random>
#include <set>

#include "core/error.h"
#include "engine/cube_executor.h"
#include "engine/sql/dataset_builder.h"

namespace tessera::engine {
namespace {

using model::DataType;

const std::string kCity = "A0000000000000000000000000000011";
const std::string kRevenue = "B0000000000000000000000000000011";
const std::string kUnits = "B0000000000000000000000000000012";
const std::string kOther = "B0000000000000000000000000000013";

struct Fixture {
  std::map<int64_t, double> revenue;  // per city
  std::shared_ptr<const Dataset> dataset;
};

const Fixture& Data() {
  static const Fixture fixture = [] {
    Fixture f;
    sql::MetricSpec revenue;
    revenue.id = kRevenue;
    revenue.name = "Revenue";
    sql::MetricSpec units;
    units.id = kUnits;
    units.name = "Units";
    sql::DatasetBuilder builder({{kCity, "City", {{"ID", DataType::kInteger}}}}, {revenue, units});
    std::mt19937 random(23);
    for (int i = 0; i < 2000; ++i) {
      const int64_t city = random() % 20;
      const double value = static_cast<double>(random() % 10000) / 100;
      f.revenue[city] += value;
      builder.AddRow({Cell(city), Cell(value), Cell(1.0)});
    }
    f.dataset = std::make_shared<const Dataset>(builder.Finish());
    return f;
  }();
  return fixture;
}

// The cities a query grouped by city, returning revenue and units, keeps under `limits`.
std::set<int64_t> Kept(const Json& limits) {
  CubeQuery query;
  query.attributes = {0};
  for (const std::string& id : {kRevenue, kUnits}) {
    MetricRequest request;
    request.id = id;
    request.column = Data().dataset->MetricIndex(id);
    query.metrics.push_back(request);
  }
  query.limit_filter = CompileMetricLimits(limits, {kRevenue, kUnits});
  const ResultSet result = ExecuteCubeQuery(Data().dataset, query, nullptr);
  std::set<int64_t> cities;
  for (size_t r = 0; r < result.row_count; ++r) {
    const Cell& id = Data().dataset->attribute(0).dictionary.Value(0, result.codes[0][r]);
    cities.insert(std::get<int64_t>(id));
  }
  return cities;
}

std::set<int64_t> Expected(const std::function<bool(double)>& holds) {
  std::set<int64_t> cities;
  for (const auto& [city, sum] : Data().revenue) {
    if (holds(sum)) cities.insert(city);
  }
  return cities;
}

std::set<int64_t> Best(size_t n) {
  std::vector<std::pair<double, int64_t>> sums;
  for (const auto& [city, sum] : Data().revenue) sums.emplace_back(sum, city);
  std::sort(sums.rbegin(), sums.rend());
  std::set<int64_t> cities;
  for (size_t i = 0; i < n; ++i) cities.insert(sums[i].second);
  return cities;
}

Json Leaf(const std::string& op, const std::string& metric, std::vector<Json> constants) {
  Json operands = Json::array({{{"type", "metric"}, {"id", metric}}});
  for (auto& constant : constants) operands.push_back(std::move(constant));
  return {{"operator", op}, {"operands", operands}};
}

Json Real(const std::string& value) {
  return {{"type", "constant"}, {"dataType", "Real"}, {"value", value}};
}

TEST(MetricLimits, ComparisonsRanksAndPercentsKeepTheRightGroups) {
  const double middle = Data().revenue.begin()->second;
  EXPECT_EQ(Kept({{kRevenue, Leaf(">=", kRevenue, {Real(std::to_string(middle))})}}),
            Expected([&](double sum) { return sum >= std::stod(std::to_string(middle)); }));
  EXPECT_EQ(Kept({{kRevenue, Leaf("Rank.Top", kRevenue, {Real("3")})}}), Best(3));
  EXPECT_EQ(Kept({{kRevenue, Leaf("Percent.Top", kRevenue, {Real("20%")})}}), Best(4));
  EXPECT_EQ(Kept({{kRevenue, Leaf("Percent.Top", kRevenue, {Real("0.2")})}}), Best(4));
  const Json between = Leaf("Between", kRevenue, {Real("4000"), Real("6000")});
  const Json not_between = {{"operator", "Not"}, {"operands", {between}}};
  EXPECT_EQ(Kept({{kRevenue, not_between}}),
            Expected([](double sum) { return sum < 4000 || sum > 6000; }));
  // Two keys are ANDed; units count rows, so > 90 keeps cities with more than 90 rows.
  const std::set<int64_t> both = Kept({{kRevenue, Leaf("Rank.Top", kRevenue, {Real("10")})},
                                       {kUnits, Leaf("Greater", kUnits, {Real("1000000")})}});
  EXPECT_TRUE(both.empty());
  EXPECT_EQ(Kept(nullptr).size(), Data().revenue.size());
  EXPECT_EQ(Kept({{kRevenue, Leaf("Rank.Top", kRevenue, {Real("0")})}}).size(), 0u);
}

void ExpectRefused(const Json& limits, ErrorCode code, const std::string& message) {
  try {
    CompileMetricLimits(limits, {kRevenue, kUnits});
    ADD_FAILURE() << DumpJson(limits) << " was accepted";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), code) << DumpJson(limits);
    EXPECT_EQ(std::string(error.what()), message) << DumpJson(limits);
  }
}

TEST(MetricLimits, MalformedLimitsAreRefusedWithTheSpecsMessages) {
  ExpectRefused({{"nope", Leaf(">", kRevenue, {Real("1")})}}, ErrorCode::kInvalidInput,
                "Invalid metric id - nope");
  ExpectRefused({{kOther, Leaf(">", kOther, {Real("1")})}}, ErrorCode::kInvalidInput,
                "Failed to find the metric " + kOther + " in the report or cube.");
  ExpectRefused({{kRevenue, Leaf(">", kUnits, {Real("1")})}}, ErrorCode::kInvalidInput,
                "In metric limits, the metric id " + kUnits +
                    " is in a first operand and should be same with corresponding key " + kRevenue);
  const Json on_attribute = {{"operator", ">"},
                             {"operands", {{{"type", "attribute"}, {"id", kCity}}, Real("1")}}};
  ExpectRefused({{kRevenue, on_attribute}}, ErrorCode::kInvalidInput,
                "In metric limits, target object must be metric, but the first operand is "
                "attribute for key " +
                    kRevenue);
  ExpectRefused({{kRevenue, Leaf("Rank.ExcludeTop", kRevenue, {Real("1")})}},
                ErrorCode::kNotSupported, "Rank.ExcludeTop is not supported in metric limits");
  // In and NotIn are metric qualifications of filters, not limits.
  ExpectRefused({{kRevenue, Leaf("In", kRevenue, {Real("1")})}}, ErrorCode::kNotSupported,
                "In is not supported in metric limits");
  ExpectRefused({{kRevenue, Leaf("Rank.Top", kRevenue, {Real("2.5")})}}, ErrorCode::kInvalidInput,
                "Invalid constant value - a rank needs a whole number");
  ExpectRefused({{kRevenue, Leaf(">", kRevenue, {Real("x")})}}, ErrorCode::kInvalidInput,
                "Invalid constant value - x");
  ExpectRefused({{kRevenue, Leaf(">", kRevenue, {})}}, ErrorCode::kInvalidInput,
                "There should be 2 operands for operator - Greater");
  ExpectRefused({{kRevenue, Leaf("Between", kRevenue, {Real("1")})}}, ErrorCode::kInvalidInput,
                "There should be 3 operands for operator - Between");
  ExpectRefused(Json::array(), ErrorCode::kInvalidInput,
                "metricLimits must be an object of metric ids to conditions");
}

}  // namespace
}  // namespace tessera::engine
