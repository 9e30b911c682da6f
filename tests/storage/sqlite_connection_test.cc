// A SQLite connection keeps each SQL text prepared for its next run: the same text run again with
// other parameters answers for those parameters, a failed run leaves the statement usable, and a
// run never keeps the database held -- another connection's write is seen by the next query and
// a checkpoint can take the whole log. Opening a new file waits for another connection's lock on
// it, up to the busy timeout.
#include "storage/sqlite_connection.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <future>
#include <thread>

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

// A raw connection in the middle of a write to `path`, in SQLite's first journal mode, as while it
// switches the file to WAL itself; until Release(), no other connection can switch it.
class WriteLock {
 public:
  explicit WriteLock(const std::string& path) {
    EXPECT_EQ(sqlite3_open(path.c_str(), &db_), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(db_, "BEGIN IMMEDIATE; CREATE TABLE held (k INTEGER);", nullptr, nullptr,
                           nullptr),
              SQLITE_OK);
  }
  ~WriteLock() { sqlite3_close(db_); }
  void Release() { sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr); }

 private:
  sqlite3* db_ = nullptr;
};

std::string JournalMode(storage::SqlConnection& connection, const std::string& schema) {
  return std::get<std::string>(connection.Query("PRAGMA " + schema + ".journal_mode").at(0).at(0));
}

// As when several connections open a new store at once: one of them is switching the new chunk
// file to WAL while another opens it. SQLite refuses the second switch at once, without waiting.
TEST(SqliteConnectionOpening, WaitsForAnotherConnectionsLockOnANewFile) {
  TempDir dir;
  const std::string path = (dir.path() / "metadata.db").string();
  WriteLock lock(storage::ChunkDatabasePath(path));

  auto opening =
      std::async(std::launch::async, [&] { return storage::OpenSqliteConnection(path, 30000ms); });
  std::this_thread::sleep_for(300ms);
  lock.Release();

  std::unique_ptr<storage::SqlConnection> connection;
  ASSERT_NO_THROW(connection = opening.get());
  EXPECT_EQ(JournalMode(*connection, "main"), "wal");
  EXPECT_EQ(JournalMode(*connection, "chunks"), "wal");
}

TEST(SqliteConnectionOpening, GivesUpWhenTheLockOutlastsTheBusyTimeout) {
  TempDir dir;
  const std::string path = (dir.path() / "metadata.db").string();
  WriteLock lock(storage::ChunkDatabasePath(path));

  try {
    storage::OpenSqliteConnection(path, 200ms);
    ADD_FAILURE() << "opened while the chunk file stayed locked";
  } catch (const storage::SqlError& error) {
    EXPECT_EQ(error.kind(), storage::SqlError::Kind::kConnectionLost);
  }
}

}  // namespace
}  // namespace tessera::testing
