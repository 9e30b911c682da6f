// engine/demo/lookups.h
//
// The rows of the demo's 13 lookup tables (demo/SCHEMA.md), in the column order of
// DemoTableSchemas(). Small (at most 10,000 rows each) and independent of the fact row count.
#pragma once

#include <string_view>
#include <vector>

#include "engine/demo/catalog.h"
#include "engine/warehouse/warehouse.h"

namespace tessera::engine::demo {

using Rows = std::vector<std::vector<warehouse::SqlValue>>;

// Throws Error(kInternal) for a name that is not a demo lookup table.
Rows LookupRows(std::string_view table, const Catalog& catalog);

}  // namespace tessera::engine::demo
