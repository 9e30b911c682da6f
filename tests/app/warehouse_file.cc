#include "app/warehouse_file.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

namespace tessera::testing {

int64_t CountRows(const std::filesystem::path& path, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* statement = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr), SQLITE_OK)
      << sqlite3_errmsg(db) << "\n"
      << sql;
  int64_t rows = 0;
  while (statement && sqlite3_step(statement) == SQLITE_ROW) ++rows;
  sqlite3_finalize(statement);
  sqlite3_close(db);
  return rows;
}

void ExecuteSql(const std::filesystem::path& path, const std::string& statements) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  EXPECT_EQ(sqlite3_exec(db, statements.c_str(), nullptr, nullptr, &error), SQLITE_OK)
      << (error ? error : "") << "\n"
      << statements;
  sqlite3_free(error);
  sqlite3_close(db);
}

std::vector<std::string> FactTables(const std::filesystem::path& path) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* statement = nullptr;
  sqlite3_prepare_v2(db,
                     "SELECT name FROM sqlite_master WHERE type = 'table' AND "
                     "substr(name, 1, 3) <> 'lu_' ORDER BY name",
                     -1, &statement, nullptr);
  std::vector<std::string> tables;
  while (statement && sqlite3_step(statement) == SQLITE_ROW) {
    tables.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(statement, 0)));
  }
  sqlite3_finalize(statement);
  sqlite3_close(db);
  return tables;
}

}  // namespace tessera::testing
