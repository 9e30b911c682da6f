// engine/group_aggregator.h
//
// Dynamic aggregation: the rows a RowSelector passes, grouped by the codes of `attributes`, each
// metric column rolled up by its function (engine/dataset.h says how).
//
// A group key is the mixed-radix number of the group's codes (the first attribute most
// significant), so key order is code order. Key spaces up to kDenseSlots use dense arrays indexed
// by key (numbered in 16 bits up to 2^16 slots, so the key arithmetic vectorises wide); larger ones
// an open-addressing hash table. The row counts and up to three sums without nulls fold in one
// pass over a batch. Rows are split in ranges over the pool and
// the calling thread: range r folds into the partial state of stripe r % stripes (as many
// stripes as workers), each stripe's ranges in order, whichever free thread takes them; partials
// merge in stripe order, so a result does not depend on which thread ran what and is the same
// each time it is computed.
// Rows are read a zone at a time (engine/code_column.h): a zone the selector covers whole is read
// as a range, and a zone whose grouping attributes hold one element each folds into its group
// without per-row slots.
// Count distinct keeps a bitset of codes per group when it fits, else (group, code) pairs.
//
// The groups come out ordered by key (so by codes in attribute order). A group whose metric has
// no value (all nulls, avg of nothing, count distinct without its attribute below full grain) has
// present = 0 for it. When the attributes' key space does not fit in 64 bits, the leading
// attributes are first numbered by their distinct combinations (at most one per row), so any
// grouping of any dataset aggregates.
//
// group_aggregator.cc is one file of about 1,150 lines on purpose: every strategy (dense, hashed,
// constant zone, count distinct) inlines the same fold kernels, and the file is compiled alone
// with -falign-loops=64 (CMakeLists.txt) so its hot loops keep the alignment the cube benchmark
// was measured with; split per strategy, each part would need the kernels and the flag again.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "core/thread_pool.h"
#include "engine/dataset.h"
#include "engine/row_selection.h"

namespace tessera::engine {

struct Groups {
  size_t count = 0;
  std::vector<std::vector<uint32_t>> codes;   // per attribute, one per group
  std::vector<std::vector<double>> values;    // per metric column, one per group
  std::vector<std::vector<uint8_t>> present;  // per metric column, one per group
};

constexpr uint64_t kDenseSlots = uint64_t{1} << 21;

// Past `deadline`, Error(kTimeout) (checked between chunks of rows).
Groups AggregateGroups(
    const Dataset& dataset, const std::vector<int>& attributes,
    const std::vector<int>& metric_columns, const RowSelector& selector, ThreadPool* pool,
    std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max());

}  // namespace tessera::engine
