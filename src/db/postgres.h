// db/postgres.h
//
// What every PostgreSQL connection of Tessera shares, the storage service's and the warehouses':
//   - ConnectPostgres hands the URL to libpq as given, with defaults the URL may override: a
//     3-second connect timeout, TCP keepalives and a 30-second TCP user timeout, so a call on a
//     server that stopped or vanished without closing the socket fails instead of hanging.
//   - PostgresParameters sends db::Values as text, typed int8 or float8 for numbers and untyped
//     otherwise, so the server infers text, date or timestamp from where the value is used.
//   - ReadPostgresCell reads a result cell as a db::Value by its column's type (ColumnKindOf).
//   - IsConnectionLost tells a lost connection from a statement the server refused.
#pragma once

#include <libpq-fe.h>

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "db/value.h"

namespace tessera::db {

// pg_type OIDs of the column and parameter types read or sent as numbers.
inline constexpr Oid kBoolOid = 16;
inline constexpr Oid kInt8Oid = 20;
inline constexpr Oid kInt2Oid = 21;
inline constexpr Oid kInt4Oid = 23;
inline constexpr Oid kFloat4Oid = 700;
inline constexpr Oid kFloat8Oid = 701;
inline constexpr Oid kNumericOid = 1700;

struct PostgresResultDeleter {
  void operator()(PGresult* result) const { PQclear(result); }
};
using PostgresResult = std::unique_ptr<PGresult, PostgresResultDeleter>;

struct PostgresSession {
  std::string application_name;
  // Further libpq connection keywords and their values ("client_encoding", "UTF8"), which the
  // URL may override too.
  std::vector<std::pair<std::string, std::string>> settings;
};

// An open connection the caller PQfinish()es. Throws ConnectError with libpq's message on one
// line when the server cannot be reached or refuses the login.
PGconn* ConnectPostgres(const std::string& url, const PostgresSession& session);

// Drops the server's notices (NOTICE, WARNING) instead of printing them on stderr.
void IgnoreNotices(PGconn* conn);

// The parameter arrays of PQexecParams and PQsendQueryParams for `values`: numbers as their text
// (FormatNumber) typed int8 or float8, text untyped, null as a null pointer. Neither copied nor
// moved: the arrays point into it.
class PostgresParameters {
 public:
  explicit PostgresParameters(const std::vector<Value>& values);
  PostgresParameters(const PostgresParameters&) = delete;
  PostgresParameters& operator=(const PostgresParameters&) = delete;

  int count() const { return static_cast<int>(types_.size()); }
  const Oid* types() const { return types_.data(); }
  const char* const* values() const { return values_.data(); }

 private:
  std::vector<std::string> texts_;
  std::vector<const char*> values_;
  std::vector<Oid> types_;
};

// How a result column's cells read: int2, int4 and int8 as integers, float4 and float8 as reals,
// bool as the integer 1 or 0, numeric as a real or as text (as `numeric` says), anything else
// (text, varchar, date, timestamp, ...) as text.
enum class ColumnKind { kInteger, kReal, kBoolean, kText };
enum class NumericColumns { kAsReal, kAsText };
ColumnKind ColumnKindOf(Oid type, NumericColumns numeric);

// Reads the cell at `row`, `column` of `result` into `cell`: null as null, otherwise by `kind`;
// an integer or real cell whose text is not wholly a number reads as text.
void ReadPostgresCell(const PGresult* result, int row, int column, ColumnKind kind, Value& cell);

// The SQLSTATE of a failed result; "" when there is none (no result, or a failure of libpq's own).
std::string_view SqlStateOf(const PGresult* result);

// Whether a failure with `sqlstate` on `conn` means the connection is lost rather than the
// statement refused: libpq reports the connection bad, the SQLSTATE is a connection exception
// (class 08) or an administrator shutdown (57P01..57P03), or there is no SQLSTATE.
bool IsConnectionLost(const PGconn* conn, std::string_view sqlstate);

// libpq's messages end in a newline and may span lines; errors and logs want one line.
std::string OneLine(std::string text);

}  // namespace tessera::db
