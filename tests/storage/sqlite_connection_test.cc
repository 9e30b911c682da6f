// A SQLite connection keeps each SQL text prepared for its next run: the same text run again with
// other parameters answers for those parameters, a failed run leaves the statement usable, and a
// run never keeps the database held -- another connection's write is seen by the next query and
// a checkpoint can take the whole log.
#include "storage/sqlite_connection.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "support/temp_dir.h"

namespace tessera::testing {
namespace {

using namespace std::chrono_literals;

class SqliteConnectionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (dir_.path() / "metadata.db").string();
    first_ = storage::OpenSqliteConnection(path_, 1000ms);
    second_ = storage::OpenSqliteConnection(path_, 1000ms);
    first_->Execute("CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)");
    first_->Execute("INSERT INTO t VALUES (1, 'one'), (2, 'two')");
  }

  std::string ValueOf(storage::SqlConnection& connection, int64_t key) {
    auto rows = connection.Query("SELECT v FROM t WHERE k = ?", {key});
    return rows.empty() ? "" : std::get<std::string>(rows[0][0]);
  }

  TempDir dir_;
  std::string path_;
  std::unique_ptr<storage::SqlConnection> first_, second_;
};

TEST_F(SqliteConnectionTest, TheSameTextRunAgainAnswersForItsNewParameters) {
  EXPECT_EQ(ValueOf(*first_, 1), "one");
  EXPECT_EQ(ValueOf(*first_, 2), "two");
  EXPECT_EQ(ValueOf(*first_, 3), "");
  EXPECT_EQ(ValueOf(*first_, 1), "one");
}

TEST_F(SqliteConnectionTest, AFailedRunLeavesTheStatementUsable) {
  EXPECT_THROW(first_->Execute("INSERT INTO t VALUES (?, ?)", {int64_t{1}, std::string("again")}),
               storage::SqlError);
  EXPECT_EQ(first_->Execute("INSERT INTO t VALUES (?, ?)", {int64_t{3}, std::string("three")}), 1);
  EXPECT_EQ(ValueOf(*first_, 3), "three");
}

TEST_F(SqliteConnectionTest, ARunHoldsNothingOnceItsRowsAreRead) {
  ASSERT_EQ(ValueOf(*first_, 1), "one");
  second_->Execute("UPDATE t SET v = 'uno' WHERE k = 1");
  EXPECT_EQ(ValueOf(*first_, 1), "uno") << "the first query's snapshot was released";
  auto checkpoint = second_->Query("PRAGMA wal_checkpoint(TRUNCATE)");
  ASSERT_EQ(checkpoint.size(), 1u);
  EXPECT_EQ(std::get<int64_t>(checkpoint[0][0]), 0) << "no reader blocked the checkpoint";
}

TEST_F(SqliteConnectionTest, ManyDifferentTextsStillAnswer) {
  for (int64_t i = 0; i < 600; ++i) {
    auto rows = first_->Query("SELECT " + std::to_string(i) + " + ?", {int64_t{1}});
    ASSERT_EQ(std::get<int64_t>(rows.at(0).at(0)), i + 1);
  }
  EXPECT_EQ(ValueOf(*first_, 2), "two");
}

}  // namespace
}  // namespace tessera::testing
