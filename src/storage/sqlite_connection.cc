#include "storage/sqlite_connection.h"

#include <sqlite3.h>

#include <string_view>

#include "core/private_files.h"

namespace tessera::storage {
namespace {

bool IsFatal(int result_code) {
  switch (result_code & 0xff) {
    case SQLITE_CANTOPEN:
    case SQLITE_IOERR:
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
    case SQLITE_FULL:
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_NOMEM:
      return true;
    default:
      return false;
  }
}

SqlError::Kind Classify(int result_code) {
  if (IsFatal(result_code)) return SqlError::Kind::kConnectionLost;
  switch (result_code & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return SqlError::Kind::kBusy;
    default:
      break;
  }
  if (result_code == SQLITE_CONSTRAINT_UNIQUE || result_code == SQLITE_CONSTRAINT_PRIMARYKEY) {
    return SqlError::Kind::kUniqueViolation;
  }
  return SqlError::Kind::kOther;
}

// Owns one prepared statement for the duration of a call.
class Statement {
 public:
  Statement(sqlite3* db, std::string_view sql) {
    result_ = sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr);
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  int prepare_result() const { return result_; }
  sqlite3_stmt* get() const { return stmt_; }

 private:
  sqlite3_stmt* stmt_ = nullptr;
  int result_ = SQLITE_OK;
};

int Bind(sqlite3_stmt* stmt, int index, const SqlValue& value) {
  if (const auto* number = std::get_if<int64_t>(&value)) {
    return sqlite3_bind_int64(stmt, index, *number);
  }
  if (const auto* real = std::get_if<double>(&value))
    return sqlite3_bind_double(stmt, index, *real);
  if (const auto* text = std::get_if<std::string>(&value)) {
    return sqlite3_bind_text64(stmt, index, text->data(), text->size(), SQLITE_TRANSIENT,
                               SQLITE_UTF8);
  }
  return sqlite3_bind_null(stmt, index);
}

SqlValue ColumnValue(sqlite3_stmt* stmt, int column) {
  switch (sqlite3_column_type(stmt, column)) {
    case SQLITE_INTEGER:
      return static_cast<int64_t>(sqlite3_column_int64(stmt, column));
    case SQLITE_FLOAT:
      return sqlite3_column_double(stmt, column);
    case SQLITE_NULL:
      return std::monostate{};
    default: {
      const auto* bytes = static_cast<const char*>(sqlite3_column_blob(stmt, column));
      int size = sqlite3_column_bytes(stmt, column);
      return std::string(bytes == nullptr ? "" : bytes, static_cast<size_t>(size));
    }
  }
}

class SqliteConnection : public SqlConnection {
 public:
  explicit SqliteConnection(sqlite3* db) : db_(db) {}
  ~SqliteConnection() override { sqlite3_close_v2(db_); }

  int64_t Execute(std::string_view sql, const SqlParams& params) override {
    Run(sql, params, nullptr);
    return sqlite3_changes64(db_);
  }

  std::vector<SqlRow> Query(std::string_view sql, const SqlParams& params) override {
    std::vector<SqlRow> rows;
    Run(sql, params, &rows);
    return rows;
  }

  void Begin(TransactionMode mode) override {
    Execute(mode == TransactionMode::kRead ? "BEGIN" : "BEGIN IMMEDIATE", {});
  }

  bool HasTable(std::string_view name) override {
    return !Query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                  {std::string(name)})
                .empty();
  }

  bool is_healthy() const override { return healthy_; }
  std::string_view backend_name() const override { return "sqlite"; }

 private:
  void Run(std::string_view sql, const SqlParams& params, std::vector<SqlRow>* rows) {
    Statement statement(db_, sql);
    Check(statement.prepare_result());
    for (size_t i = 0; i < params.size(); ++i) {
      Check(Bind(statement.get(), static_cast<int>(i + 1), params[i]));
    }
    for (;;) {
      int result = sqlite3_step(statement.get());
      if (result == SQLITE_DONE) return;
      if (result != SQLITE_ROW) Check(sqlite3_extended_errcode(db_));
      if (rows == nullptr) continue;
      int columns = sqlite3_column_count(statement.get());
      SqlRow& row = rows->emplace_back();
      row.reserve(static_cast<size_t>(columns));
      for (int c = 0; c < columns; ++c) row.push_back(ColumnValue(statement.get(), c));
    }
  }

  void Check(int result) {
    if (result == SQLITE_OK || result == SQLITE_ROW || result == SQLITE_DONE) return;
    int extended = sqlite3_extended_errcode(db_);
    // Some API misuse (a bad bind index, an empty statement) is reported only by the result.
    bool only_in_result = extended == SQLITE_OK;
    if (only_in_result) extended = result;
    SqlError::Kind kind = Classify(extended);
    if (kind == SqlError::Kind::kConnectionLost) healthy_ = false;
    throw SqlError(kind, std::string("sqlite: ") +
                             (only_in_result ? sqlite3_errstr(extended) : sqlite3_errmsg(db_)));
  }

  sqlite3* db_;
  bool healthy_ = true;
};

}  // namespace

std::unique_ptr<SqlConnection> OpenSqliteConnection(const std::string& path,
                                                    std::chrono::milliseconds busy_timeout) {
  // A new database (and so its WAL and shared-memory files, which SQLite gives its mode) is
  // readable by this user only.
  if (path != ":memory:" && !path.empty()) CreatePrivateFile(path);
  sqlite3* db = nullptr;
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  int result = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  if (result != SQLITE_OK) {
    std::string message = "sqlite: cannot open '" + path + "': " + sqlite3_errstr(result);
    sqlite3_close_v2(db);
    throw SqlError(SqlError::Kind::kConnectionLost, message);
  }
  sqlite3_extended_result_codes(db, 1);
  sqlite3_busy_timeout(db, static_cast<int>(busy_timeout.count()));
  auto connection = std::make_unique<SqliteConnection>(db);
  try {
    connection->Query("PRAGMA journal_mode = WAL", {});
    connection->Execute("PRAGMA synchronous = NORMAL", {});
  } catch (const SqlError& error) {
    // A file that is not a database, or a directory we may not write, is not usable at all.
    throw SqlError(SqlError::Kind::kConnectionLost, error.what());
  }
  return connection;
}

}  // namespace tessera::storage
