#include "support/test_databases.h"

#include <libpq-fe.h>
#include <sqlite3.h>

#include <cstdlib>
#include <stdexcept>

#include "core/random.h"
#include "storage/sqlite_connection.h"

namespace tessera::testing {

std::string_view BackendLabel(StoreBackend backend) {
  return backend == StoreBackend::kSqlite ? "Sqlite" : "Postgres";
}

std::optional<std::string> TestPostgresUrl() {
  const char* url = std::getenv("TESSERA_TEST_PG");
  if (url == nullptr || *url == '\0') return std::nullopt;
  return std::string(url);
}

bool IsBackendConfigured(StoreBackend backend) {
  return backend == StoreBackend::kSqlite || TestPostgresUrl().has_value();
}

std::string WithDatabaseName(const std::string& url, const std::string& name) {
  size_t authority = url.find("://");
  if (authority == std::string::npos) throw std::runtime_error("not a URL: " + url);
  size_t query = url.find('?', authority + 3);
  size_t end = query == std::string::npos ? url.size() : query;
  size_t path = url.find('/', authority + 3);
  if (path == std::string::npos || path > end) path = end;  // no database part yet
  return url.substr(0, path) + "/" + name + url.substr(end);
}

std::optional<std::string> ExecutePostgres(const std::string& url, const std::string& sql) {
  PGconn* conn = PQconnectdb(url.c_str());
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string message = PQerrorMessage(conn);
    PQfinish(conn);
    throw std::runtime_error("cannot connect to " + url + ": " + message);
  }
  PGresult* result = PQexec(conn, sql.c_str());
  ExecStatusType status = PQresultStatus(result);
  std::string message = PQresultErrorMessage(result);
  std::optional<std::string> first;
  if (status == PGRES_TUPLES_OK && PQntuples(result) > 0 && PQnfields(result) > 0 &&
      !PQgetisnull(result, 0, 0)) {
    first = PQgetvalue(result, 0, 0);
  }
  PQclear(result);
  PQfinish(conn);
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    throw std::runtime_error(sql + ": " + message);
  }
  return first;
}

namespace {

int KeepFirstCell(void* out, int columns, char** values, char**) {
  auto* first = static_cast<std::optional<std::string>*>(out);
  if (!first->has_value() && columns > 0 && values[0] != nullptr) *first = values[0];
  return 0;
}

std::optional<std::string> ExecuteSqlite(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  int result =
      sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  std::optional<std::string> first;
  if (result == SQLITE_OK) {
    sqlite3_busy_timeout(db, 5000);
    // As the store's connections see it: upload chunks in their own attached file.
    const std::string attach =
        "ATTACH DATABASE '" + storage::ChunkDatabasePath(path) + "' AS chunks";
    result = sqlite3_exec(db, attach.c_str(), nullptr, nullptr, nullptr);
    if (result == SQLITE_OK) result = sqlite3_exec(db, sql.c_str(), KeepFirstCell, &first, nullptr);
  }
  std::string message = sqlite3_errmsg(db);
  sqlite3_close_v2(db);
  if (result != SQLITE_OK) throw std::runtime_error(sql + ": " + message);
  return first;
}

}  // namespace

TestDatabase::TestDatabase(StoreBackend backend) : backend_(backend) {
  if (backend == StoreBackend::kSqlite) {
    dir_ = std::make_unique<TempDir>();
    path_ = (dir_->path() / "metadata.db").string();
    url_ = "sqlite://" + path_;
    return;
  }
  std::optional<std::string> server = TestPostgresUrl();
  if (!server) throw std::runtime_error("TESSERA_TEST_PG is not set");
  database_name_ = "tessera_t_" + RandomString(16, "abcdefghijklmnopqrstuvwxyz0123456789");
  ExecutePostgres(*server, "CREATE DATABASE " + database_name_);
  url_ = WithDatabaseName(*server, database_name_);
}

TestDatabase::~TestDatabase() {
  if (backend_ != StoreBackend::kPostgres) return;
  try {
    ExecutePostgres(*TestPostgresUrl(),
                    "DROP DATABASE IF EXISTS " + database_name_ + " WITH (FORCE)");
  } catch (const std::exception&) {
    // The server is gone; the whole cluster goes with it.
  }
}

void TestDatabase::ExecuteDirect(const std::string& sql) const { QueryDirect(sql); }

std::optional<std::string> TestDatabase::QueryDirect(const std::string& sql) const {
  if (backend_ == StoreBackend::kSqlite) return ExecuteSqlite(path_, sql);
  return ExecutePostgres(url_, sql);
}

}  // namespace tessera::testing
