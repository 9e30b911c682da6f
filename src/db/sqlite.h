// db/sqlite.h
//
// What every SQLite connection of Tessera shares, the storage service's and the warehouses':
//   - OpenSqlite opens a database file, creating it when missing (readable by this user only, and
//     so are its WAL and shared-memory files, which SQLite gives the database's mode) in a
//     directory that must exist; ":memory:" is a private in-memory database. The handle reports
//     extended result codes and waits up to `busy_timeout` for another connection's lock. It
//     sets no journal mode or pragma: each caller configures its own.
//   - SqliteStatement owns one prepared statement for the length of a call, binds db::Values and
//     reads columns as db::Values (INTEGER and REAL as numbers, NULL as null, TEXT and BLOB as
//     text).
//   - DescribeSqliteFailure says what a failed call failed with.
// A handle and its statements are used by one thread at a time.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "db/value.h"

struct sqlite3;
struct sqlite3_stmt;

namespace tessera::db {

struct SqliteCloser {
  void operator()(sqlite3* db) const;
};
using SqliteHandle = std::unique_ptr<sqlite3, SqliteCloser>;

// Throws ConnectError "cannot open '<path>': <SQLite's reason>" when SQLite cannot open the
// file. A file that opens but is not a database is found by the first statement run on it.
SqliteHandle OpenSqlite(const std::string& path, std::chrono::milliseconds busy_timeout);

class SqliteStatement {
 public:
  // Prepares `sql` (its first statement) on `db`. When that fails, or `sql` holds no statement
  // (only spaces or a comment), get() is null and prepare_result() says why (SQLITE_OK for no
  // statement).
  SqliteStatement(sqlite3* db, std::string_view sql);
  ~SqliteStatement();
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;

  int prepare_result() const { return prepare_result_; }
  sqlite3_stmt* get() const { return stmt_; }

  // How a bound text reaches SQLite: copied, or referenced in place, when the caller keeps
  // `value` unchanged until Reset() (a large value is then never copied to be bound).
  enum class Binding { kCopied, kReferenced };
  // Binds `value` to the 1-based parameter `index`; returns SQLite's result code.
  int Bind(int index, const Value& value, Binding binding = Binding::kCopied);
  // Makes the statement ready to run again with new bindings: ends its current run (releasing
  // what it holds of the database) and clears every binding.
  void Reset();
  int column_count() const;
  // Reads column `column` of the current row into `cell` (see AssignText for text).
  void ReadColumn(int column, Value& cell) const;

 private:
  sqlite3_stmt* stmt_ = nullptr;
  int prepare_result_ = 0;
};

struct SqliteFailure {
  int code = 0;         // the extended result code
  std::string message;  // SQLite's words for it
};

// What a call that returned `result` on `db` failed with: the handle's last error code and
// message, or, for misuse only the result reports (a bad bind index, an empty statement),
// `result` and SQLite's generic text for it.
SqliteFailure DescribeSqliteFailure(sqlite3* db, int result);

}  // namespace tessera::db
