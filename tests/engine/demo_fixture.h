// tests/engine/demo_fixture.h
//
// The demo warehouse (engine/demo/data.h) for tests of what is built on it, generated once per
// backend per test binary, with `flat`: the star schema flattened by hand (demo/SCHEMA.md), one
// row per order line, so reference results are SQL written independently of the engine. And the
// demo bundle's semantic model, optionally with extra objects.
#pragma once

#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/demo/data.h"
#include "engine/warehouse/warehouse.h"
#include "engine/warehouse_fixture.h"
#include "model/bundle/bundle.h"
#include "model/semantic_model.h"
#include "support/test_databases.h"

namespace tessera::testing {

inline constexpr int64_t kDemoFixtureRows = 20000;
inline constexpr uint64_t kDemoFixtureSeed = 11;

inline std::string CreateFlatSql(StoreBackend backend) {
  std::string sql = R"(CREATE TABLE flat AS
  SELECT f.order_line_id, f.units, f.revenue, f.cost, f.discount,
         d.day_id, m.month_id, m.month_name, q.quarter_id, y.year_id,
         ci.city_id, ci.city_name, co.country_id, co.country_name, r.region_id, r.region_name,
         it.item_id, it.item_name, it.list_price, sc.subcategory_id, sc.subcategory_name,
         ca.category_id, ca.category_name, cu.customer_id, cu.customer_name,
         cs.customer_segment_id, cs.customer_segment_name, ch.channel_id, ch.channel_name
  FROM sales_fact f
  JOIN lu_day d ON d.day_id = f.day_id
  JOIN lu_month m ON m.month_id = d.month_id
  JOIN lu_quarter q ON q.quarter_id = m.quarter_id
  JOIN lu_year y ON y.year_id = q.year_id
  JOIN lu_city ci ON ci.city_id = f.city_id
  JOIN lu_country co ON co.country_id = ci.country_id
  JOIN lu_region r ON r.region_id = co.region_id
  JOIN lu_item it ON it.item_id = f.item_id
  JOIN lu_subcategory sc ON sc.subcategory_id = it.subcategory_id
  JOIN lu_category ca ON ca.category_id = sc.category_id
  JOIN lu_customer cu ON cu.customer_id = f.customer_id
  JOIN lu_customer_segment cs ON cs.customer_segment_id = cu.customer_segment_id
  JOIN lu_channel ch ON ch.channel_id = f.channel_id)";
  if (backend == StoreBackend::kSqlite) {  // keeps the fact table in the outer loop
    for (size_t at = sql.find("\n  JOIN "); at != std::string::npos;
         at = sql.find("\n  JOIN ", at + 1)) {
      sql.replace(at, 8, "\n  CROSS JOIN ");
    }
  }
  return sql;
}

struct DemoWarehouse {
  std::unique_ptr<TestDatabase> database;
  std::unique_ptr<engine::warehouse::Warehouse> warehouse;
};

// The demo warehouse of `backend` with its `flat` table, made on first use.
inline DemoWarehouse& SharedDemoWarehouse(StoreBackend backend) {
  static std::map<StoreBackend, DemoWarehouse> warehouses;
  DemoWarehouse& demo = warehouses[backend];
  if (!demo.warehouse) {
    demo.database = std::make_unique<TestDatabase>(backend);
    demo.warehouse =
        engine::warehouse::Warehouse::Open({.name = "demo", .url = demo.database->url()});
    engine::demo::GenerateDemoData(*demo.warehouse, {kDemoFixtureRows, kDemoFixtureSeed});
    QueryRows(*demo.warehouse, CreateFlatSql(backend));
  }
  return demo;
}

inline std::vector<model::ObjectRecord> DemoRecords() {
  model::bundle::Bundle bundle = model::bundle::ReadBundle(TESSERA_SOURCE_DIR "/demo/tutorial");
  std::vector<model::ObjectRecord> records;
  for (const auto& object : bundle.objects) records.push_back(object.record);
  return records;
}

inline model::SemanticModel DemoModel(std::vector<model::ObjectRecord> extra = {}) {
  std::vector<model::ObjectRecord> records = DemoRecords();
  records.insert(records.end(), extra.begin(), extra.end());
  return model::SemanticModel::Build(records);
}

// A cell as text, the same for both backends: integers in decimal, reals with 17 digits.
inline std::string CellText(const engine::warehouse::SqlValue& value) {
  if (std::holds_alternative<std::monostate>(value)) return "<null>";
  if (const auto* integer = std::get_if<int64_t>(&value)) return std::to_string(*integer);
  if (const auto* real = std::get_if<double>(&value)) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.17g", *real);
    return buffer;
  }
  return std::get<std::string>(value);
}

inline std::optional<double> CellNumber(const engine::warehouse::SqlValue& value) {
  if (const auto* integer = std::get_if<int64_t>(&value)) return static_cast<double>(*integer);
  if (const auto* real = std::get_if<double>(&value)) return *real;
  return std::nullopt;
}

}  // namespace tessera::testing
