// storage/sql_connection.h
//
// The storage service's view of one database connection, the same for SQLite and PostgreSQL, so
// the store's SQL is written once. Statements use `?` placeholders and always bind their values;
// a PostgreSQL connection rewrites them to $1..$n. Values are null, 64-bit integers, doubles or
// text; booleans are stored as 0/1 and timestamps as unix milliseconds.
//
// Every failure throws SqlError, classified so the store can tell a lost database (discard the
// connection, the service is unavailable) from a conflict or a bug. A connection is used by one
// thread at a time.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/json.h"
#include "db/value.h"

namespace tessera::storage {

using SqlValue = db::Value;
using SqlRow = std::vector<SqlValue>;
using SqlParams = std::vector<SqlValue>;

class SqlError : public std::runtime_error {
 public:
  enum class Kind {
    kConnectionLost,   // the database cannot be used through this connection any more
    kBusy,             // the database stayed locked longer than the busy timeout
    kUniqueViolation,  // a UNIQUE or PRIMARY KEY constraint refused the statement
    kSchemaMismatch,   // the database holds another schema version than this binary's
    kOther,            // anything else: a bug in the statement or an unexpected state
  };
  SqlError(Kind kind, std::string message) : std::runtime_error(std::move(message)), kind_(kind) {}
  Kind kind() const { return kind_; }

 private:
  Kind kind_;
};

enum class TransactionMode {
  kRead,
  kWrite,
  kSchemaChange,  // a write that also excludes every other process initialising the schema
};

class SqlConnection {
 public:
  virtual ~SqlConnection() = default;

  // Runs a statement that returns no rows; returns the number of rows it changed.
  virtual int64_t Execute(std::string_view sql, const SqlParams& params = {}) = 0;
  virtual std::vector<SqlRow> Query(std::string_view sql, const SqlParams& params = {}) = 0;

  virtual void Begin(TransactionMode mode) = 0;
  void Commit() { Execute("COMMIT"); }
  void Rollback() { Execute("ROLLBACK"); }

  virtual bool HasTable(std::string_view name) = 0;

  // False once the connection has failed in a way that makes it unusable.
  virtual bool is_healthy() const = 0;
  virtual std::string_view backend_name() const = 0;
};

// Readers for result cells; a null reads as 0 or "". Throws SqlError(kOther) on a type mismatch.
int64_t AsInt(const SqlValue& value);
double AsDouble(const SqlValue& value);
std::string AsText(const SqlValue& value);
// A JSON text cell; throws SqlError(kOther) naming `column` when the text is not JSON.
Json AsJson(const SqlValue& value, std::string_view column);

}  // namespace tessera::storage
