// engine/warehouse/warehouse.h
//
// A warehouse: the database a project's reports read their rows from. Connections are named in
// the configuration; each names a database URL (db/database_url.h),
// "sqlite:///abs/path/warehouse.db" (the default, in the data directory) or "postgresql://...".
// One interface for both, with the dialect differences kept here.
//
// Contract:
//   - Query() runs one statement with bound parameters and streams its rows to the sink; it never
//     holds the whole result. Values arrive typed (integer, real, text, null). Dates are text
//     "yyyy-MM-dd" on both backends.
//   - Every call either succeeds or throws tessera::Error:
//       kEngineUnreachable  the database cannot be reached or went away (503 ERR013),
//       kTimeout            the statement ran longer than its timeout and was cancelled,
//       kEngine             the database refused the statement (a bug or a data problem).
//     A cancelled query (the `cancel` flag set while it runs) throws kTimeout as well, with a
//     message saying it was cancelled. A failed call leaves no open transaction behind.
//   - Connections are pooled (max_connections); a broken connection is discarded and the next
//     call reconnects, so the warehouse recovers by itself when the database returns.
//   - Thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "core/pool_usage.h"
#include "db/value.h"
#include "model/semantic.h"

namespace tessera::engine::warehouse {

enum class Dialect { kSqlite, kPostgres };

using SqlValue = db::Value;

struct SqlStatement {
  std::string text;  // placeholders written "?"; the PostgreSQL backend numbers them
  std::vector<SqlValue> parameters;
};

class RowSink {
 public:
  virtual ~RowSink() = default;
  virtual void OnColumns(const std::vector<std::string>& names) = 0;
  virtual void OnRow(const std::vector<SqlValue>& row) = 0;  // valid only during the call
};

struct QueryOptions {
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};
  const std::atomic<bool>* cancel = nullptr;  // set to true to abandon the query
};

// A table to create and fill in bulk (demo generation, benchmarks).
struct TableSchema {
  std::string name;
  std::vector<model::Column> columns;
  std::vector<std::string> primary_key;  // column names; may be empty
};

// Produces rows for BulkLoad: fills `row` (one value per column) and returns true, or returns
// false when there are no more rows. Called from the loading thread only.
using RowSource = std::function<bool(std::vector<SqlValue>& row)>;

struct WarehouseOptions {
  std::string name;  // as in the configuration, for messages
  std::string url;
  int max_connections = 4;
};

class Warehouse {
 public:
  // Connects lazily: a database that is down makes calls fail, not Open. Throws
  // Error(kInvalidInput) when the URL names no supported backend ("sqlite:///abs/path.db",
  // "sqlite:relative/path.db", "postgresql://..." or "postgres://...").
  static std::unique_ptr<Warehouse> Open(const WarehouseOptions& options);
  virtual ~Warehouse() = default;

  virtual Dialect dialect() const = 0;
  virtual const std::string& name() const = 0;

  virtual void Query(const SqlStatement& statement, RowSink& sink,
                     const QueryOptions& options = {}) = 0;

  // Drops `schema.name` if it exists, creates it, and loads every row of `source` in one
  // transaction (COPY on PostgreSQL, a prepared INSERT on SQLite); memory stays bounded whatever
  // the row count. Creates indexes on `indexed_columns` afterwards.
  virtual void BulkLoad(const TableSchema& schema, const RowSource& source,
                        const std::vector<std::string>& indexed_columns = {}) = 0;

  // Quotes an identifier for this dialect ("name" with embedded quotes doubled).
  virtual std::string QuoteIdentifier(std::string_view identifier) const = 0;

  // The connections this warehouse holds now, for monitoring.
  virtual PoolUsage pool_usage() { return {}; }
};

}  // namespace tessera::engine::warehouse
