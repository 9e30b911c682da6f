// engine/demo/data.h
//
// The demo warehouse "Tutorial": the 14 tables of demo/SCHEMA.md, generated into a Warehouse with
// BulkLoad. Same rows and seed, same table contents, on every platform (the generator uses only
// integer arithmetic and its own PRNG, engine/demo/random.h). Memory does not grow with `rows`:
// fact rows are produced one at a time while the warehouse loads them.
//
// Element values are fixed (engine/demo/elements.h); the seed decides list prices, customers'
// segments, which items, cities and customers are popular, and every fact row.
//
// sales_fact, one row per order line, order_line_id 1..rows in date order:
//   - days: 2022-01-01 .. 2024-12-31; rows per day follow year growth (2023 and 2024 busier),
//     seasonality by month (November and December the peak) and the weekday;
//   - city, item and customer: Zipf-like popularity over a seeded ranking; channel by year
//     (Online grows);
//   - units 1..20, mostly small; discount rate 0-30 % (0 most often); list prices end in .99;
//   - revenue = units x list_price x (1 - rate); discount = units x list_price x rate (an amount,
//     null on about 1 % of rows, whose revenue then has no discount); cost = revenue x the
//     subcategory's cost share (0.45-0.85) +/- 0.04. Amounts are whole cents.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/warehouse/warehouse.h"

namespace tessera::engine::demo {

struct DemoOptions {
  int64_t rows = 100000;  // sales_fact rows
  uint64_t seed = 42;
};

struct DemoProgress {
  std::string_view table;
  int64_t rows_loaded = 0;
  int64_t rows_total = 0;
};

// Called after each table is loaded and every million sales_fact rows.
using DemoProgressCallback = std::function<void(const DemoProgress&)>;

// The 14 tables in load order: lookups from the top of each hierarchy down, sales_fact last.
std::vector<std::string> DemoTableNames();
std::vector<warehouse::TableSchema> DemoTableSchemas();

// Replaces the demo tables in `warehouse` and logs progress. Throws Error(kInvalidInput) for
// negative rows, and whatever BulkLoad throws.
void GenerateDemoData(warehouse::Warehouse& warehouse, const DemoOptions& options,
                      const DemoProgressCallback& progress = {});

}  // namespace tessera::engine::demo
