// An embedded (SQLite) storage service keeps its database, its upload chunks' database and the
// journal files SQLite makes beside them readable by the server's user only, whatever the process
// umask. The chunks live in the chunk file, with 64 KiB pages, and a chunk file lost while the
// server was down is made again, empty.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include "storage/metadata_store.h"
#include "storage/sqlite_connection.h"
#include "support/temp_dir.h"
#include "support/test_databases.h"

namespace tessera::testing {
namespace {

TEST(SqliteFiles, ANewDatabaseAndItsJournalFilesAreTheOwnersAlone) {
  TempDir dir;
  const auto database = dir.path() / "metadata.db";
  mode_t previous = ::umask(022);
  {
    auto store = storage::MetadataStore::Open({.url = "sqlite://" + database.string()});
    store->Write([](storage::MetadataTransaction& tx) { tx.PutSetting("probe", Json(1)); });
    int files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
      struct stat info {};
      ASSERT_EQ(::stat(entry.path().c_str(), &info), 0);
      EXPECT_EQ(info.st_mode & 0777, 0600u) << entry.path();
      ++files;
    }
    EXPECT_GE(files, 2) << "the database and its write-ahead log";
  }
  ::umask(previous);
}

storage::UploadSessionRecord OpenSession(const std::string& id) {
  storage::UploadSessionRecord session;
  session.id = id;
  session.project_id = "P";
  session.dataset_id = "D";
  session.user_id = "U";
  session.tables = Json::array();
  session.state = "open";
  session.last_used = FromUnixMillis(1717243200000);
  return session;
}

// The first cell of `sql` run on the file alone, nothing attached.
std::string QueryFile(const std::filesystem::path& file, const std::string& sql) {
  sqlite3* db = nullptr;
  std::string first;
  EXPECT_EQ(sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_exec(
      db, sql.c_str(),
      [](void* out, int, char** values, char**) {
        *static_cast<std::string*>(out) = values[0] ? values[0] : "NULL";
        return 0;
      },
      &first, nullptr);
  sqlite3_close_v2(db);
  return first;
}

TEST(SqliteFiles, UploadChunksLiveInAFileOfTheirOwnWithLargePages) {
  TempDir dir;
  const auto database = dir.path() / "metadata.db";
  const std::string chunk(1 << 20, 'x');
  {
    auto store = storage::MetadataStore::Open({.url = "sqlite://" + database.string()});
    store->Write([&](storage::MetadataTransaction& tx) {
      tx.PutUploadSession(OpenSession("S1"));
      tx.PutUploadChunk("S1", {"sales", 1, chunk, "R1"});
    });
  }
  const auto chunk_file = storage::ChunkDatabasePath(database.string());
  EXPECT_EQ(chunk_file, database.string() + "-chunks");
  EXPECT_EQ(QueryFile(chunk_file, "PRAGMA page_size"), "65536");
  EXPECT_EQ(QueryFile(chunk_file, "SELECT length(data) FROM upload_chunks"),
            std::to_string(chunk.size()));
  EXPECT_EQ(QueryFile(database, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'upload_chunks'"),
            "0");
  EXPECT_EQ(QueryFile(database, "SELECT COUNT(*) FROM upload_sessions"), "1");
}

TEST(SqliteFiles, AChunkFileLostWhileTheServerWasDownIsMadeAgainEmpty) {
  TempDir dir;
  const auto database = dir.path() / "metadata.db";
  const std::string url = "sqlite://" + database.string();
  storage::MetadataStore::Open({.url = url})->Write([](storage::MetadataTransaction& tx) {
    tx.PutUploadSession(OpenSession("S1"));
    tx.PutUploadChunk("S1", {"sales", 1, "[[1]]", "R1"});
  });
  for (const char* suffix : {"", "-wal", "-shm"}) {
    std::filesystem::remove(storage::ChunkDatabasePath(database.string()) + suffix);
  }

  auto store = storage::MetadataStore::Open({.url = url});
  std::optional<storage::UploadSessionRecord> session;
  std::optional<storage::UploadChunk> lost, stored_again;
  store->Write([&](storage::MetadataTransaction& tx) {
    session = tx.FindUploadSession("S1");
    lost = tx.FindUploadChunk("S1", "sales", 1);
    tx.PutUploadChunk("S1", {"sales", 1, "[[2]]", "R2"});
  });
  store->Read([&](storage::MetadataTransaction& tx) {
    stored_again = tx.FindUploadChunk("S1", "sales", 1);
  });
  EXPECT_TRUE(session.has_value());
  EXPECT_FALSE(lost.has_value());
  ASSERT_TRUE(stored_again.has_value());
  EXPECT_EQ(stored_again->data, "[[2]]");
}

}  // namespace
}  // namespace tessera::testing
