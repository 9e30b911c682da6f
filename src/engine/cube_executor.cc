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

std::vector<uint8_t> RankKeep(const Values& values, CompareOp op, double amount) {
  std::vector<double> present;
  for (const auto& value : values) {
    if (value) present.push_back(*value);
  }
  std::vector<uint8_t> keep(values.size(), 0);
  const bool top = op == CompareOp::kRankTop || op == CompareOp::kPercentTop;
  const bool percent = op == CompareOp::kPercentTop || op == CompareOp::kPercentBottom;
  const double wanted = percent ? std::ceil(amount / 100.0 * present.size()) : std::floor(amount);
  if (wanted < 1 || present.empty()) return keep;
  const size_t n = std::min(present.size(), static_cast<size_t>(wanted));
  auto compare = [top](double a, double b) { return top ? a > b : a < b; };
  std::nth_element(present.begin(), present.begin() + (n - 1), present.end(), compare);
  const double threshold = present[n - 1];
  for (size_t g = 0; g < values.size(); ++g) {
    if (values[g]) keep[g] = top ? *values[g] >= threshold : *values[g] <= threshold;
  }
  return keep;
}

std::vector<uint8_t> LimitKeep(const MetricLimit& limit, const std::vector<const Values*>& returned,
                               size_t count) {
  switch (limit.kind) {
    case RowFilter::Kind::kMetric: {
      if (limit.metric < 0 || static_cast<size_t>(limit.metric) >= returned.size()) {
        throw Error(ErrorCode::kInvalidInput,
                    "a metric limit names a metric the result does not have");
      }
      const Values& values = *returned[limit.metric];
      if (limit.op >= CompareOp::kRankTop) {
        if (limit.numbers.empty())
          throw Error(ErrorCode::kInvalidInput, "a rank limit needs its amount");
        return RankKeep(values, limit.op, limit.numbers[0]);
      }
      std::vector<uint8_t> keep(count);
      for (size_t g = 0; g < count; ++g)
        keep[g] = CompareNumber(values[g], limit.op, limit.numbers);
      return keep;
    }
    case RowFilter::Kind::kNot: {
      if (limit.children.size() != 1)
        throw Error(ErrorCode::kInvalidInput, "Not takes one condition");
      auto keep = LimitKeep(limit.children[0], returned, count);
      for (auto& k : keep) k = !k;
      return keep;
    }
    case RowFilter::Kind::kAnd:
    case RowFilter::Kind::kOr: {
      const bool is_and = limit.kind == RowFilter::Kind::kAnd;
      std::vector<uint8_t> keep(count, is_and ? 1 : 0);
      for (const auto& child : limit.children) {
        const auto child_keep = LimitKeep(child, returned, count);
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

std::vector<uint32_t> OrderedRows(const Dataset& dataset, const CubeQuery& query,
                                  const Groups& groups,
                                  const std::vector<const Values*>& returned) {
  std::vector<uint8_t> keep(groups.count, 1);
  if (query.limit_filter) keep = LimitKeep(*query.limit_filter, returned, groups.count);
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
  const Groups groups =
      AggregateGroups(*dataset, query.attributes, metric_values.columns(), selector, pool);
  const std::vector<Values> values = metric_values.Compute(groups);

  ResultSet result;
  result.dataset = dataset;
  result.attributes = query.attributes;
  std::vector<const Values*> returned;
  for (size_t r = 0; r < query.metrics.size(); ++r) {
    if (query.metrics[r].hidden) continue;
    result.metrics.push_back(query.metrics[r]);
    returned.push_back(&values[r]);
  }
  const std::vector<uint32_t> rows = OrderedRows(*dataset, query, groups, returned);
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
  int form = search.form;
  if (form < 0) form = std::max(dictionary.FormIndex("DESC"), 0);
  if (static_cast<size_t>(form) >= dictionary.forms().size()) {
    throw Error(ErrorCode::kInvalidInput, "the attribute has no form " + std::to_string(form));
  }
  const std::vector<uint8_t> present = PresentCodes(dataset, attribute, filter, pool);
  const std::vector<uint8_t> matches =
      search.pattern.empty()
          ? std::vector<uint8_t>(present.size(), 1)
          : MaskOfText(dictionary, form, search.prefix ? TextOp::kBeginsWith : TextOp::kContains,
                       search.pattern, false);
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
