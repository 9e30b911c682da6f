// tests/support/test_databases.h
//
// A fresh, empty storage-service database per test, on each backend: SQLite always (a file in a
// temporary directory), PostgreSQL when TESSERA_TEST_PG names a server on which the tests may
// create databases (scripts/with-test-postgres.sh starts one and sets it). The database is removed
// on destruction.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "support/temp_dir.h"

namespace tessera::testing {

enum class StoreBackend { kSqlite, kPostgres };

inline constexpr std::array<StoreBackend, 2> kAllStoreBackends = {StoreBackend::kSqlite,
                                                                  StoreBackend::kPostgres};

std::string_view BackendLabel(StoreBackend backend);  // "Sqlite", "Postgres"

// The server named by TESSERA_TEST_PG, if any.
std::optional<std::string> TestPostgresUrl();

// SQLite always; PostgreSQL when TESSERA_TEST_PG is set.
bool IsBackendConfigured(StoreBackend backend);

// `url` ("postgresql://user@host:port/db?options") naming database `name` instead.
std::string WithDatabaseName(const std::string& url, const std::string& name);

class TestDatabase {
 public:
  // Throws std::runtime_error when the backend is not configured or the database cannot be made.
  explicit TestDatabase(StoreBackend backend);
  ~TestDatabase();
  TestDatabase(const TestDatabase&) = delete;
  TestDatabase& operator=(const TestDatabase&) = delete;

  StoreBackend backend() const { return backend_; }
  const std::string& url() const { return url_; }  // a storage.url for MetadataStore::Open

  // Runs SQL on the database directly, bypassing the store: for tests that tamper with it.
  void ExecuteDirect(const std::string& sql) const;
  // The first column of the first row of `sql`, as text; nullopt when it returns no row or null.
  std::optional<std::string> QueryDirect(const std::string& sql) const;

 private:
  StoreBackend backend_;
  std::unique_ptr<TempDir> dir_;  // SQLite
  std::string path_;              // SQLite
  std::string database_name_;     // PostgreSQL
  std::string url_;
};

// Runs one statement with libpq on `url` and returns the first cell of its first row, if any;
// throws std::runtime_error with the server's message.
std::optional<std::string> ExecutePostgres(const std::string& url, const std::string& sql);

}  // namespace tessera::testing
