#include "engine/dictionary.h"

#include <algorithm>
#include <charconv>
#include <numeric>
#include <optional>

namespace tessera::engine {

std::string CellText(const Cell& cell) {
  if (const auto* text = std::get_if<std::string>(&cell)) return *text;
  if (const auto* integer = std::get_if<int64_t>(&cell)) return std::to_string(*integer);
  if (const auto* real = std::get_if<double>(&cell)) {
    char buffer[32];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, *real);
    return std::string(buffer, result.ptr);
  }
  return "";
}
namespace {

int Rank(const Cell& cell) {
  if (std::holds_alternative<std::monostate>(cell)) return 0;
  if (std::holds_alternative<std::string>(cell)) return 2;
  return 1;
}

double AsDouble(const Cell& cell) {
  if (const auto* integer = std::get_if<int64_t>(&cell)) return static_cast<double>(*integer);
  return std::get<double>(cell);
}

int CompareNumbers(const Cell& a, const Cell& b) {
  if (std::holds_alternative<int64_t>(a) && std::holds_alternative<int64_t>(b)) {
    const int64_t x = std::get<int64_t>(a);
    const int64_t y = std::get<int64_t>(b);
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  const double x = AsDouble(a);
  const double y = AsDouble(b);
  return x < y ? -1 : (x > y ? 1 : 0);
}

template <typename T>
std::optional<std::vector<uint32_t>> SortedOrderOf(const std::vector<Cell>& values) {
  std::vector<std::pair<const T*, uint32_t>> keyed;
  keyed.reserve(values.size());
  for (uint32_t i = 0; i < values.size(); ++i) {
    const T* value = std::get_if<T>(&values[i]);
    if (!value) return std::nullopt;
    keyed.emplace_back(value, i);
  }
  std::stable_sort(keyed.begin(), keyed.end(),
                   [](const auto& a, const auto& b) { return *a.first < *b.first; });
  std::vector<uint32_t> order;
  order.reserve(keyed.size());
  for (const auto& entry : keyed) order.push_back(entry.second);
  return order;
}

std::vector<uint32_t> RanksOf(const std::vector<Cell>& values) {
  const std::vector<uint32_t> order = SortedOrder(values);
  std::vector<uint32_t> ranks(values.size());
  for (uint32_t position = 0; position < order.size(); ++position) {
    ranks[order[position]] = position;
  }
  return ranks;
}

}  // namespace

std::vector<uint32_t> SortedOrder(const std::vector<Cell>& values) {
  std::vector<uint32_t> order(values.size());
  std::iota(order.begin(), order.end(), 0u);
  auto less = [&](uint32_t a, uint32_t b) { return CompareCells(values[a], values[b]) < 0; };
  if (std::is_sorted(order.begin(), order.end(), less)) return order;
  if (auto integers = SortedOrderOf<int64_t>(values)) return *integers;
  if (auto texts = SortedOrderOf<std::string>(values)) return *texts;
  std::stable_sort(order.begin(), order.end(), less);
  return order;
}

int CompareCells(const Cell& a, const Cell& b) {
  const int rank_a = Rank(a);
  const int rank_b = Rank(b);
  if (rank_a != rank_b) return rank_a < rank_b ? -1 : 1;
  if (rank_a == 0) return 0;
  if (rank_a == 1) return CompareNumbers(a, b);
  const int order = std::get<std::string>(a).compare(std::get<std::string>(b));
  return order < 0 ? -1 : (order > 0 ? 1 : 0);
}

Dictionary::Dictionary(std::vector<FormValues> forms) : forms_(std::move(forms)) {
  for (auto& form : forms_) {
    if (form.ranks.size() != form.values.size()) form.ranks = RanksOf(form.values);
  }
}

int Dictionary::FormIndex(std::string_view name) const {
  for (size_t i = 0; i < forms_.size(); ++i) {
    if (forms_[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

int64_t Dictionary::CodeOfId(const Cell& id) const {
  if (forms_.empty()) return -1;
  const auto& ids = forms_.front().values;
  auto it = std::lower_bound(ids.begin(), ids.end(), id,
                             [](const Cell& a, const Cell& b) { return CompareCells(a, b) < 0; });
  if (it == ids.end() || CompareCells(*it, id) != 0) return -1;
  return it - ids.begin();
}

size_t Dictionary::MemoryBytes() const {
  size_t bytes = 0;
  for (const auto& form : forms_) {
    bytes += form.values.capacity() * sizeof(Cell) + form.ranks.capacity() * sizeof(uint32_t);
    for (const auto& value : form.values) {
      if (const auto* text = std::get_if<std::string>(&value)) {
        if (text->capacity() > 15) bytes += text->capacity() + 1;
      }
    }
  }
  return bytes;
}

}  // namespace tessera::engine
