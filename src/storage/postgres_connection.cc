#include "storage/postgres_connection.h"

#include <libpq-fe.h>

#include <cstdlib>

#include "db/connect_error.h"
#include "db/postgres.h"

namespace tessera::storage {
namespace {

// Any constant works; it only has to be the same in every Tessera process.
constexpr std::string_view kSchemaLockKey = "7319402211";

class PostgresConnection : public SqlConnection {
 public:
  explicit PostgresConnection(PGconn* conn) : conn_(conn) { db::IgnoreNotices(conn_); }
  ~PostgresConnection() override { PQfinish(conn_); }

  int64_t Execute(std::string_view sql, const SqlParams& params) override {
    db::PostgresResult result = Run(sql, params);
    const char* changed = PQcmdTuples(result.get());
    return changed[0] == '\0' ? 0 : std::atoll(changed);
  }

  std::vector<SqlRow> Query(std::string_view sql, const SqlParams& params) override {
    db::PostgresResult result = Run(sql, params);
    const int rows = PQntuples(result.get());
    const int columns = PQnfields(result.get());
    std::vector<db::ColumnKind> kinds;
    for (int c = 0; c < columns; ++c) {
      kinds.push_back(db::ColumnKindOf(PQftype(result.get(), c), db::NumericColumns::kAsText));
    }
    std::vector<SqlRow> out(static_cast<size_t>(rows), SqlRow(static_cast<size_t>(columns)));
    for (int r = 0; r < rows; ++r) {
      for (int c = 0; c < columns; ++c) {
        db::ReadPostgresCell(result.get(), r, c, kinds[c], out[r][c]);
      }
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
  db::PostgresResult Run(std::string_view sql, const SqlParams& params) {
    const std::string numbered = NumberPostgresPlaceholders(sql);
    const db::PostgresParameters parameters(params);
    db::PostgresResult result(PQexecParams(conn_, numbered.c_str(), parameters.count(),
                                           parameters.types(), parameters.values(), nullptr,
                                           nullptr, 0));
    ExecStatusType status = result ? PQresultStatus(result.get()) : PGRES_FATAL_ERROR;
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return result;
    throw Failure(result.get());
  }

  SqlError Failure(const PGresult* result) {
    std::string message =
        "postgresql: " +
        db::OneLine(result != nullptr ? PQresultErrorMessage(result) : PQerrorMessage(conn_));
    const std::string_view sqlstate = db::SqlStateOf(result);
    if (db::IsConnectionLost(conn_, sqlstate)) {
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
  try {
    return db::ConnectPostgres(url, {"tessera", {}});
  } catch (const db::ConnectError& error) {
    throw SqlError(SqlError::Kind::kConnectionLost,
                   std::string("postgresql: cannot connect: ") + error.what());
  }
}

std::unique_ptr<SqlConnection> OpenPostgresConnection(const std::string& url) {
  return std::make_unique<PostgresConnection>(ConnectToPostgres(url));
}

}  // namespace tessera::storage
