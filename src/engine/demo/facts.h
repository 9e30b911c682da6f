// engine/demo/facts.h
//
// The demo's sales_fact rows, produced one at a time in order_line_id order (the distributions
// are described in engine/demo/data.h). Holds only the catalog, a few cumulative weight tables and
// its position, so memory does not depend on the row count. Rows per day are apportioned exactly
// from integer day weights, so the total is exactly `rows` and the date order is kept.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/demo/catalog.h"
#include "engine/demo/random.h"
#include "engine/warehouse/warehouse.h"

namespace tessera::engine::demo {

class FactRows {
 public:
  FactRows(const Catalog& catalog, int64_t rows, uint64_t seed);

  // Fills `row` with order_line_id, day_id, city_id, item_id, customer_id, channel_id, units,
  // revenue, cost, discount; false after the last row.
  bool Next(std::vector<warehouse::SqlValue>& row);

 private:
  int64_t RowsOnDay(size_t day) const;

  const Catalog& catalog_;
  int64_t total_rows_;
  DemoRandom random_;

  std::vector<uint64_t> cumulative_day_weight_;
  std::vector<int64_t> city_by_rank_;
  std::vector<int64_t> item_by_rank_;
  std::vector<int64_t> customer_by_rank_;
  WeightedChoice city_choice_;
  WeightedChoice item_choice_;
  WeightedChoice customer_choice_;
  std::vector<WeightedChoice> channel_choice_by_year_;
  WeightedChoice units_choice_;
  WeightedChoice discount_choice_;

  int64_t next_id_ = 1;
  size_t day_ = 0;
  int64_t left_on_day_ = 0;
  bool started_ = false;
};

}  // namespace tessera::engine::demo
