// engine/cube_executor.h
//
// Runs a CubeQuery on a Dataset: row filter -> dynamic aggregation to the requested attributes ->
// formulas -> metric limit -> sort -> top-N, and lists an attribute's elements for selectors.
//
// Execution is vectorised over codes: the row filter becomes per-attribute code masks and row
// selections built batch by batch; group keys are mixed-radix combinations of the codes of the
// requested attributes, aggregated into dense arrays when the key space is small and a hash table
// otherwise; rows are split in ranges across the compute pool (and the calling thread), each range
// aggregating into its own partial state, merged at the end. The result does not depend on the
// number of threads except for the last bits of floating-point sums.
//
// A published cube answers through the overload of engine/rollup_set.h, which runs the query on
// the smallest of the cube's roll-ups that can answer it exactly, or on the cube's Dataset.
//
// Errors: Error(kInvalidInput) for indexes out of range, a formula naming an unknown request, a
// sort key or limit on a hidden or missing metric. A query never modifies the dataset.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/thread_pool.h"
#include "engine/cube_query.h"

namespace tessera::engine {

// `pool` may be null (run on the calling thread). Safe to call from a task of `pool`.
ResultSet ExecuteCubeQuery(const std::shared_ptr<const Dataset>& dataset, const CubeQuery& query,
                           ThreadPool* pool = nullptr);

// Elements of `attribute` for selectors: those present in rows that pass `filter` (kAnd of none
// = every element of the dictionary that occurs in a row), optionally restricted to those with a
// value of one of `forms` that matches `pattern` case-insensitively (`prefix`: begins with, else
// contains), in code order (by ID), then cut to [offset, offset + limit). `total` counts all that
// match. A form index the attribute does not have is Error(kInvalidInput).
struct ElementList {
  std::vector<uint32_t> codes;
  size_t total = 0;
};
struct ElementSearch {
  std::string pattern;  // empty = no search
  // Empty = the DESC form if the attribute has one, else its ID form; an element matches when
  // any form matches.
  std::vector<int> forms;
  bool prefix = false;
  size_t offset = 0;
  std::optional<size_t> limit;
};
ElementList ListElements(const Dataset& dataset, int attribute, const RowFilter& filter,
                         const ElementSearch& search, ThreadPool* pool = nullptr);

}  // namespace tessera::engine
