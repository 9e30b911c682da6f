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

size_t NarrowByMetric(const Node& node, uint32_t* rows, size_t n) {
  const std::vector<double>& k = node.numbers;
  switch (node.op) {
    case CompareOp::kGreater:
      return NarrowByValue(node, rows, n, [a = k[0]](double v) { return v > a; });
    case CompareOp::kGreaterEqual:
      return NarrowByValue(node, rows, n, [a = k[0]](double v) { return v >= a; });
    case CompareOp::kLess:
      return NarrowByValue(node, rows, n, [a = k[0]](double v) { return v < a; });
    case CompareOp::kLessEqual:
      return NarrowByValue(node, rows, n, [a = k[0]](double v) { return v <= a; });
    case CompareOp::kEquals:
      return NarrowByValue(node, rows, n, [a = k[0]](double v) { return v == a; });
    case CompareOp::kBetween:
      return NarrowByValue(node, rows, n,
                           [a = k[0], b = k[1]](double v) { return v >= a && v <= b; });
    default:
      return NarrowByValue(node, rows, n, [&](double v) { return CompareNumber(v, node.op, k); });
  }
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
      return node;
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

}  // namespace

RowSelector::RowSelector(const Dataset& dataset, const RowFilter& filter)
    : dataset_(dataset), root_(std::make_unique<Node>(Compile(dataset, filter))) {}

RowSelector::~RowSelector() = default;
RowSelector::RowSelector(RowSelector&&) noexcept = default;

bool RowSelector::SelectsAll() const {
  return root_->kind == RowFilter::Kind::kAnd &&
         std::all_of(root_->children.begin(), root_->children.end(), [](const Node& child) {
           return child.kind == RowFilter::Kind::kCodes && child.always;
         });
}

bool RowSelector::SelectsNone() const { return KnownEmpty(*root_); }

size_t RowSelector::Select(size_t begin, size_t end, uint32_t* rows) const {
  const Node& root = *root_;
  if (root.kind == RowFilter::Kind::kAnd && !root.children.empty() && AllLeaves(root) &&
      root.children.front().kind == RowFilter::Kind::kCodes) {
    size_t n = ScanCodes(root.children.front(), begin, end, rows);
    for (size_t i = 1; i < root.children.size() && n > 0; ++i)
      n = Narrow(root.children[i], rows, n);
    return n;
  }
  std::iota(rows, rows + (end - begin), static_cast<uint32_t>(begin));
  return Narrow(root, rows, end - begin);
}

}  // namespace tessera::engine
