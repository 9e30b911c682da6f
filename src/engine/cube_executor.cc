#include "engine/cube_executor.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "core/error.h"
#include "core/parallel.h"
#include "engine/arithmetic.h"
#include "engine/group_aggregator.h"
#include "engine/row_selection.h"

namespace tessera::engine {
namespace {

using Values = std::vector<std::optional<double>>;

void CheckAttributes(const Dataset& dataset, const std::vector<int>& attributes) {
  for (size_t i = 0; i < attributes.size(); ++i) {
    const int index = attributes[i];
    if (index < 0 || static_cast<size_t>(index) >= dataset.attributes().size()) {
      throw Error(ErrorCode::kInvalidInput,
                  "no attribute " + std::to_string(index) + " in the dataset");
    }
    if (std::find(attributes.begin(), attributes.begin() + i, index) != attributes.begin() + i) {
      throw Error(ErrorCode::kInvalidInput,
                  "attribute '" + dataset.attribute(index).name + "' is requested twice");
    }
  }
}

// The values of every request of the query, one per group: columns aggregated, formulas computed.
class MetricValues {
 public:
  MetricValues(const Dataset& dataset, const CubeQuery& query) : query_(query) {
    for (size_t r = 0; r < query.metrics.size(); ++r) {
      const MetricRequest& request = query.metrics[r];
      if (!by_id_.emplace(request.id, r).second) {
        throw Error(ErrorCode::kInvalidInput, "metric '" + request.id + "' is requested twice");
      }
      if (request.column >= 0) {
        if (static_cast<size_t>(request.column) >= dataset.metrics().size()) {
          throw Error(ErrorCode::kInvalidInput,
                      "no metric " + std::to_string(request.column) + " in the dataset");
        }
        column_of_request_[r] = columns_.size();
        columns_.push_back(request.column);
      } else if (!request.formula.root) {
        throw Error(ErrorCode::kInvalidInput,
                    "metric '" + request.id + "' has neither a column nor a formula");
      }
    }
    for (const auto& request : query.metrics) {
      if (request.column >= 0) continue;
      for (const auto& reference : request.formula.References()) {
        if (!by_id_.contains(reference)) {
          throw Error(ErrorCode::kInvalidInput, "metric '" + request.id + "' uses '" + reference +
                                                    "', which the query does not request");
        }
      }
    }
  }

  const std::vector<int>& columns() const { return columns_; }

  std::vector<Values> Compute(const Groups& groups) {
    groups_ = &groups;
    results_.assign(query_.metrics.size(), {});
    state_.assign(query_.metrics.size(), kTodo);
    for (size_t r = 0; r < query_.metrics.size(); ++r) Resolve(r);
    return std::move(results_);
  }

 private:
  enum State { kTodo, kBusy, kDone };

  const Values& Resolve(size_t r) {
    if (state_[r] == kDone) return results_[r];
    if (state_[r] == kBusy) {
      throw Error(ErrorCode::kInvalidInput, "metric '" + query_.metrics[r].id + "' uses itself");
    }
    state_[r] = kBusy;
    Values values(groups_->count);
    if (auto it = column_of_request_.find(r); it != column_of_request_.end()) {
      for (size_t g = 0; g < groups_->count; ++g) {
        if (groups_->present[it->second][g]) values[g] = groups_->values[it->second][g];
      }
    } else {
      for (const auto& reference : query_.metrics[r].formula.References())
        Resolve(by_id_.at(reference));
      const model::ArithmeticNode& formula = *query_.metrics[r].formula.root;
      for (size_t g = 0; g < groups_->count; ++g) {
        values[g] = EvaluateArithmetic(formula, [&](const std::string& reference) {
          return results_[by_id_.at(reference)][g];
        });
      }
    }
    results_[r] = std::move(values);
    state_[r] = kDone;
    return results_[r];
  }

  const CubeQuery& query_;
  std::map<std::string, size_t> by_id_;
  std::map<size_t, size_t> column_of_request_;
  std::vector<int> columns_;
  const Groups* groups_ = nullptr;
  std::vector<Values> results_;
  std::vector<State> state_;
};

// Rank leaves (engine/cube_query.h): the groups of rank <= the wanted count, found as those at
// least as good as the wanted-th best value, which keeps ties.
std::vector<uint8_t> RankKeep(const Values& values, CompareOp op,
                              const std::vector<double>& numbers) {
  std::vector<double> present;
  for (const auto& value : values) {
    if (value) present.push_back(*value);
  }
  std::vector<uint8_t> keep(values.size(), 0);
  const bool top = op == CompareOp::kRankTop || op == CompareOp::kPercentTop;
  const bool percent = op == CompareOp::kPercentTop || op == CompareOp::kPercentBottom;
  // amount × N / 100 rather than amount / 100 × N: exact for whole percents, so 7% of 100 is 7.
  double wanted = percent ? std::ceil(numbers[0] * static_cast<double>(present.size()) / 100.0)
                          : std::floor(numbers[0]);
  if (percent && numbers.size() > 1) wanted += numbers[1];
  if (!(wanted >= 1) || present.empty()) return keep;
  // Compared as doubles first: a huge amount does not fit a size_t.
  const size_t n =
      wanted >= static_cast<double>(present.size()) ? present.size() : static_cast<size_t>(wanted);
  auto compare = [top](double a, double b) { return top ? a > b : a < b; };
  std::nth_element(present.begin(), present.begin() + (n - 1), present.end(), compare);
  const double threshold = present[n - 1];
  for (size_t g = 0; g < values.size(); ++g) {
    if (values[g]) keep[g] = top ? *values[g] >= threshold : *values[g] <= threshold;
  }
  return keep;
}

// The metrics a limit's leaves index, and how messages name them.
struct LimitScope {
  const std::vector<const Values*>& metrics;
  const char* limit_name;   // "a metric limit"
  const char* metric_noun;  // "returned metrics"
};

std::vector<uint8_t> LimitKeep(const MetricLimit& limit, const LimitScope& scope, size_t count) {
  switch (limit.kind) {
    case RowFilter::Kind::kMetric: {
      if (limit.metric < 0 || static_cast<size_t>(limit.metric) >= scope.metrics.size()) {
        throw Error(ErrorCode::kInvalidInput,
                    std::string(scope.limit_name) + " names metric " +
                        std::to_string(limit.metric) + ", but the query has " +
                        std::to_string(scope.metrics.size()) + " " + scope.metric_noun);
      }
      const Values& values = *scope.metrics[limit.metric];
      if (limit.op >= CompareOp::kRankTop) {
        if (limit.numbers.empty())
          throw Error(ErrorCode::kInvalidInput, "a rank limit needs its amount");
        return RankKeep(values, limit.op, limit.numbers);
      }
      std::vector<uint8_t> keep(count);
      for (size_t g = 0; g < count; ++g)
        keep[g] = CompareNumber(values[g], limit.op, limit.numbers);
      return keep;
    }
    case RowFilter::Kind::kNot: {
      if (limit.children.size() != 1)
        throw Error(ErrorCode::kInvalidInput, "Not takes one condition");
      auto keep = LimitKeep(limit.children[0], scope, count);
      for (auto& k : keep) k = !k;
      return keep;
    }
    case RowFilter::Kind::kAnd:
    case RowFilter::Kind::kOr: {
      const bool is_and = limit.kind == RowFilter::Kind::kAnd;
      std::vector<uint8_t> keep(count, is_and ? 1 : 0);
      for (const auto& child : limit.children) {
        const auto child_keep = LimitKeep(child, scope, count);
        for (size_t g = 0; g < count; ++g)
          keep[g] = is_and ? (keep[g] & child_keep[g]) : (keep[g] | child_keep[g]);
      }
      return keep;
    }
    case RowFilter::Kind::kCodes:
      break;
  }
  throw Error(ErrorCode::kInvalidInput, "a metric limit can only compare metrics");
}

class RowOrder {
 public:
  RowOrder(const Dataset& dataset, const CubeQuery& query, const Groups& groups,
           const std::vector<const Values*>& returned)
      : dataset_(dataset), query_(query), groups_(groups), returned_(returned) {
    for (const auto& key : query.sort) Check(key);
  }

  bool operator()(uint32_t a, uint32_t b) const {
    for (const auto& key : query_.sort) {
      const int order = Compare(key, a, b);
      if (order != 0) return key.descending ? order > 0 : order < 0;
    }
    for (const auto& codes : groups_.codes) {
      if (codes[a] != codes[b]) return codes[a] < codes[b];
    }
    return a < b;
  }

 private:
  void Check(const SortKey& key) const {
    if (key.kind == SortKey::Kind::kMetric) {
      if (key.index < 0 || static_cast<size_t>(key.index) >= returned_.size()) {
        throw Error(ErrorCode::kInvalidInput, "a sort names a metric the result does not have");
      }
      return;
    }
    if (key.index < 0 || static_cast<size_t>(key.index) >= query_.attributes.size()) {
      throw Error(ErrorCode::kInvalidInput, "a sort names an attribute the result does not have");
    }
    const auto& dictionary = dataset_.attribute(query_.attributes[key.index]).dictionary;
    if (key.form < 0 || static_cast<size_t>(key.form) >= dictionary.forms().size()) {
      throw Error(ErrorCode::kInvalidInput, "a sort names a form the attribute does not have");
    }
  }

  int Compare(const SortKey& key, uint32_t a, uint32_t b) const {
    if (key.kind == SortKey::Kind::kAttribute) {
      const auto& dictionary = dataset_.attribute(query_.attributes[key.index]).dictionary;
      const uint32_t ra = dictionary.Rank(key.form, groups_.codes[key.index][a]);
      const uint32_t rb = dictionary.Rank(key.form, groups_.codes[key.index][b]);
      return ra < rb ? -1 : (ra > rb ? 1 : 0);
    }
    const auto& va = (*returned_[key.index])[a];
    const auto& vb = (*returned_[key.index])[b];
    if (!va || !vb) {
      // Nulls last in either direction.
      if (!va && !vb) return 0;
      const int null_last = !va ? 1 : -1;
      return key.descending ? -null_last : null_last;
    }
    return *va < *vb ? -1 : (*va > *vb ? 1 : 0);
  }

  const Dataset& dataset_;
  const CubeQuery& query_;
  const Groups& groups_;
  const std::vector<const Values*>& returned_;
};

// Both limits see every aggregated group (ranks are among all of them), then are ANDed.
std::vector<uint8_t> KeptGroups(const CubeQuery& query, size_t count,
                                const std::vector<const Values*>& requested,
                                const std::vector<const Values*>& returned) {
  std::vector<uint8_t> keep(count, 1);
  if (query.limit_filter) {
    keep = LimitKeep(*query.limit_filter, {returned, "a metric limit", "returned metrics"}, count);
  }
  if (query.group_filter) {
    const std::vector<uint8_t> group_keep =
        LimitKeep(*query.group_filter, {requested, "a group filter", "metric requests"}, count);
    for (size_t g = 0; g < count; ++g) keep[g] &= group_keep[g];
  }
  return keep;
}

std::vector<uint32_t> OrderedRows(const Dataset& dataset, const CubeQuery& query,
                                  const Groups& groups, const std::vector<const Values*>& requested,
                                  const std::vector<const Values*>& returned) {
  const std::vector<uint8_t> keep = KeptGroups(query, groups.count, requested, returned);
  std::vector<uint32_t> rows;
  for (uint32_t g = 0; g < groups.count; ++g) {
    if (keep[g]) rows.push_back(g);
  }
  RowOrder order(dataset, query, groups, returned);
  const size_t top = query.top.value_or(rows.size());
  if (query.sort.empty()) {
    // Groups come out in code order, which is the default order.
  } else if (top < rows.size()) {
    std::partial_sort(rows.begin(), rows.begin() + top, rows.end(), order);
  } else {
    std::sort(rows.begin(), rows.end(), order);
  }
  if (top < rows.size()) rows.resize(top);
  return rows;
}

}  // namespace

ResultSet ExecuteCubeQuery(const std::shared_ptr<const Dataset>& dataset, const CubeQuery& query,
                           ThreadPool* pool) {
  if (!dataset) throw Error(ErrorCode::kInvalidInput, "no dataset");
  CheckAttributes(*dataset, query.attributes);
  MetricValues metric_values(*dataset, query);
  const RowSelector selector(*dataset, query.filter);
  const Groups groups = AggregateGroups(*dataset, query.attributes, metric_values.columns(),
                                        selector, pool, query.deadline);
  const std::vector<Values> values = metric_values.Compute(groups);

  ResultSet result;
  result.dataset = dataset;
  result.attributes = query.attributes;
  std::vector<const Values*> requested;
  std::vector<const Values*> returned;
  for (size_t r = 0; r < query.metrics.size(); ++r) {
    requested.push_back(&values[r]);
    if (query.metrics[r].hidden) continue;
    result.metrics.push_back(query.metrics[r]);
    returned.push_back(&values[r]);
  }
  const std::vector<uint32_t> rows = OrderedRows(*dataset, query, groups, requested, returned);
  result.row_count = rows.size();
  for (const auto& codes : groups.codes) {
    std::vector<uint32_t> column(rows.size());
    for (size_t i = 0; i < rows.size(); ++i) column[i] = codes[rows[i]];
    result.codes.push_back(std::move(column));
  }
  for (const Values* metric : returned) {
    std::vector<double> column(rows.size(), 0);
    std::vector<uint8_t> present(rows.size(), 0);
    ResultSet::Range range;
    for (size_t i = 0; i < rows.size(); ++i) {
      const auto& value = (*metric)[rows[i]];
      if (!value) continue;
      column[i] = *value, present[i] = 1;
      if (!range.min || *value < *range.min) range.min = *value;
      if (!range.max || *value > *range.max) range.max = *value;
    }
    result.ranges.push_back(range);
    result.values.push_back(std::move(column));
    result.present.push_back(std::move(present));
  }
  return result;
}

namespace {

std::vector<uint8_t> PresentCodes(const Dataset& dataset, int attribute, const RowFilter& filter,
                                  ThreadPool* pool) {
  const AttributeColumn& column = dataset.attribute(attribute);
  const RowSelector selector(dataset, filter);
  if (selector.SelectsAll()) return std::vector<uint8_t>(column.dictionary.size(), 1);
  std::vector<std::vector<uint8_t>> seen(ParallelWorkers(pool));
  if (!selector.SelectsNone()) {
    constexpr size_t kChunk = 1 << 16;
    ParallelFor(
        pool, (dataset.row_count() + kChunk - 1) / kChunk, [&](size_t worker, size_t chunk) {
          auto& mine = seen[worker];
          if (mine.empty()) mine.assign(column.dictionary.size(), 0);
          std::vector<uint32_t> rows(RowSelector::kBatch);
          const size_t end = std::min(dataset.row_count(), (chunk + 1) * kChunk);
          for (size_t begin = chunk * kChunk; begin < end; begin += RowSelector::kBatch) {
            const size_t n =
                selector.Select(begin, std::min(end, begin + RowSelector::kBatch), rows.data());
            VisitCodes(column.codes, [&](const auto* codes) {
              for (size_t j = 0; j < n; ++j) mine[codes[rows[j]]] = 1;
            });
          }
        });
  }
  std::vector<uint8_t> present(column.dictionary.size(), 0);
  for (const auto& mine : seen) {
    for (size_t code = 0; code < mine.size(); ++code) present[code] |= mine[code];
  }
  return present;
}

}  // namespace

ElementList ListElements(const Dataset& dataset, int attribute, const RowFilter& filter,
                         const ElementSearch& search, ThreadPool* pool) {
  if (attribute < 0 || static_cast<size_t>(attribute) >= dataset.attributes().size()) {
    throw Error(ErrorCode::kInvalidInput,
                "no attribute " + std::to_string(attribute) + " in the dataset");
  }
  const Dictionary& dictionary = dataset.attribute(attribute).dictionary;
  std::vector<int> forms = search.forms;
  if (forms.empty()) forms.push_back(std::max(dictionary.FormIndex("DESC"), 0));
  for (const int form : forms) {
    if (form < 0 || static_cast<size_t>(form) >= dictionary.forms().size()) {
      throw Error(ErrorCode::kInvalidInput, "the attribute has no form " + std::to_string(form));
    }
  }
  const std::vector<uint8_t> present = PresentCodes(dataset, attribute, filter, pool);
  std::vector<uint8_t> matches(present.size(), search.pattern.empty() ? 1 : 0);
  if (!search.pattern.empty()) {
    const TextOp op = search.prefix ? TextOp::kBeginsWith : TextOp::kContains;
    for (const int form : forms) {
      const std::vector<uint8_t> form_matches =
          MaskOfText(dictionary, form, op, search.pattern, false);
      for (size_t code = 0; code < matches.size(); ++code) matches[code] |= form_matches[code];
    }
  }
  ElementList list;
  const size_t limit = search.limit.value_or(SIZE_MAX);
  for (uint32_t code = 0; code < present.size(); ++code) {
    if (!present[code] || !matches[code]) continue;
    if (list.total >= search.offset && list.codes.size() < limit) list.codes.push_back(code);
    ++list.total;
  }
  return list;
}

}  // namespace tessera::engine
