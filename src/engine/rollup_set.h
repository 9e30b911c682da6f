// engine/rollup_set.h
//
// A published cube's roll-ups: Datasets aggregated from the cube's Dataset (the base) to coarser
// grains, and the choice of the smallest one that answers a CubeQuery exactly as the base does.
// A published cube is its base and a RollupSet; a query the roll-ups cannot answer runs on the
// base.
//
// A roll-up keeps a subset of the base's attributes with the base's dictionaries (copies), so
// codes, element ids, filters by element and sort orders are the base's. It has one row per
// combination of its attributes that occurs in the base, and metric columns that roll up again
// by the rules of engine/dataset.h to what the base rolls up to:
//   sum, count      the group's sum (a count of rows becomes a count with values);
//   min, max        the group's min / max;
//   avg             the group's sum in `values` and its count in `counts`;
//   count_distinct  kept while the grain keeps its counted attribute (its codes are counted);
//                   without that attribute, or without a counted attribute (exact only at the
//                   base's full grain), the metric is not in the roll-up.
// A group in which a metric has no value holds a null.
//
// Build() builds the roll-ups of the grains it is given, each from the smallest roll-up already
// built that holds what it needs (else the base), finest grains first, and keeps one only while it
// has at most `max_row_share` of the base's rows and the roll-ups kept stay within
// `max_memory_share` of the base's memory (Dataset::MemoryBytes). Grains that repeat one another or
// the base's full grain are skipped.
//
// Choose() names the roll-up with the fewest rows that has every attribute the query groups by or
// its row filter names and every metric column a request uses; none (the base) when:
//   - the row filter compares a row's own metric value (a roll-up row is not a base row);
//   - the query is a grand total of a count of rows (over no row the base counts 0, a roll-up has
//     a null);
//   - the query names an attribute or metric the base does not have (the base's error is the
//     answer).
// ExecuteCubeQuery(base, rollups, ...) runs the query where Choose() says and returns a ResultSet
// that reads as the base's: its dataset is the base and its indexes are the base's. Values equal
// the base's, floating-point sums to their last bits (engine/cube_executor.h). Element listing
// (ListElements) stays on the base.
//
// A RollupSet is immutable once built: thread-safe to share between requests.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "core/thread_pool.h"
#include "engine/cube_query.h"
#include "engine/dataset.h"

namespace tessera::engine {

struct RollupOptions {
  double max_row_share = 0.25;     // of the base's rows
  double max_memory_share = 0.20;  // of the base's memory, every roll-up together
};

struct Rollup {
  std::shared_ptr<const Dataset> dataset;
  std::vector<int> attribute_of_base;  // per base attribute: its index here, or -1
  std::vector<int> metric_of_base;     // per base metric: its index here, or -1
  std::vector<int> base_attributes;    // per attribute here: its index in the base
};

class RollupSet {
 public:
  RollupSet() = default;  // no roll-up: everything runs on the base

  // `grains` are sets of base attribute indexes (any order; an index out of range is ignored).
  static RollupSet Build(const Dataset& base, const std::vector<std::vector<int>>& grains,
                         const RollupOptions& options = {}, ThreadPool* pool = nullptr);

  // By rows, fewest first.
  const std::vector<Rollup>& rollups() const { return rollups_; }
  // Null: the base.
  const Rollup* Choose(const Dataset& base, const CubeQuery& query) const;
  size_t MemoryBytes() const;  // of the roll-ups alone

 private:
  std::vector<Rollup> rollups_;
};

// Every attribute of `base` that is not hidden, by index.
std::vector<int> VisibleGrain(const Dataset& base);

// The roll-up of `source` (the base or a roll-up of it, `source_rollup` saying which: null for the
// base) to `grain` (base attribute indexes).
Rollup BuildRollup(const Dataset& base, const Dataset& source, const Rollup* source_rollup,
                   const std::vector<int>& grain, ThreadPool* pool = nullptr);

// The query run on the roll-up Choose() names, answered as by the base. `rollups` may be null.
ResultSet ExecuteCubeQuery(const std::shared_ptr<const Dataset>& base, const RollupSet* rollups,
                           const CubeQuery& query, ThreadPool* pool = nullptr);

}  // namespace tessera::engine
