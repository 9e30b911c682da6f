// engine/row_selection.h
//
// A RowFilter compiled against a Dataset: Select() writes the indexes of the rows of one batch
// that pass. An And of leaves narrows a selection leaf by leaf (each leaf reads only the rows the
// previous ones kept); Or and Not evaluate byte masks over the batch. A codes leaf is one table
// lookup per row; a metric leaf compares the row's own value (an avg row's sum / count). The
// leaves of an And run in the order of the share of elements they keep, fewest first, metric
// leaves last. A first metric leaf comparing a column's own values (no nulls) reads them in order,
// and a second such leaf on the same column is checked in the same pass (a range).
//
// The codes' zone maps (engine/code_column.h) answer for a whole zone when they can: Cover()
// says whether no row, every row or only some rows of a zone can pass, and Select() skips the
// leaves that keep every element the zone holds.
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
  static constexpr size_t kBatch = CodeColumn::kZoneRows;

  RowSelector(const Dataset& dataset, const RowFilter& filter);
  ~RowSelector();
  RowSelector(RowSelector&&) noexcept;

  bool SelectsAll() const;   // no condition at all
  bool SelectsNone() const;  // a condition no row can pass, known without reading rows

  // What the zone maps say about rows [begin, end): kNone when none can pass, kAll when all
  // pass, kSome when Select must read them. [begin, end) within one zone, or the answer is kSome
  // (kAll when there is no condition).
  enum class Coverage { kNone, kAll, kSome };
  Coverage Cover(size_t begin, size_t end) const;

  // Writes the passing rows of [begin, end) (end - begin <= kBatch) to `rows`, in order, and
  // returns how many there are.
  size_t Select(size_t begin, size_t end, uint32_t* rows) const;

  struct Node;  // the compiled filter

 private:
  const Dataset& dataset_;
  std::unique_ptr<Node> root_;
};

}  // namespace tessera::engine
