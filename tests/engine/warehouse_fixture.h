// tests/engine/warehouse_fixture.h
//
// Tests that run once per warehouse backend: SQLite always, PostgreSQL when TESSERA_TEST_PG is
// set (skipped otherwise). Each test gets a fresh, empty database.
//
//   class WarehouseQuery : public WarehouseBackendTest {};
//   TEST_P(WarehouseQuery, ...) { auto warehouse = OpenWarehouse(); ... }
//   INSTANTIATE_TEST_SUITE_P(Backends, WarehouseQuery, ::testing::ValuesIn(kAllStoreBackends),
//                            BackendParamName);
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "engine/warehouse/warehouse.h"
#include "support/error_from.h"
#include "support/store_backend_test.h"
#include "support/test_databases.h"

namespace tessera::testing {

// Keeps everything a query streams.
class CollectingSink : public engine::warehouse::RowSink {
 public:
  void OnColumns(const std::vector<std::string>& names) override { columns = names; }
  void OnRow(const std::vector<engine::warehouse::SqlValue>& row) override { rows.push_back(row); }

  std::vector<std::string> columns;
  std::vector<std::vector<engine::warehouse::SqlValue>> rows;
};

// Counts rows without keeping them.
class CountingSink : public engine::warehouse::RowSink {
 public:
  void OnColumns(const std::vector<std::string>&) override {}
  void OnRow(const std::vector<engine::warehouse::SqlValue>& row) override {
    ++rows;
    if (const auto* number = std::get_if<int64_t>(&row.front())) sum += *number;
  }

  int64_t rows = 0;
  int64_t sum = 0;
};

inline std::vector<std::vector<engine::warehouse::SqlValue>> QueryRows(
    engine::warehouse::Warehouse& warehouse, const std::string& sql,
    std::vector<engine::warehouse::SqlValue> parameters = {}) {
  CollectingSink sink;
  warehouse.Query({sql, std::move(parameters)}, sink);
  return sink.rows;
}

// The value of a one-row, one-column query.
inline engine::warehouse::SqlValue QueryValue(
    engine::warehouse::Warehouse& warehouse, const std::string& sql,
    std::vector<engine::warehouse::SqlValue> parameters = {}) {
  auto rows = QueryRows(warehouse, sql, std::move(parameters));
  if (rows.size() != 1 || rows.front().size() != 1) {
    ADD_FAILURE() << sql << " returned " << rows.size() << " rows";
    return std::monostate{};
  }
  return rows.front().front();
}

inline int64_t QueryInt(engine::warehouse::Warehouse& warehouse, const std::string& sql) {
  engine::warehouse::SqlValue value = QueryValue(warehouse, sql);
  if (const auto* number = std::get_if<int64_t>(&value)) return *number;
  ADD_FAILURE() << sql << " did not return an integer";
  return -1;
}

// A RowSource over rows held in memory.
inline engine::warehouse::RowSource RowsFrom(
    std::vector<std::vector<engine::warehouse::SqlValue>> rows) {
  auto shared =
      std::make_shared<std::vector<std::vector<engine::warehouse::SqlValue>>>(std::move(rows));
  auto next = std::make_shared<size_t>(0);
  return [shared, next](std::vector<engine::warehouse::SqlValue>& row) {
    if (*next >= shared->size()) return false;
    row = (*shared)[(*next)++];
    return true;
  };
}

class WarehouseBackendTest : public ::testing::TestWithParam<StoreBackend> {
 protected:
  void SetUp() override {
    if (!IsBackendConfigured(GetParam())) {
      GTEST_SKIP() << "TESSERA_TEST_PG is not set (scripts/with-test-postgres.sh sets it)";
    }
    database_ = std::make_unique<TestDatabase>(GetParam());
  }

  TestDatabase& database() { return *database_; }
  bool is_postgres() const { return GetParam() == StoreBackend::kPostgres; }

  std::unique_ptr<engine::warehouse::Warehouse> OpenWarehouse(int max_connections = 4) {
    return OpenWarehouseAt(*database_, max_connections);
  }

  static std::unique_ptr<engine::warehouse::Warehouse> OpenWarehouseAt(const TestDatabase& database,
                                                                       int max_connections = 4) {
    return engine::warehouse::Warehouse::Open(
        {.name = "Test Warehouse", .url = database.url(), .max_connections = max_connections});
  }

 private:
  std::unique_ptr<TestDatabase> database_;
};

}  // namespace tessera::testing
