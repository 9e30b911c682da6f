#include "engine/warehouse/sqlite_warehouse.h"

#include <spdlog/spdlog.h>
#include <sqlite3.h>

#include "db/connect_error.h"
#include "db/sqlite.h"
#include "engine/warehouse/ddl.h"

namespace tessera::engine::warehouse {
namespace {

constexpr std::chrono::milliseconds kBusyTimeout{10000};
// Virtual machine steps between two looks at the deadline and the cancel flag: a few
// microseconds of work, so a cancelled statement stops almost at once.
constexpr int kStepsPerProgressCheck = 1000;
constexpr std::string_view kLoadCacheSize = "PRAGMA cache_size = -65536";  // 64 MiB
constexpr std::string_view kDefaultCacheSize = "PRAGMA cache_size = -8192";
// ANALYZE samples this many rows per index instead of reading whole tables.
constexpr std::string_view kAnalysisLimit = "PRAGMA analysis_limit = 10000";

using Clock = std::chrono::steady_clock;

// Codes that mean the file cannot be used as a database at all, as opposed to a statement the
// database refused.
bool IsUnreachableCode(int result_code) {
  switch (result_code & 0xff) {
    case SQLITE_CANTOPEN:
    case SQLITE_IOERR:
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
      return true;
    default:
      return false;
  }
}

// Why the progress handler interrupted a statement.
struct StepWatch {
  enum class Stop { kNone, kTimedOut, kCancelled };
  Clock::time_point deadline;
  const std::atomic<bool>* cancel = nullptr;
  Stop stop = Stop::kNone;

  static int Check(void* self) {
    auto* watch = static_cast<StepWatch*>(self);
    if (watch->cancel != nullptr && watch->cancel->load(std::memory_order_relaxed)) {
      watch->stop = Stop::kCancelled;
    } else if (Clock::now() >= watch->deadline) {
      watch->stop = Stop::kTimedOut;
    }
    return watch->stop == Stop::kNone ? 0 : 1;
  }
};

class ProgressHandlerScope {
 public:
  ProgressHandlerScope(sqlite3* db, StepWatch& watch) : db_(db) {
    sqlite3_progress_handler(db_, kStepsPerProgressCheck, &StepWatch::Check, &watch);
  }
  ~ProgressHandlerScope() { sqlite3_progress_handler(db_, 0, nullptr, nullptr); }
  ProgressHandlerScope(const ProgressHandlerScope&) = delete;
  ProgressHandlerScope& operator=(const ProgressHandlerScope&) = delete;

 private:
  sqlite3* db_;
};

std::vector<std::string> ColumnNames(sqlite3_stmt* stmt) {
  std::vector<std::string> names;
  int count = sqlite3_column_count(stmt);
  for (int c = 0; c < count; ++c) {
    const char* name = sqlite3_column_name(stmt, c);
    names.emplace_back(name == nullptr ? "" : name);
  }
  return names;
}

std::string InsertSql(const TableSchema& schema) {
  std::string placeholders;
  for (size_t i = 0; i < schema.columns.size(); ++i) placeholders += i == 0 ? "?" : ", ?";
  return "INSERT INTO " + QuotedIdentifier(schema.name) + " (" + ColumnListSql(schema) +
         ") VALUES (" + placeholders + ")";
}

class SqliteWarehouseConnection : public WarehouseConnection {
 public:
  SqliteWarehouseConnection(std::string warehouse_name, db::SqliteHandle db)
      : name_(std::move(warehouse_name)), db_(std::move(db)) {}

  void Configure() {
    Execute("PRAGMA journal_mode = WAL");
    Execute("PRAGMA synchronous = NORMAL");
    Execute(kDefaultCacheSize);
    Execute(kAnalysisLimit);
  }

  void Query(const SqlStatement& statement, RowSink& sink, const QueryOptions& options) override {
    try {
      Run(statement, sink, options);
    } catch (...) {
      RollbackIfOpen();
      throw;
    }
  }

  void BulkLoad(const TableSchema& schema, const RowSource& source,
                const std::vector<std::string>& indexed_columns) override {
    Execute("PRAGMA synchronous = OFF");
    Execute(kLoadCacheSize);
    try {
      Execute("BEGIN IMMEDIATE");
      Execute(DropTableSql(schema));
      Execute(CreateTableSql(schema, Dialect::kSqlite));
      InsertRows(schema, source);
      for (const std::string& sql : CreateIndexSql(schema, indexed_columns)) Execute(sql);
      Execute("COMMIT");
      Execute("ANALYZE " + QuotedIdentifier(schema.name));
      Execute("PRAGMA wal_checkpoint(TRUNCATE)");
    } catch (...) {
      RollbackIfOpen();
      RestoreAfterLoad();
      throw;
    }
    RestoreAfterLoad();
  }

  bool is_healthy() const override { return healthy_; }

 private:
  [[noreturn]] void Fail(int result_code) {
    const db::SqliteFailure failure = db::DescribeSqliteFailure(db_.get(), result_code);
    if (IsUnreachableCode(failure.code) || IsUnreachableCode(result_code)) {
      healthy_ = false;
      spdlog::warn("warehouse '{}' cannot be reached: sqlite: {}", name_, failure.message);
      throw UnreachableError(name_);
    }
    throw RefusedError(name_, "sqlite: " + failure.message);
  }

  void Execute(std::string_view sql) {
    int result = sqlite3_exec(db_.get(), std::string(sql).c_str(), nullptr, nullptr, nullptr);
    if (result != SQLITE_OK) Fail(result);
  }

  void Run(const SqlStatement& statement, RowSink& sink, const QueryOptions& options) {
    db::SqliteStatement prepared(db_.get(), statement.text);
    if (prepared.prepare_result() != SQLITE_OK) Fail(prepared.prepare_result());
    if (prepared.get() == nullptr) throw RefusedError(name_, "the statement is empty");
    BindAll(prepared, statement.parameters);

    StepWatch watch{Clock::now() + options.timeout, options.cancel};
    ProgressHandlerScope progress(db_.get(), watch);
    sink.OnColumns(ColumnNames(prepared.get()));
    std::vector<SqlValue> row(static_cast<size_t>(prepared.column_count()));
    for (;;) {
      int result = sqlite3_step(prepared.get());
      if (result == SQLITE_DONE) return;
      if (result != SQLITE_ROW) StepFailed(result, watch, options);
      for (int c = 0; c < static_cast<int>(row.size()); ++c) prepared.ReadColumn(c, row[c]);
      sink.OnRow(row);
    }
  }

  void BindAll(db::SqliteStatement& prepared, const std::vector<SqlValue>& parameters) {
    int expected = sqlite3_bind_parameter_count(prepared.get());
    if (expected != static_cast<int>(parameters.size())) {
      throw RefusedError(name_, "the statement has " + std::to_string(expected) +
                                    " placeholders but " + std::to_string(parameters.size()) +
                                    " values were given");
    }
    for (size_t i = 0; i < parameters.size(); ++i) {
      int result = prepared.Bind(static_cast<int>(i + 1), parameters[i]);
      if (result != SQLITE_OK) Fail(result);
    }
  }

  [[noreturn]] void StepFailed(int result, const StepWatch& watch, const QueryOptions& options) {
    if ((result & 0xff) == SQLITE_INTERRUPT) {
      if (watch.stop == StepWatch::Stop::kCancelled) throw CancelledError(name_);
      throw TimedOutError(name_, options.timeout);
    }
    Fail(result);
  }

  void InsertRows(const TableSchema& schema, const RowSource& source) {
    db::SqliteStatement insert(db_.get(), InsertSql(schema));
    if (insert.prepare_result() != SQLITE_OK) Fail(insert.prepare_result());
    const size_t width = schema.columns.size();
    std::vector<SqlValue> row(width);
    while (source(row)) {
      if (row.size() != width) throw WrongRowWidth(schema, row.size());
      for (size_t i = 0; i < width; ++i) {
        int result = insert.Bind(static_cast<int>(i + 1), row[i]);
        if (result != SQLITE_OK) Fail(result);
      }
      int result = sqlite3_step(insert.get());
      if (result != SQLITE_DONE) Fail(result);
      sqlite3_reset(insert.get());
    }
  }

  Error WrongRowWidth(const TableSchema& schema, size_t width) const {
    return Error(ErrorCode::kInternal, "loading table '" + schema.name + "': a row has " +
                                           std::to_string(width) + " values, the table has " +
                                           std::to_string(schema.columns.size()) + " columns");
  }

  void RollbackIfOpen() {
    if (healthy_ && sqlite3_get_autocommit(db_.get()) == 0) {
      sqlite3_exec(db_.get(), "ROLLBACK", nullptr, nullptr, nullptr);
    }
  }

  void RestoreAfterLoad() {
    if (!healthy_) return;
    sqlite3_exec(db_.get(), "PRAGMA synchronous = NORMAL", nullptr, nullptr, nullptr);
    sqlite3_exec(db_.get(), std::string(kDefaultCacheSize).c_str(), nullptr, nullptr, nullptr);
  }

  std::string name_;
  db::SqliteHandle db_;
  bool healthy_ = true;
};

}  // namespace

std::unique_ptr<WarehouseConnection> OpenSqliteWarehouseConnection(
    const std::string& warehouse_name, const std::string& path) {
  std::unique_ptr<SqliteWarehouseConnection> connection;
  try {
    connection = std::make_unique<SqliteWarehouseConnection>(warehouse_name,
                                                             db::OpenSqlite(path, kBusyTimeout));
  } catch (const db::ConnectError& error) {
    spdlog::warn("warehouse '{}' cannot be reached: sqlite: {}", warehouse_name, error.what());
    throw UnreachableError(warehouse_name);
  }
  try {
    connection->Configure();
  } catch (const Error& error) {
    // A file that is not a database, or that we may not lock, cannot serve any query.
    if (error.code() != ErrorCode::kEngineUnreachable) {
      spdlog::warn("warehouse '{}' cannot be reached: {}", warehouse_name, error.what());
    }
    throw UnreachableError(warehouse_name);
  }
  return connection;
}

}  // namespace tessera::engine::warehouse
