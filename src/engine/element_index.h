// engine/element_index.h
//
// Interns the values of one attribute's ID form while a dataset is built: Intern(cell) gives the
// code of the equal cell interned before, or else keeps the cell and gives it the next code (the
// number of cells kept so far), so codes follow first appearance. Equality is Cell's operator==:
// an integer and a real are different cells, and a real NaN equals nothing (each one is new).
//
// The cells are kept once, in code order, in one vector; the table beside them holds 8 bytes a
// slot (a hash and a code, open addressing, at most half full), so interning allocates nothing
// per cell beyond the cell itself. While every cell so far is an integer above the one before (an
// order number, a row id), each is new without a lookup: the table is built only once a cell
// breaks that run.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "engine/dictionary.h"

namespace tessera::engine {

class ElementIndex {
 public:
  ElementIndex();

  // The code of `cell`, and whether it was new (then `cell` is copied in).
  std::pair<uint32_t, bool> Intern(const Cell& cell);

  size_t size() const { return cells_.size(); }
  const std::vector<Cell>& cells() const { return cells_; }
  // The cells in code order; the index is empty afterwards.
  std::vector<Cell> TakeCells();

 private:
  static uint32_t HashOf(const Cell& cell);
  // Whether `cell` continues the run of ascending integers (then it is kept).
  bool ExtendsAscendingRun(const Cell& cell);
  void Insert(uint32_t hash, uint32_t code);
  void Grow();

  std::vector<Cell> cells_;
  std::vector<uint64_t> slots_;  // 0 empty, else hash << 32 | (code + 1); unused while ascending
  uint64_t mask_ = 0;
  bool is_ascending_ = true;  // every cell kept is an integer above the one before
  int64_t last_integer_ = 0;
};

}  // namespace tessera::engine
