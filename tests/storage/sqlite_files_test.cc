// An embedded (SQLite) storage service keeps its database, and the journal files SQLite makes
// beside it, readable by the server's user only, whatever the process umask.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "storage/metadata_store.h"
#include "support/temp_dir.h"

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

}  // namespace
}  // namespace tessera::testing
