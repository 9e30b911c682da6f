// engine/row_selection.h
//
// A RowFilter compiled against a Dataset: Select() writes the indexes of the rows of one batch
// that pass. An And of leaves narrows a selection leaf by leaf (each leaf reads only the rows the
// previous ones kept); Or and Not evaluate byte masks over the batch. A codes leaf is one table
// lookup per row; a metric leaf compares the row's own value (an avg row's sum / count).
//
// Errors (constructor): Error(kInvalidInput) for an attribute or metric index out of range, or a
// codes leaf whose `keep` does not have one entry per element.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/cube_query.h"

namespace tessera::engine {

class RowSelector {
 public:
  static constexpr size_t kBatch = 4096;

  RowSelector(const Dataset& dataset, const RowFilter& filter);
  ~RowSelector();
  RowSelector(RowSelector&&) noexcept;

  bool SelectsAll() const;   // no condition at all
  bool SelectsNone() const;  // a condition no row can pass, known without reading rows

  // Writes the passing rows of [begin, end) (end - begin <= kBatch) to `rows`, in order, and
  // returns how many there are.
  size_t Select(size_t begin, size_t end, uint32_t* rows) const;

  struct Node;  // the compiled filter

 private:
  const Dataset& dataset_;
  std::unique_ptr<Node> root_;
};

}  // namespace tessera::engine
