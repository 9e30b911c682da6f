#include "engine/demo/data.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <memory>

#include "core/error.h"
#include "engine/demo/catalog.h"
#include "engine/demo/facts.h"
#include "engine/demo/lookups.h"

namespace tessera::engine::demo {
namespace {

using model::DataType;

constexpr std::string_view kFactTable = "sales_fact";
constexpr int64_t kProgressInterval = 1000000;

// Date ranges are the common selective filter. The rows arrive in date order, so this index
// builds quickly; indexes on the other keys would cost more to build (random order) than they
// save on aggregate queries, which scan the fact table anyway.
const std::vector<std::string> kFactIndexes = {"day_id"};

warehouse::TableSchema Table(std::string name, std::vector<model::Column> columns) {
  std::string key = columns.front().name;
  return {.name = std::move(name), .columns = std::move(columns), .primary_key = {key}};
}

warehouse::RowSource RowsOf(demo::Rows rows) {
  auto shared = std::make_shared<demo::Rows>(std::move(rows));
  auto next = std::make_shared<size_t>(0);
  return [shared, next](std::vector<warehouse::SqlValue>& row) {
    if (*next == shared->size()) return false;
    row = (*shared)[(*next)++];
    return true;
  };
}

void LoadFacts(warehouse::Warehouse& warehouse, const warehouse::TableSchema& schema,
               const demo::Catalog& catalog, const DemoOptions& options,
               const DemoProgressCallback& progress) {
  demo::FactRows facts(catalog, options.rows, options.seed);
  int64_t loaded = 0;
  auto started = std::chrono::steady_clock::now();
  warehouse::RowSource source = [&](std::vector<warehouse::SqlValue>& row) {
    if (!facts.Next(row)) return false;
    if (++loaded % kProgressInterval == 0) {
      double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      spdlog::info("demo: {} of {} {} rows ({:.0f} rows/s)", loaded, options.rows, kFactTable,
                   static_cast<double>(loaded) / seconds);
      if (progress) progress({kFactTable, loaded, options.rows});
    }
    return true;
  };
  warehouse.BulkLoad(schema, source, kFactIndexes);
}

}  // namespace

std::vector<warehouse::TableSchema> DemoTableSchemas() {
  return {
      Table("lu_year", {{"year_id", DataType::kInteger}}),
      Table("lu_quarter", {{"quarter_id", DataType::kText}, {"year_id", DataType::kInteger}}),
      Table("lu_month", {{"month_id", DataType::kText},
                         {"month_name", DataType::kText},
                         {"quarter_id", DataType::kText}}),
      Table("lu_day", {{"day_id", DataType::kDate}, {"month_id", DataType::kText}}),
      Table("lu_region", {{"region_id", DataType::kInteger}, {"region_name", DataType::kText}}),
      Table("lu_country", {{"country_id", DataType::kInteger},
                           {"country_name", DataType::kText},
                           {"region_id", DataType::kInteger}}),
      Table("lu_city", {{"city_id", DataType::kInteger},
                        {"city_name", DataType::kText},
                        {"country_id", DataType::kInteger}}),
      Table("lu_category",
            {{"category_id", DataType::kInteger}, {"category_name", DataType::kText}}),
      Table("lu_subcategory", {{"subcategory_id", DataType::kInteger},
                               {"subcategory_name", DataType::kText},
                               {"category_id", DataType::kInteger}}),
      Table("lu_item", {{"item_id", DataType::kInteger},
                        {"item_name", DataType::kText},
                        {"subcategory_id", DataType::kInteger},
                        {"list_price", DataType::kReal}}),
      Table("lu_customer_segment", {{"customer_segment_id", DataType::kInteger},
                                    {"customer_segment_name", DataType::kText}}),
      Table("lu_customer", {{"customer_id", DataType::kInteger},
                            {"customer_name", DataType::kText},
                            {"customer_segment_id", DataType::kInteger}}),
      Table("lu_channel", {{"channel_id", DataType::kInteger}, {"channel_name", DataType::kText}}),
      Table(std::string(kFactTable), {{"order_line_id", DataType::kInteger},
                                      {"day_id", DataType::kDate},
                                      {"city_id", DataType::kInteger},
                                      {"item_id", DataType::kInteger},
                                      {"customer_id", DataType::kInteger},
                                      {"channel_id", DataType::kInteger},
                                      {"units", DataType::kInteger},
                                      {"revenue", DataType::kReal},
                                      {"cost", DataType::kReal},
                                      {"discount", DataType::kReal}}),
  };
}

std::vector<std::string> DemoTableNames() {
  std::vector<std::string> names;
  for (const warehouse::TableSchema& schema : DemoTableSchemas()) names.push_back(schema.name);
  return names;
}

void GenerateDemoData(warehouse::Warehouse& warehouse, const DemoOptions& options,
                      const DemoProgressCallback& progress) {
  if (options.rows < 0) {
    throw Error(ErrorCode::kInvalidInput,
                "demo rows: " + std::to_string(options.rows) + " is negative; expected 0 or more");
  }
  auto started = std::chrono::steady_clock::now();
  demo::Catalog catalog = demo::BuildCatalog(options.seed);
  for (const warehouse::TableSchema& schema : DemoTableSchemas()) {
    if (schema.name == kFactTable) {
      LoadFacts(warehouse, schema, catalog, options, progress);
    } else {
      demo::Rows rows = demo::LookupRows(schema.name, catalog);
      auto count = static_cast<int64_t>(rows.size());
      warehouse.BulkLoad(schema, RowsOf(std::move(rows)));
      if (progress) progress({schema.name, count, count});
    }
  }
  if (progress) progress({kFactTable, options.rows, options.rows});
  spdlog::info("demo: warehouse '{}' generated with {} {} rows (seed {}) in {:.1f} s",
               warehouse.name(), options.rows, kFactTable, options.seed,
               std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
}

}  // namespace tessera::engine::demo
