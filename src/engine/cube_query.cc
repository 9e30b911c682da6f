#include "engine/cube_query.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

namespace tessera::engine {
namespace {

bool IsNumericType(model::DataType type) {
  return type == model::DataType::kInteger || type == model::DataType::kReal ||
         type == model::DataType::kBoolean;
}

std::optional<double> AsNumber(const Cell& cell) {
  if (const auto* real = std::get_if<double>(&cell)) return *real;
  if (const auto* integer = std::get_if<int64_t>(&cell)) return static_cast<double>(*integer);
  if (const auto* text = std::get_if<std::string>(&cell)) {
    double value = 0;
    const auto result = std::from_chars(text->data(), text->data() + text->size(), value);
    if (result.ec == std::errc() && result.ptr == text->data() + text->size()) return value;
  }
  return std::nullopt;
}

std::string Lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// SQL LIKE: % any run, _ one byte.
bool Like(std::string_view text, std::string_view pattern) {
  size_t t = 0, p = 0, star_p = std::string_view::npos, star_t = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '_' || pattern[p] == text[t])) {
      ++t, ++p;
    } else if (p < pattern.size() && pattern[p] == '%') {
      star_p = p++, star_t = t;
    } else if (star_p != std::string_view::npos) {
      p = star_p + 1, t = ++star_t;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '%') ++p;
  return p == pattern.size();
}

bool MatchesText(const std::string& value, TextOp op, const std::string& pattern) {
  switch (op) {
    case TextOp::kLike:
      return Like(value, pattern);
    case TextOp::kContains:
      return value.find(pattern) != std::string::npos;
    case TextOp::kBeginsWith:
      return value.starts_with(pattern);
    case TextOp::kEndsWith:
      return value.ends_with(pattern);
  }
  return false;
}

// -1, 0, 1 comparing `value` with `constant` as numbers or as text; nullopt when incomparable.
std::optional<int> CompareForm(const Cell& value, const Cell& constant, bool numeric) {
  if (numeric) {
    const auto a = AsNumber(value);
    const auto b = AsNumber(constant);
    if (!a || !b) return std::nullopt;
    return *a < *b ? -1 : (*a > *b ? 1 : 0);
  }
  const int order = CellText(value).compare(CellText(constant));
  return order < 0 ? -1 : (order > 0 ? 1 : 0);
}

bool SatisfiesOrder(std::optional<int> order, CompareOp op) {
  if (!order) return false;
  switch (op) {
    case CompareOp::kEquals:
      return *order == 0;
    case CompareOp::kNotEqual:
      return *order != 0;
    case CompareOp::kGreater:
      return *order > 0;
    case CompareOp::kLess:
      return *order < 0;
    case CompareOp::kGreaterEqual:
      return *order >= 0;
    case CompareOp::kLessEqual:
      return *order <= 0;
    default:
      return false;
  }
}

bool FormSatisfies(const Cell& value, CompareOp op, const std::vector<Cell>& constants,
                   bool numeric) {
  const bool is_null = std::holds_alternative<std::monostate>(value);
  if (op == CompareOp::kIsNull) return is_null;
  if (op == CompareOp::kIsNotNull) return !is_null;
  if (is_null) return false;
  auto compare = [&](size_t i) { return CompareForm(value, constants.at(i), numeric); };
  switch (op) {
    case CompareOp::kBetween:
    case CompareOp::kNotBetween: {
      const auto low = compare(0);
      const auto high = compare(1);
      if (!low || !high) return false;
      const bool inside = *low >= 0 && *high <= 0;
      return op == CompareOp::kBetween ? inside : !inside;
    }
    case CompareOp::kIn:
    case CompareOp::kNotIn: {
      bool found = false;
      for (size_t i = 0; i < constants.size() && !found; ++i) found = compare(i) == 0;
      return op == CompareOp::kIn ? found : !found;
    }
    default:
      return SatisfiesOrder(compare(0), op);
  }
}

}  // namespace

bool CompareNumber(std::optional<double> value, CompareOp op, const std::vector<double>& numbers) {
  if (op == CompareOp::kIsNull) return !value;
  if (op == CompareOp::kIsNotNull) return value.has_value();
  if (!value || std::isnan(*value)) return false;
  const double v = *value;
  switch (op) {
    case CompareOp::kEquals:
      return v == numbers.at(0);
    case CompareOp::kNotEqual:
      return v != numbers.at(0);
    case CompareOp::kGreater:
      return v > numbers.at(0);
    case CompareOp::kLess:
      return v < numbers.at(0);
    case CompareOp::kGreaterEqual:
      return v >= numbers.at(0);
    case CompareOp::kLessEqual:
      return v <= numbers.at(0);
    case CompareOp::kBetween:
      return v >= numbers.at(0) && v <= numbers.at(1);
    case CompareOp::kNotBetween:
      return v < numbers.at(0) || v > numbers.at(1);
    case CompareOp::kIn:
      return std::find(numbers.begin(), numbers.end(), v) != numbers.end();
    case CompareOp::kNotIn:
      return std::find(numbers.begin(), numbers.end(), v) == numbers.end();
    default:
      return false;
  }
}

RowFilter RowFilter::Codes(int attribute, std::vector<uint8_t> keep) {
  RowFilter filter;
  filter.kind = Kind::kCodes;
  filter.attribute = attribute;
  filter.keep = std::move(keep);
  return filter;
}

RowFilter RowFilter::Metric(int metric, CompareOp op, std::vector<double> numbers) {
  RowFilter filter;
  filter.kind = Kind::kMetric;
  filter.metric = metric;
  filter.op = op;
  filter.numbers = std::move(numbers);
  return filter;
}

RowFilter RowFilter::Combine(Kind kind, std::vector<RowFilter> children) {
  RowFilter filter;
  filter.kind = kind;
  filter.children = std::move(children);
  return filter;
}

std::vector<uint8_t> MaskOfForm(const Dictionary& dictionary, int form, CompareOp op,
                                const std::vector<Cell>& constants) {
  const FormValues& values = dictionary.forms().at(form);
  const bool numeric = IsNumericType(values.type);
  std::vector<uint8_t> keep(dictionary.size());
  for (size_t code = 0; code < keep.size(); ++code) {
    keep[code] = FormSatisfies(values.values[code], op, constants, numeric) ? 1 : 0;
  }
  return keep;
}

std::vector<uint8_t> MaskOfText(const Dictionary& dictionary, int form, TextOp op,
                                const std::string& pattern, bool negate) {
  const FormValues& values = dictionary.forms().at(form);
  const std::string lowered = Lower(pattern);
  std::vector<uint8_t> keep(dictionary.size());
  for (size_t code = 0; code < keep.size(); ++code) {
    const Cell& value = values.values[code];
    if (std::holds_alternative<std::monostate>(value)) continue;
    keep[code] = MatchesText(Lower(CellText(value)), op, lowered) != negate ? 1 : 0;
  }
  return keep;
}

size_t ResultSet::MemoryBytes() const {
  size_t bytes = 0;
  for (const auto& column : codes) bytes += column.capacity() * sizeof(uint32_t);
  for (const auto& column : values) bytes += column.capacity() * sizeof(double);
  for (const auto& column : present) bytes += column.capacity();
  if (owns_dataset && dataset) bytes += dataset->MemoryBytes();
  return bytes;
}

}  // namespace tessera::engine
