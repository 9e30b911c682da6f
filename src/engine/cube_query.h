// engine/cube_query.h
//
// What the engine answers on a Dataset: a CubeQuery names the attributes to aggregate to, the
// metrics, a row filter evaluated before aggregation, metric limits evaluated after it, a sort and
// an optional top-N. Everything is by dataset index, already validated and resolved by the caller
// (the services translate the JSON of instance requests and dashboards into this).
//
// Row filters (RowFilter):
//   kAnd / kOr / kNot  combine children (kAnd of none keeps every row);
//   kCodes             the rows whose `attribute` code has a true entry in `keep` (one entry per
//                      element): element lists, and any predicate on forms, which the caller or
//                      MaskOfForm evaluates once per element, not per row;
//   kMetric            the rows whose own value of dataset metric `metric` satisfies `op` with
//                      `numbers` (a null value satisfies only IsNull).
// Metric limits (MetricLimit) are the same tree evaluated on the aggregated groups, plus rank
// leaves. Two limits can apply, and a group is kept when both hold: `limit_filter`, whose leaves
// name returned metrics (position among the requests that are not hidden), and `group_filter`,
// whose leaves name requests (position in `metrics`, hidden ones included), so that groups can be
// filtered on a metric the result does not show (dashboard metric-qualification selectors: the
// caller adds the metric as a hidden request).
//
// Rank leaves: a group's rank by a metric is 1 + the number of groups with a strictly better
// value (greater for Top, smaller for Bottom), so tied groups share the better rank; a group
// whose value is null has no rank, and no rank leaf keeps it. RankTop n keeps the groups of rank
// <= n (ties kept: possibly more than n groups). PercentTop p keeps those of rank <= ceil(p × N /
// 100) + numbers[1], where N counts the groups with a value and numbers[1] (optional, default 0)
// adjusts the count: -1 means "strictly above the p% position". Bottom likewise from the other
// end. Every leaf, rank leaves included, is evaluated over all aggregated groups, independently of
// the other conditions of either limit: Not(RankTop 3) is every other group (null ones too; And
// it with IsNotNull to drop them), and And(RankTop 10, X > 5) is those of the ten best groups
// overall whose X exceeds 5, not the ten best of the groups whose X exceeds 5.
//
// Metrics: a MetricRequest is a dataset metric (`column`) or a formula over other requests of the
// same query (`formula`, references are request ids; requests a formula uses may be hidden, so
// they are computed but not returned). Division by zero and null operands give null.
//
// Sorting: keys are result attributes (by the rank of one of their forms) or result metrics (nulls
// last whatever the direction); ties are always broken by the result attributes in order by ID,
// so the order is total. Without keys: the attributes by ID form in request order.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/dataset.h"
#include "model/expression.h"

namespace tessera::engine {

enum class CompareOp {
  kEquals,
  kNotEqual,
  kGreater,
  kLess,
  kGreaterEqual,
  kLessEqual,
  kBetween,  // two numbers, inclusive
  kNotBetween,
  kIn,  // any number of numbers
  kNotIn,
  kIsNull,
  kIsNotNull,
  kRankTop,  // metric limits only: numbers[0] = n
  kRankBottom,
  kPercentTop,  // metric limits only: numbers[0] = percent, numbers[1] = count adjustment (opt.)
  kPercentBottom,
};

// Whether `value` (nullopt = null) satisfies `op` with `numbers`; for the comparison operators
// only (not Rank/Percent).
bool CompareNumber(std::optional<double> value, CompareOp op, const std::vector<double>& numbers);

struct RowFilter {
  enum class Kind { kAnd, kOr, kNot, kCodes, kMetric };
  Kind kind = Kind::kAnd;
  std::vector<RowFilter> children;
  int attribute = -1;
  std::vector<uint8_t> keep;  // kCodes: one per element, 1 = keep
  int metric = -1;
  CompareOp op = CompareOp::kEquals;
  std::vector<double> numbers;

  static RowFilter All() { return {}; }
  static RowFilter Codes(int attribute, std::vector<uint8_t> keep);
  static RowFilter Metric(int metric, CompareOp op, std::vector<double> numbers);
  static RowFilter Combine(Kind kind, std::vector<RowFilter> children);
};

using MetricLimit = RowFilter;  // kAnd/kOr/kNot/kMetric over metric indexes (see above)

struct MetricRequest {
  std::string id;
  std::string name;
  int column = -1;                      // a dataset metric, or -1 for a formula
  model::ArithmeticExpression formula;  // references: ids of other requests of the query
  bool hidden = false;                  // computed for formulas, not returned
};

struct SortKey {
  enum class Kind { kAttribute, kMetric };
  Kind kind = Kind::kAttribute;
  int index = 0;  // position among the query's attributes / returned metrics
  int form = 0;   // attributes: the form whose order is used
  bool descending = false;
};

struct CubeQuery {
  std::vector<int> attributes;         // dataset attribute indexes, result order
  std::vector<MetricRequest> metrics;  // result order (hidden ones are dropped from the result)
  RowFilter filter;                    // before aggregation
  std::optional<MetricLimit> limit_filter;  // after aggregation, on returned metric indexes
  // After aggregation, on every metric request's index (hidden ones included); ANDed with
  // limit_filter.
  std::optional<MetricLimit> group_filter;
  std::vector<SortKey> sort;
  std::optional<size_t> top;  // keep the first `top` rows after sorting
  // Past it the computation stops with Error(kTimeout): a request's time budget.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
};

// The frozen answer: columnar, one entry per row in each vector.
struct ResultSet {
  std::shared_ptr<const Dataset> dataset;     // the dictionaries behind the codes
  std::vector<int> attributes;                // dataset attribute indexes
  std::vector<std::vector<uint32_t>> codes;   // per result attribute
  std::vector<MetricRequest> metrics;         // returned metrics
  std::vector<std::vector<double>> values;    // per returned metric
  std::vector<std::vector<uint8_t>> present;  // per returned metric: 0 = null
  // Per returned metric: its smallest and largest value over every row (none when all are null),
  // found once when the result is made, for the headers of every page.
  struct Range {
    std::optional<double> min;
    std::optional<double> max;
  };
  std::vector<Range> ranges;
  size_t row_count = 0;
  // The dataset exists for this result alone (a report's rows), so its memory is the result's.
  bool owns_dataset = false;

  std::optional<double> Value(size_t metric, size_t row) const {
    if (!present[metric][row]) return std::nullopt;
    return values[metric][row];
  }
  size_t MemoryBytes() const;  // with the dataset's when it owns it
};

// The `keep` vector of a kCodes filter for a predicate on one form of an attribute, evaluated
// once per element. `constants` are compared as numbers for numeric forms and as text otherwise
// (dates compare as ISO text); text operators (Like: % and _ wildcards, Contains, BeginsWith,
// EndsWith) are case-insensitive.
enum class TextOp { kLike, kContains, kBeginsWith, kEndsWith };
std::vector<uint8_t> MaskOfForm(const Dictionary& dictionary, int form, CompareOp op,
                                const std::vector<Cell>& constants);
std::vector<uint8_t> MaskOfText(const Dictionary& dictionary, int form, TextOp op,
                                const std::string& pattern, bool negate);

}  // namespace tessera::engine
