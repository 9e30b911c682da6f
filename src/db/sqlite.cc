#include "db/sqlite.h"

#include <sqlite3.h>

#include "core/private_files.h"
#include "db/connect_error.h"

namespace tessera::db {

void SqliteCloser::operator()(sqlite3* db) const { sqlite3_close_v2(db); }

SqliteHandle OpenSqlite(const std::string& path, std::chrono::milliseconds busy_timeout) {
  if (path != ":memory:" && !path.empty()) CreatePrivateFile(path);
  sqlite3* db = nullptr;
  const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  const int result = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  SqliteHandle handle(db);
  if (result != SQLITE_OK) {
    throw ConnectError("cannot open '" + path + "': " + sqlite3_errstr(result));
  }
  sqlite3_extended_result_codes(db, 1);
  sqlite3_busy_timeout(db, static_cast<int>(busy_timeout.count()));
  return handle;
}

SqliteStatement::SqliteStatement(sqlite3* db, std::string_view sql) {
  prepare_result_ =
      sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr);
}

SqliteStatement::~SqliteStatement() { sqlite3_finalize(stmt_); }

int SqliteStatement::Bind(int index, const Value& value, Binding binding) {
  if (const auto* number = std::get_if<int64_t>(&value)) {
    return sqlite3_bind_int64(stmt_, index, *number);
  }
  if (const auto* real = std::get_if<double>(&value)) {
    return sqlite3_bind_double(stmt_, index, *real);
  }
  if (const auto* text = std::get_if<std::string>(&value)) {
    return sqlite3_bind_text64(stmt_, index, text->data(), text->size(),
                               binding == Binding::kCopied ? SQLITE_TRANSIENT : SQLITE_STATIC,
                               SQLITE_UTF8);
  }
  return sqlite3_bind_null(stmt_, index);
}

void SqliteStatement::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

int SqliteStatement::column_count() const { return sqlite3_column_count(stmt_); }

void SqliteStatement::ReadColumn(int column, Value& cell) const {
  switch (sqlite3_column_type(stmt_, column)) {
    case SQLITE_INTEGER:
      cell = static_cast<int64_t>(sqlite3_column_int64(stmt_, column));
      return;
    case SQLITE_FLOAT:
      cell = sqlite3_column_double(stmt_, column);
      return;
    case SQLITE_NULL:
      cell = std::monostate{};
      return;
    default: {
      const auto* bytes = static_cast<const char*>(sqlite3_column_blob(stmt_, column));
      const auto size = static_cast<size_t>(sqlite3_column_bytes(stmt_, column));
      AssignText(cell, bytes == nullptr ? std::string_view() : std::string_view(bytes, size));
    }
  }
}

SqliteFailure DescribeSqliteFailure(sqlite3* db, int result) {
  const int extended = sqlite3_extended_errcode(db);
  if (extended == SQLITE_OK) return {result, sqlite3_errstr(result)};
  return {extended, sqlite3_errmsg(db)};
}

}  // namespace tessera::db
