#include "db/sqlite.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include "db/connect_error.h"
#include "support/temp_dir.h"

namespace tessera::db {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

SqliteHandle InMemory() { return OpenSqlite(":memory:", 1000ms); }

TEST(SqliteStatement, BindsAndReadsEveryKindOfValue) {
  SqliteHandle db = InMemory();
  SqliteStatement statement(db.get(), "SELECT ?, ?, ?, ?, CAST('raw' AS BLOB)");
  ASSERT_EQ(statement.prepare_result(), SQLITE_OK);
  EXPECT_EQ(statement.Bind(1, int64_t{9007199254740993}), SQLITE_OK);
  EXPECT_EQ(statement.Bind(2, 2.5), SQLITE_OK);
  EXPECT_EQ(statement.Bind(3, std::string("text")), SQLITE_OK);
  EXPECT_EQ(statement.Bind(4, std::monostate{}), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(statement.get()), SQLITE_ROW);
  ASSERT_EQ(statement.column_count(), 5);

  std::vector<Value> row(5);
  for (int c = 0; c < 5; ++c) statement.ReadColumn(c, row[c]);
  EXPECT_EQ(row[0], Value(int64_t{9007199254740993}));
  EXPECT_EQ(row[1], Value(2.5));
  EXPECT_EQ(row[2], Value(std::string("text")));
  EXPECT_EQ(row[3], Value(std::monostate{}));
  EXPECT_EQ(row[4], Value(std::string("raw")));  // a BLOB reads as text
}

TEST(SqliteStatement, ReadingOverACellReplacesWhatItHeld) {
  SqliteHandle db = InMemory();
  SqliteStatement statement(db.get(), "SELECT 'second', NULL");
  ASSERT_EQ(sqlite3_step(statement.get()), SQLITE_ROW);
  Value text = std::string("a much longer first value");
  Value number = int64_t{7};
  statement.ReadColumn(0, text);
  statement.ReadColumn(1, number);
  EXPECT_EQ(text, Value(std::string("second")));
  EXPECT_EQ(number, Value(std::monostate{}));
}

TEST(SqliteStatement, ATextOfOnlyACommentHoldsNoStatement) {
  SqliteHandle db = InMemory();
  SqliteStatement statement(db.get(), "  -- nothing to run");
  EXPECT_EQ(statement.prepare_result(), SQLITE_OK);
  EXPECT_EQ(statement.get(), nullptr);
}

TEST(SqliteFailure, AStatementSQLiteRefusesIsDescribedByTheConnection) {
  SqliteHandle db = InMemory();
  SqliteStatement statement(db.get(), "SELEKT 1");
  ASSERT_NE(statement.prepare_result(), SQLITE_OK);
  const SqliteFailure failure = DescribeSqliteFailure(db.get(), statement.prepare_result());
  EXPECT_EQ(failure.code, SQLITE_ERROR);
  EXPECT_EQ(failure.message, "near \"SELEKT\": syntax error");
}

TEST(SqliteFailure, AUniqueViolationHasItsExtendedCode) {
  SqliteHandle db = InMemory();
  ASSERT_EQ(
      sqlite3_exec(db.get(), "CREATE TABLE t (k INTEGER PRIMARY KEY)", nullptr, nullptr, nullptr),
      SQLITE_OK);
  const int first = sqlite3_exec(db.get(), "INSERT INTO t VALUES (1)", nullptr, nullptr, nullptr);
  ASSERT_EQ(first, SQLITE_OK);
  const int again = sqlite3_exec(db.get(), "INSERT INTO t VALUES (1)", nullptr, nullptr, nullptr);
  const SqliteFailure failure = DescribeSqliteFailure(db.get(), again);
  EXPECT_EQ(failure.code, SQLITE_CONSTRAINT_PRIMARYKEY);
  EXPECT_EQ(failure.message, "UNIQUE constraint failed: t.k");
}

TEST(SqliteFailure, ABindIndexOutOfRangeIsDescribed) {
  SqliteHandle db = InMemory();
  SqliteStatement statement(db.get(), "SELECT ?");
  const int result = statement.Bind(2, int64_t{1});
  const SqliteFailure failure = DescribeSqliteFailure(db.get(), result);
  EXPECT_EQ(failure.code, SQLITE_RANGE);
  EXPECT_EQ(failure.message, "column index out of range");
}

TEST(OpenSqlite, CreatesAMissingFileReadableByItsUserOnly) {
  testing::TempDir dir;
  const std::string path = (dir.path() / "new.db").string();
  SqliteHandle db = OpenSqlite(path, 1000ms);
  struct stat info {};
  ASSERT_EQ(::stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
}

TEST(OpenSqlite, AFileThatCannotBeOpenedIsAConnectErrorNamingIt) {
  testing::TempDir dir;
  const std::string path = (dir.path() / "missing" / "x.db").string();
  try {
    OpenSqlite(path, 1000ms);
    FAIL() << "opened " << path;
  } catch (const ConnectError& error) {
    EXPECT_EQ(std::string(error.what()),
              "cannot open '" + path + "': unable to open database file");
  }
}

}  // namespace
}  // namespace tessera::db
