#include "storage/postgres_connection.h"

#include <libpq-fe.h>

#include <charconv>
#include <cstdlib>
#include <optional>

namespace tessera::storage {
namespace {

// pg_type OIDs of the result types the store reads as numbers.
constexpr Oid kBoolOid = 16;
constexpr Oid kInt8Oid = 20;
constexpr Oid kInt2Oid = 21;
constexpr Oid kInt4Oid = 23;
constexpr Oid kFloat4Oid = 700;
constexpr Oid kFloat8Oid = 701;

// Any constant works; it only has to be the same in every Tessera process.
constexpr std::string_view kSchemaLockKey = "7319402211";

// libpq messages end in a newline and may span lines; logs want one line.
std::string OneLine(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\t') c = ' ';
  }
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

struct ResultDeleter {
  void operator()(PGresult* result) const { PQclear(result); }
};
using Result = std::unique_ptr<PGresult, ResultDeleter>;

bool IsConnectionState(std::string_view sqlstate) {
  return sqlstate.starts_with("08") || sqlstate == "57P01" || sqlstate == "57P02" ||
         sqlstate == "57P03";
}

std::string FormatParam(const SqlValue& value) {
  if (const auto* number = std::get_if<int64_t>(&value)) return std::to_string(*number);
  if (const auto* real = std::get_if<double>(&value)) {
    char buffer[64];
    auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, *real);
    return std::string(buffer, end);
  }
  return std::get<std::string>(value);
}

Oid ParamType(const SqlValue& value) {
  if (std::holds_alternative<int64_t>(value)) return kInt8Oid;
  if (std::holds_alternative<double>(value)) return kFloat8Oid;
  return 0;  // let the server infer text and nulls from the context
}

SqlValue CellValue(const PGresult* result, int row, int column) {
  if (PQgetisnull(result, row, column)) return std::monostate{};
  std::string text(PQgetvalue(result, row, column),
                   static_cast<size_t>(PQgetlength(result, row, column)));
  switch (PQftype(result, column)) {
    case kInt2Oid:
    case kInt4Oid:
    case kInt8Oid:
      return AsInt(text);
    case kFloat4Oid:
    case kFloat8Oid:
      return AsDouble(text);
    case kBoolOid:
      return static_cast<int64_t>(text == "t" ? 1 : 0);
    default:
      return text;
  }
}

void IgnoreNotice(void*, const char*) {}

class PostgresConnection : public SqlConnection {
 public:
  explicit PostgresConnection(PGconn* conn) : conn_(conn) {
    PQsetNoticeProcessor(conn_, IgnoreNotice, nullptr);
  }
  ~PostgresConnection() override { PQfinish(conn_); }

  int64_t Execute(std::string_view sql, const SqlParams& params) override {
    Result result = Run(sql, params);
    const char* changed = PQcmdTuples(result.get());
    return changed[0] == '\0' ? 0 : std::atoll(changed);
  }

  std::vector<SqlRow> Query(std::string_view sql, const SqlParams& params) override {
    Result result = Run(sql, params);
    int rows = PQntuples(result.get());
    int columns = PQnfields(result.get());
    std::vector<SqlRow> out(static_cast<size_t>(rows));
    for (int r = 0; r < rows; ++r) {
      out[r].reserve(static_cast<size_t>(columns));
      for (int c = 0; c < columns; ++c) out[r].push_back(CellValue(result.get(), r, c));
    }
    return out;
  }

  void Begin(TransactionMode mode) override {
    switch (mode) {
      case TransactionMode::kRead:
        // One snapshot for the whole read, as SQLite gives: a reader walking a project in
        // batches (package creation) sees no half of a concurrent import.
        Execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", {});
        return;
      case TransactionMode::kWrite:
        Execute("BEGIN", {});
        return;
      case TransactionMode::kSchemaChange:
        Execute("BEGIN", {});
        Query("SELECT pg_advisory_xact_lock(" + std::string(kSchemaLockKey) + ")", {});
        return;
    }
  }

  bool HasTable(std::string_view name) override {
    return !Query(
                "SELECT 1 FROM pg_catalog.pg_tables "
                "WHERE schemaname = current_schema() AND tablename = ?",
                {std::string(name)})
                .empty();
  }

  bool is_healthy() const override { return PQstatus(conn_) == CONNECTION_OK && !lost_; }
  std::string_view backend_name() const override { return "postgresql"; }

 private:
  Result Run(std::string_view sql, const SqlParams& params) {
    std::string numbered = NumberPostgresPlaceholders(sql);
    std::vector<std::string> texts(params.size());
    std::vector<const char*> values(params.size(), nullptr);
    std::vector<Oid> types(params.size(), 0);
    for (size_t i = 0; i < params.size(); ++i) {
      types[i] = ParamType(params[i]);
      if (std::holds_alternative<std::monostate>(params[i])) continue;
      texts[i] = FormatParam(params[i]);
      values[i] = texts[i].c_str();
    }
    Result result(PQexecParams(conn_, numbered.c_str(), static_cast<int>(params.size()),
                               types.data(), values.data(), nullptr, nullptr, 0));
    ExecStatusType status = result ? PQresultStatus(result.get()) : PGRES_FATAL_ERROR;
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return result;
    throw Failure(result.get());
  }

  SqlError Failure(const PGresult* result) {
    std::string message = "postgresql: " + OneLine(result != nullptr ? PQresultErrorMessage(result)
                                                                     : PQerrorMessage(conn_));
    const char* field = result != nullptr ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
    std::string_view sqlstate = field != nullptr ? field : "";
    if (PQstatus(conn_) != CONNECTION_OK || IsConnectionState(sqlstate) || sqlstate.empty()) {
      lost_ = true;
      return SqlError(SqlError::Kind::kConnectionLost, message);
    }
    if (sqlstate == "23505") return SqlError(SqlError::Kind::kUniqueViolation, message);
    if (sqlstate == "40P01" || sqlstate == "55P03") return SqlError(SqlError::Kind::kBusy, message);
    return SqlError(SqlError::Kind::kOther, message);
  }

  PGconn* conn_;
  bool lost_ = false;
};

}  // namespace

PGconn* ConnectToPostgres(const std::string& url) {
  // Keywords before "dbname" are defaults that the expanded URL overrides. The keepalive and
  // TCP timeouts make a call on a server that vanished without closing the socket fail too.
  const char* keywords[] = {"connect_timeout",
                            "keepalives_idle",
                            "keepalives_interval",
                            "keepalives_count",
                            "tcp_user_timeout",
                            "application_name",
                            "dbname",
                            nullptr};
  const char* values[] = {"3", "10", "5", "3", "30000", "tessera", url.c_str(), nullptr};
  PGconn* conn = PQconnectdbParams(keywords, values, /*expand_dbname=*/1);
  if (conn == nullptr || PQstatus(conn) != CONNECTION_OK) {
    std::string message =
        "postgresql: cannot connect: " + OneLine(conn != nullptr ? PQerrorMessage(conn) : "");
    PQfinish(conn);
    throw SqlError(SqlError::Kind::kConnectionLost, message);
  }
  return conn;
}

std::unique_ptr<SqlConnection> OpenPostgresConnection(const std::string& url) {
  return std::make_unique<PostgresConnection>(ConnectToPostgres(url));
}

}  // namespace tessera::storage
