#include "engine/row_selection.h"

#include <algorithm>
#include <numeric>
#include <optional>
#include <string>

#include "core/error.h"

namespace tessera::engine {

struct RowSelector::Node {
  RowFilter::Kind kind = RowFilter::Kind::kAnd;
  std::vector<Node> children;
  const CodeColumn* codes = nullptr;
  std::vector<uint8_t> keep;
  std::vector<uint32_t> kept_before;  // kCodes: how many codes below c are kept, c <= size
  const MetricColumn* metric = nullptr;
  CompareOp op = CompareOp::kEquals;
  std::vector<double> numbers;
  bool always = false;  // kCodes: keeps every element
  bool never = false;   // kCodes: keeps no element

  bool IsLeaf() const {
    return kind == RowFilter::Kind::kCodes || kind == RowFilter::Kind::kMetric;
  }
};

namespace {

using Node = RowSelector::Node;

bool IsComparison(CompareOp op) {
  return op != CompareOp::kRankTop && op != CompareOp::kRankBottom &&
         op != CompareOp::kPercentTop && op != CompareOp::kPercentBottom;
}

size_t NumbersNeeded(CompareOp op) {
  switch (op) {
    case CompareOp::kIsNull:
    case CompareOp::kIsNotNull:
    case CompareOp::kIn:
    case CompareOp::kNotIn:
      return 0;
    case CompareOp::kBetween:
    case CompareOp::kNotBetween:
      return 2;
    default:
      return 1;
  }
}

double RowValue(const MetricColumn& metric, size_t row) {
  if (metric.CountsRows()) return 1;
  const double value = (*metric.values)[row];
  if (metric.function == model::AggregateFunction::kAvg && metric.counts) {
    const double count = (*metric.counts)[row];
    return count == 0 ? 0 : value / count;
  }
  return value;
}

// Rows of `rows[0..n)` kept by a codes leaf, compacted in place.
size_t NarrowByCodes(const Node& node, uint32_t* rows, size_t n) {
  const uint8_t* keep = node.keep.data();
  return VisitCodes(*node.codes, [&](const auto* codes) {
    size_t kept = 0;
    for (size_t j = 0; j < n; ++j) {
      const uint32_t row = rows[j];
      rows[kept] = row;
      kept += keep[codes[row]];
    }
    return kept;
  });
}

size_t ScanCodes(const Node& node, size_t begin, size_t end, uint32_t* rows) {
  const uint8_t* keep = node.keep.data();
  return VisitCodes(*node.codes, [&](const auto* codes) {
    size_t kept = 0;
    for (size_t row = begin; row < end; ++row) {
      rows[kept] = static_cast<uint32_t>(row);
      kept += keep[codes[row]];
    }
    return kept;
  });
}

template <typename Predicate>
size_t NarrowByValue(const Node& node, uint32_t* rows, size_t n, Predicate predicate) {
  const MetricColumn& metric = *node.metric;
  const bool plain = !metric.CountsRows() && !metric.HasNulls() &&
                     !(metric.function == model::AggregateFunction::kAvg && metric.counts);
  size_t kept = 0;
  if (plain) {
    const double* values = metric.values->data();
    for (size_t j = 0; j < n; ++j) {
      const uint32_t row = rows[j];
      rows[kept] = row;
      kept += predicate(values[row]) ? 1 : 0;
    }
    return kept;
  }
  for (size_t j = 0; j < n; ++j) {
    const uint32_t row = rows[j];
    const bool valid = metric.IsValid(row);
    if (node.op == CompareOp::kIsNull || node.op == CompareOp::kIsNotNull) {
      rows[kept] = row;
      kept += (valid == (node.op == CompareOp::kIsNotNull)) ? 1 : 0;
      continue;
    }
    rows[kept] = row;
    kept += valid && predicate(RowValue(metric, row)) ? 1 : 0;
  }
  return kept;
}

// Hands `visit` the metric leaf's comparison as a predicate on a row's value.
template <typename Visit>
decltype(auto) WithPredicate(const Node& node, Visit visit) {
  const std::vector<double>& k = node.numbers;
  switch (node.op) {
    case CompareOp::kGreater:
      return visit([a = k[0]](double v) { return v > a; });
    case CompareOp::kGreaterEqual:
      return visit([a = k[0]](double v) { return v >= a; });
    case CompareOp::kLess:
      return visit([a = k[0]](double v) { return v < a; });
    case CompareOp::kLessEqual:
      return visit([a = k[0]](double v) { return v <= a; });
    case CompareOp::kEquals:
      return visit([a = k[0]](double v) { return v == a; });
    case CompareOp::kBetween:
      return visit([a = k[0], b = k[1]](double v) { return v >= a && v <= b; });
    default:
      return visit([&](double v) { return CompareNumber(v, node.op, k); });
  }
}

size_t NarrowByMetric(const Node& node, uint32_t* rows, size_t n) {
  return WithPredicate(node, [&](auto holds) { return NarrowByValue(node, rows, n, holds); });
}

// A metric leaf whose row values are the column's own values, with no nulls.
bool ComparesPlainValues(const Node& node) {
  if (node.kind != RowFilter::Kind::kMetric) return false;
  const MetricColumn& metric = *node.metric;
  return !metric.CountsRows() && !metric.HasNulls() &&
         !(metric.function == model::AggregateFunction::kAvg && metric.counts) &&
         node.op != CompareOp::kIsNull && node.op != CompareOp::kIsNotNull;
}

// Rows of [begin, end) whose value holds, read in order.
template <typename Predicate>
size_t ScanValues(const double* values, size_t begin, size_t end, uint32_t* rows, Predicate holds) {
  size_t kept = 0;
  for (size_t row = begin; row < end; ++row) {
    rows[kept] = static_cast<uint32_t>(row);
    kept += holds(values[row]) ? 1 : 0;
  }
  return kept;
}

// Plain metric leaves: one on its own, or two on the same column (a range) in one pass.
size_t ScanPlainValues(const Node& leaf, const Node* same_column, size_t begin, size_t end,
                       uint32_t* rows) {
  const double* values = leaf.metric->values->data();
  return WithPredicate(leaf, [&](auto first) {
    if (!same_column) return ScanValues(values, begin, end, rows, first);
    return WithPredicate(*same_column, [&](auto second) {
      return ScanValues(values, begin, end, rows, [&](double v) { return first(v) & second(v); });
    });
  });
}

// The leaf after leaves[i] when both compare the plain values of one column.
const Node* SameColumnNext(const std::vector<Node>& leaves, size_t i) {
  if (i + 1 >= leaves.size() || !ComparesPlainValues(leaves[i]) ||
      !ComparesPlainValues(leaves[i + 1]) ||
      leaves[i].metric->values != leaves[i + 1].metric->values) {
    return nullptr;
  }
  return &leaves[i + 1];
}

// Byte mask over rows[0..n): 1 where the node holds.
void Mask(const Node& node, const uint32_t* rows, size_t n, uint8_t* mask) {
  if (node.kind == RowFilter::Kind::kCodes) {
    const uint8_t* keep = node.keep.data();
    VisitCodes(*node.codes, [&](const auto* codes) {
      for (size_t j = 0; j < n; ++j) mask[j] = keep[codes[rows[j]]];
    });
    return;
  }
  if (node.kind == RowFilter::Kind::kMetric) {
    const MetricColumn& metric = *node.metric;
    for (size_t j = 0; j < n; ++j) {
      const std::optional<double> value =
          metric.IsValid(rows[j]) ? std::optional<double>(RowValue(metric, rows[j])) : std::nullopt;
      mask[j] = CompareNumber(value, node.op, node.numbers) ? 1 : 0;
    }
    return;
  }
  if (node.kind == RowFilter::Kind::kNot) {
    Mask(node.children.front(), rows, n, mask);
    for (size_t j = 0; j < n; ++j) mask[j] ^= 1;
    return;
  }
  const bool is_and = node.kind == RowFilter::Kind::kAnd;
  std::fill(mask, mask + n, is_and ? 1 : 0);
  std::vector<uint8_t> child_mask(n);
  for (const auto& child : node.children) {
    Mask(child, rows, n, child_mask.data());
    for (size_t j = 0; j < n; ++j) {
      mask[j] = is_and ? (mask[j] & child_mask[j]) : (mask[j] | child_mask[j]);
    }
  }
}

bool AllLeaves(const Node& node) {
  return std::all_of(node.children.begin(), node.children.end(),
                     [](const Node& child) { return child.IsLeaf(); });
}

size_t Narrow(const Node& node, uint32_t* rows, size_t n) {
  switch (node.kind) {
    case RowFilter::Kind::kCodes:
      if (node.always) return n;
      if (node.never) return 0;
      return NarrowByCodes(node, rows, n);
    case RowFilter::Kind::kMetric:
      return NarrowByMetric(node, rows, n);
    case RowFilter::Kind::kAnd:
      if (AllLeaves(node)) {
        for (const auto& child : node.children) n = Narrow(child, rows, n);
        return n;
      }
      [[fallthrough]];
    default: {
      std::vector<uint8_t> mask(n);
      Mask(node, rows, n, mask.data());
      size_t kept = 0;
      for (size_t j = 0; j < n; ++j) {
        rows[kept] = rows[j];
        kept += mask[j];
      }
      return kept;
    }
  }
}

// The share of its attribute's elements a codes leaf keeps; metric leaves sort after every one.
double KeptShare(const Node& node) {
  if (node.kind != RowFilter::Kind::kCodes) return 2;
  if (node.keep.empty()) return 0;
  return static_cast<double>(node.kept_before.back()) / static_cast<double>(node.keep.size());
}

Node Compile(const Dataset& dataset, const RowFilter& filter) {
  Node node;
  node.kind = filter.kind;
  switch (filter.kind) {
    case RowFilter::Kind::kCodes: {
      if (filter.attribute < 0 ||
          static_cast<size_t>(filter.attribute) >= dataset.attributes().size()) {
        throw Error(ErrorCode::kInvalidInput,
                    "filter: no attribute " + std::to_string(filter.attribute) + " in the dataset");
      }
      const AttributeColumn& attribute = dataset.attribute(filter.attribute);
      if (filter.keep.size() != attribute.dictionary.size()) {
        throw Error(ErrorCode::kInvalidInput,
                    "filter on '" + attribute.name + "': the element mask has the wrong size");
      }
      node.codes = &attribute.codes;
      node.keep = filter.keep;
      for (auto& k : node.keep) k = k ? 1 : 0;
      node.always = std::all_of(node.keep.begin(), node.keep.end(), [](uint8_t k) { return k; });
      node.never = std::none_of(node.keep.begin(), node.keep.end(), [](uint8_t k) { return k; });
      node.kept_before.assign(node.keep.size() + 1, 0);
      for (size_t c = 0; c < node.keep.size(); ++c) {
        node.kept_before[c + 1] = node.kept_before[c] + node.keep[c];
      }
      return node;
    }
    case RowFilter::Kind::kMetric: {
      if (filter.metric < 0 || static_cast<size_t>(filter.metric) >= dataset.metrics().size()) {
        throw Error(ErrorCode::kInvalidInput,
                    "filter: no metric " + std::to_string(filter.metric) + " in the dataset");
      }
      if (!IsComparison(filter.op) || filter.numbers.size() < NumbersNeeded(filter.op)) {
        throw Error(ErrorCode::kInvalidInput, "filter on a metric: a comparison needs its values");
      }
      node.metric = &dataset.metric(filter.metric);
      node.op = filter.op;
      node.numbers = filter.numbers;
      return node;
    }
    case RowFilter::Kind::kNot:
      if (filter.children.size() != 1) {
        throw Error(ErrorCode::kInvalidInput, "filter: Not takes one condition");
      }
      [[fallthrough]];
    default:
      for (const auto& child : filter.children) {
        Node compiled = Compile(dataset, child);
        // And inside And flattens, so the leaves narrow one after the other.
        if (filter.kind == RowFilter::Kind::kAnd && compiled.kind == RowFilter::Kind::kAnd) {
          for (auto& grandchild : compiled.children) node.children.push_back(std::move(grandchild));
        } else {
          node.children.push_back(std::move(compiled));
        }
      }
      if (node.kind == RowFilter::Kind::kAnd && AllLeaves(node)) {
        std::stable_sort(node.children.begin(), node.children.end(),
                         [](const Node& a, const Node& b) { return KeptShare(a) < KeptShare(b); });
      }
      return node;
  }
}

using Coverage = RowSelector::Coverage;

Coverage CoverOf(const Node& node, size_t zone) {
  switch (node.kind) {
    case RowFilter::Kind::kCodes: {
      if (node.always) return Coverage::kAll;
      if (node.never) return Coverage::kNone;
      const CodeColumn::Zone& range = node.codes->zone(zone);
      const uint32_t kept = node.kept_before[range.max + 1] - node.kept_before[range.min];
      if (kept == 0) return Coverage::kNone;
      return kept == range.max - range.min + 1 ? Coverage::kAll : Coverage::kSome;
    }
    case RowFilter::Kind::kMetric:
      return Coverage::kSome;
    case RowFilter::Kind::kNot: {
      const Coverage inner = CoverOf(node.children.front(), zone);
      if (inner == Coverage::kSome) return inner;
      return inner == Coverage::kAll ? Coverage::kNone : Coverage::kAll;
    }
    default: {
      const bool is_and = node.kind == RowFilter::Kind::kAnd;
      const Coverage decisive = is_and ? Coverage::kNone : Coverage::kAll;
      Coverage result = is_and ? Coverage::kAll : Coverage::kNone;
      for (const auto& child : node.children) {
        const Coverage coverage = CoverOf(child, zone);
        if (coverage == decisive) return decisive;
        if (coverage == Coverage::kSome) result = Coverage::kSome;
      }
      return result;
    }
  }
}

bool KnownEmpty(const Node& node) {
  if (node.kind == RowFilter::Kind::kCodes) return node.never;
  if (node.kind == RowFilter::Kind::kAnd) {
    return std::any_of(node.children.begin(), node.children.end(), KnownEmpty);
  }
  if (node.kind == RowFilter::Kind::kOr) {
    return !node.children.empty() &&
           std::all_of(node.children.begin(), node.children.end(), KnownEmpty);
  }
  return false;
}

// The zone holding [begin, end), when one does.
std::optional<size_t> ZoneOf(size_t begin, size_t end) {
  if (begin % CodeColumn::kZoneRows != 0 || end - begin > CodeColumn::kZoneRows)
    return std::nullopt;
  return begin / CodeColumn::kZoneRows;
}

// The root is always an And, so a lone leaf takes the And-of-leaves path too.
Node CompileRoot(const Dataset& dataset, const RowFilter& filter) {
  Node compiled = Compile(dataset, filter);
  if (!compiled.IsLeaf()) return compiled;
  Node root;
  root.kind = RowFilter::Kind::kAnd;
  root.children.push_back(std::move(compiled));
  return root;
}

}  // namespace

RowSelector::RowSelector(const Dataset& dataset, const RowFilter& filter)
    : dataset_(dataset), root_(std::make_unique<Node>(CompileRoot(dataset, filter))) {}

RowSelector::~RowSelector() = default;
RowSelector::RowSelector(RowSelector&&) noexcept = default;

bool RowSelector::SelectsAll() const {
  return root_->kind == RowFilter::Kind::kAnd &&
         std::all_of(root_->children.begin(), root_->children.end(), [](const Node& child) {
           return child.kind == RowFilter::Kind::kCodes && child.always;
         });
}

bool RowSelector::SelectsNone() const { return KnownEmpty(*root_); }

RowSelector::Coverage RowSelector::Cover(size_t begin, size_t end) const {
  if (SelectsAll()) return Coverage::kAll;
  if (begin >= end) return Coverage::kNone;
  const std::optional<size_t> zone = ZoneOf(begin, end);
  return zone ? CoverOf(*root_, *zone) : Coverage::kSome;
}

size_t RowSelector::Select(size_t begin, size_t end, uint32_t* rows) const {
  const Node& root = *root_;
  const std::optional<size_t> zone = ZoneOf(begin, end);
  size_t n = end - begin;
  if (root.kind != RowFilter::Kind::kAnd || !AllLeaves(root)) {
    std::iota(rows, rows + n, static_cast<uint32_t>(begin));
    return Narrow(root, rows, n);
  }
  bool listed = false;
  for (size_t i = 0; i < root.children.size(); ++i) {
    const Node& leaf = root.children[i];
    const Coverage coverage = zone ? CoverOf(leaf, *zone) : Coverage::kSome;
    if (coverage == Coverage::kAll) continue;
    if (coverage == Coverage::kNone) return 0;
    if (listed) {
      n = Narrow(leaf, rows, n);
    } else if (leaf.kind == RowFilter::Kind::kCodes) {
      n = ScanCodes(leaf, begin, end, rows);
    } else if (ComparesPlainValues(leaf)) {
      const Node* same_column = SameColumnNext(root.children, i);
      n = ScanPlainValues(leaf, same_column, begin, end, rows);
      if (same_column) ++i;
    } else {
      std::iota(rows, rows + n, static_cast<uint32_t>(begin));
      n = Narrow(leaf, rows, n);
    }
    listed = true;
    if (n == 0) return 0;
  }
  if (!listed) std::iota(rows, rows + n, static_cast<uint32_t>(begin));
  return n;
}

}  // namespace tessera::engine
