// engine/dictionary.h
//
// The elements of one attribute in a Dataset: element `code` carries one value per form. Codes
// are ordered by the ID form (the first form): numbers numerically, text and dates by their bytes,
// a null ID first. Ranks give, per form, each code's position when elements are ordered by that
// form (ties broken by code), so sorting a result by any form compares integers.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/warehouse/warehouse.h"
#include "model/semantic.h"

namespace tessera::engine {

using Cell = warehouse::SqlValue;  // null, integer, real or text (dates as "yyyy-MM-dd")

// A cell as text: integers in decimal, reals in their shortest round-trip form, text as is, null
// as "".
std::string CellText(const Cell& cell);

// The order of cells in dictionaries and sorts: null first, then numbers (integers and reals
// compared by value), then text by bytes.
int CompareCells(const Cell& a, const Cell& b);

// The positions of `values` in CompareCells order (a stable sort); integer-only and text-only
// columns sort on their native type.
std::vector<uint32_t> SortedOrder(const std::vector<Cell>& values);

struct FormValues {
  std::string name;
  model::DataType type = model::DataType::kText;
  std::vector<Cell> values;     // one per element, by code
  std::vector<uint32_t> ranks;  // one per element, by code
};

class Dictionary {
 public:
  Dictionary() = default;
  // `forms[0]` is the ID form; every form has one value per element and the elements are already
  // in ID order with distinct IDs. Computes the ranks.
  explicit Dictionary(std::vector<FormValues> forms);

  size_t size() const { return forms_.empty() ? 0 : forms_.front().values.size(); }
  const std::vector<FormValues>& forms() const { return forms_; }
  int FormIndex(std::string_view name) const;  // -1 when the attribute has no such form
  const Cell& Value(size_t form, uint32_t code) const { return forms_[form].values[code]; }
  uint32_t Rank(size_t form, uint32_t code) const { return forms_[form].ranks[code]; }
  // The code of the element whose ID form equals `id` (binary search), or -1.
  int64_t CodeOfId(const Cell& id) const;
  size_t MemoryBytes() const;

 private:
  std::vector<FormValues> forms_;
};

}  // namespace tessera::engine
