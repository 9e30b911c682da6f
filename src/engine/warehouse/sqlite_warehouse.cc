#include "engine/warehouse/sqlite_warehouse.h"

#include <spdlog/spdlog.h>
#include <sqlite3.h>

#include "core/private_files.h"
#include "engine/warehouse/ddl.h"

namespace tessera::engine::warehouse {
namespace {

constexpr int kBusyTimeoutMs = 10000;
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

class Statement {
 public:
  Statement(sqlite3* db, std::string_view sql) {
    prepare_result_ =
        sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr);
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  int prepare_result() const { return prepare_result_; }
  sqlite3_stmt* get() const { return stmt_; }

 private:
  sqlite3_stmt* stmt_ = nullptr;
  int prepare_result_ = SQLITE_OK;
};

// Why the progress handler interrupted a statement.
struct Watch {
  enum class Stop { kNone, kTimedOut, kCancelled };
  Clock::time_point deadline;
  const std::atomic<bool>* cancel = nullptr;
  Stop stop = Stop::kNone;

  static int Check(void* self) {
    auto* watch = static_cast<Watch*>(self);
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
  ProgressHandlerScope(sqlite3* db, Watch& watch) : db_(db) {
    sqlite3_progress_handler(db_, kStepsPerProgressCheck, &Watch::Check, &watch);
  }
  ~ProgressHandlerScope() { sqlite3_progress_handler(db_, 0, nullptr, nullptr); }
  ProgressHandlerScope(const ProgressHandlerScope&) = delete;
  ProgressHandlerScope& operator=(const ProgressHandlerScope&) = delete;

 private:
  sqlite3* db_;
};

int Bind(sqlite3_stmt* stmt, int index, const SqlValue& value) {
  if (const auto* number = std::get_if<int64_t>(&value)) {
    return sqlite3_bind_int64(stmt, index, *number);
  }
  if (const auto* real = std::get_if<double>(&value)) {
    return sqlite3_bind_double(stmt, index, *real);
  }
  if (const auto* text = std::get_if<std::string>(&value)) {
    return sqlite3_bind_text64(stmt, index, text->data(), text->size(), SQLITE_TRANSIENT,
                               SQLITE_UTF8);
  }
  return sqlite3_bind_null(stmt, index);
}

// Reuses the cell's string buffer when it already holds text.
void ReadCell(sqlite3_stmt* stmt, int column, SqlValue& cell) {
  switch (sqlite3_column_type(stmt, column)) {
    case SQLITE_INTEGER:
      cell = static_cast<int64_t>(sqlite3_column_int64(stmt, column));
      return;
    case SQLITE_FLOAT:
      cell = sqlite3_column_double(stmt, column);
      return;
    case SQLITE_NULL:
      cell = std::monostate{};
      return;
    default: {
      const auto* bytes = static_cast<const char*>(sqlite3_column_blob(stmt, column));
      auto size = static_cast<size_t>(sqlite3_column_bytes(stmt, column));
      std::string_view text(bytes == nullptr ? "" : bytes, bytes == nullptr ? 0 : size);
      if (auto* existing = std::get_if<std::string>(&cell)) {
        existing->assign(text);
      } else {
        cell = std::string(text);
      }
    }
  }
}

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
  SqliteWarehouseConnection(std::string warehouse_name, sqlite3* db)
      : name_(std::move(warehouse_name)), db_(db) {}
  ~SqliteWarehouseConnection() override { sqlite3_close_v2(db_); }

  void Configure() {
    sqlite3_extended_result_codes(db_, 1);
    sqlite3_busy_timeout(db_, kBusyTimeoutMs);
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
    int extended = sqlite3_extended_errcode(db_);
    // Some API misuse (a bad bind index) is reported only by the result.
    bool only_in_result = extended == SQLITE_OK;
    if (only_in_result) extended = result_code;
    std::string message = only_in_result ? sqlite3_errstr(result_code) : sqlite3_errmsg(db_);
    if (IsUnreachableCode(extended) || IsUnreachableCode(result_code)) {
      healthy_ = false;
      spdlog::warn("warehouse '{}' cannot be reached: sqlite: {}", name_, message);
      throw UnreachableError(name_);
    }
    throw RefusedError(name_, "sqlite: " + message);
  }

  void Execute(std::string_view sql) {
    int result = sqlite3_exec(db_, std::string(sql).c_str(), nullptr, nullptr, nullptr);
    if (result != SQLITE_OK) Fail(result);
  }

  void Run(const SqlStatement& statement, RowSink& sink, const QueryOptions& options) {
    Statement prepared(db_, statement.text);
    if (prepared.prepare_result() != SQLITE_OK) Fail(prepared.prepare_result());
    if (prepared.get() == nullptr) throw RefusedError(name_, "the statement is empty");
    BindAll(prepared.get(), statement.parameters);

    Watch watch{Clock::now() + options.timeout, options.cancel};
    ProgressHandlerScope progress(db_, watch);
    sink.OnColumns(ColumnNames(prepared.get()));
    std::vector<SqlValue> row(static_cast<size_t>(sqlite3_column_count(prepared.get())));
    for (;;) {
      int result = sqlite3_step(prepared.get());
      if (result == SQLITE_DONE) return;
      if (result != SQLITE_ROW) StepFailed(result, watch, options);
      for (int c = 0; c < static_cast<int>(row.size()); ++c) ReadCell(prepared.get(), c, row[c]);
      sink.OnRow(row);
    }
  }

  void BindAll(sqlite3_stmt* stmt, const std::vector<SqlValue>& parameters) {
    int expected = sqlite3_bind_parameter_count(stmt);
    if (expected != static_cast<int>(parameters.size())) {
      throw RefusedError(name_, "the statement has " + std::to_string(expected) +
                                    " placeholders but " + std::to_string(parameters.size()) +
                                    " values were given");
    }
    for (size_t i = 0; i < parameters.size(); ++i) {
      int result = Bind(stmt, static_cast<int>(i + 1), parameters[i]);
      if (result != SQLITE_OK) Fail(result);
    }
  }

  [[noreturn]] void StepFailed(int result, const Watch& watch, const QueryOptions& options) {
    if ((result & 0xff) == SQLITE_INTERRUPT) {
      if (watch.stop == Watch::Stop::kCancelled) throw CancelledError(name_);
      throw TimedOutError(name_, options.timeout);
    }
    Fail(result);
  }

  void InsertRows(const TableSchema& schema, const RowSource& source) {
    Statement insert(db_, InsertSql(schema));
    if (insert.prepare_result() != SQLITE_OK) Fail(insert.prepare_result());
    const size_t width = schema.columns.size();
    std::vector<SqlValue> row(width);
    while (source(row)) {
      if (row.size() != width) throw WrongRowWidth(schema, row.size());
      for (size_t i = 0; i < width; ++i) {
        int result = Bind(insert.get(), static_cast<int>(i + 1), row[i]);
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
    if (healthy_ && sqlite3_get_autocommit(db_) == 0) {
      sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    }
  }

  void RestoreAfterLoad() {
    if (!healthy_) return;
    sqlite3_exec(db_, "PRAGMA synchronous = NORMAL", nullptr, nullptr, nullptr);
    sqlite3_exec(db_, std::string(kDefaultCacheSize).c_str(), nullptr, nullptr, nullptr);
  }

  std::string name_;
  sqlite3* db_;
  bool healthy_ = true;
};

}  // namespace

std::unique_ptr<WarehouseConnection> OpenSqliteWarehouseConnection(
    const std::string& warehouse_name, const std::string& path) {
  // A new database (and so its WAL and shared-memory files, which SQLite gives its mode) is
  // readable by this user only.
  if (path != ":memory:" && !path.empty()) CreatePrivateFile(path);
  sqlite3* db = nullptr;
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  int result = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  if (result != SQLITE_OK) {
    spdlog::warn("warehouse '{}' cannot be reached: sqlite: cannot open '{}': {}", warehouse_name,
                 path, sqlite3_errstr(result));
    sqlite3_close_v2(db);
    throw UnreachableError(warehouse_name);
  }
  auto connection = std::make_unique<SqliteWarehouseConnection>(warehouse_name, db);
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
