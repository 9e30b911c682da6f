// An embedded (SQLite) storage service copies its write-ahead logs into the database files while
// it runs, on a thread of its own: large writes (upload chunks, which have a file of their own)
// reach their database file without the store closing, and read back as written, also once the
// store is opened again.
#include "storage/wal_checkpointer.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "storage/metadata_store.h"
#include "storage/sqlite_connection.h"
#include "support/temp_dir.h"
#include "support/wait.h"

namespace tessera::testing {
namespace {

constexpr int kChunks = 24;

std::string ChunkData(int index) {
  std::string data(1 << 20, ' ');
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>('a' + (i * 7 + index) % 26);
  return data;
}

storage::UploadSessionRecord OpenSession() {
  storage::UploadSessionRecord session;
  session.id = "S";
  session.project_id = "P";
  session.dataset_id = "D";
  session.user_id = "U";
  session.tables = Json::array({{{"name", "sales"}, {"updatePolicy", "add"}}});
  session.state = "open";
  session.last_used = FromUnixMillis(1717243200000);
  return session;
}

TEST(WalCheckpointer, LargeWritesReachTheDatabaseFileWhileTheStoreIsOpen) {
  TempDir dir;
  const auto database = dir.path() / "metadata.db";
  const std::string url = "sqlite://" + database.string();
  {
    auto store = storage::MetadataStore::Open({.url = url});
    store->Write([](storage::MetadataTransaction& tx) { tx.PutUploadSession(OpenSession()); });
    for (int index = 1; index <= kChunks; ++index) {
      store->Write([&](storage::MetadataTransaction& tx) {
        tx.PutUploadChunk("S", {"sales", index, ChunkData(index), "R"});
      });
    }
    const auto written = static_cast<std::uintmax_t>(kChunks) << 20;
    const std::filesystem::path chunk_file = storage::ChunkDatabasePath(database.string());
    EXPECT_TRUE(WaitUntil([&] { return std::filesystem::file_size(chunk_file) >= written; },
                          std::chrono::seconds(20), "the log reached the chunk file"))
        << "the chunk file holds " << std::filesystem::file_size(chunk_file) << " bytes";
  }
  auto reopened = storage::MetadataStore::Open({.url = url});
  std::vector<storage::UploadChunk> chunks;
  reopened->Read([&](storage::MetadataTransaction& tx) { chunks = tx.ListUploadChunks("S"); });
  ASSERT_EQ(chunks.size(), static_cast<size_t>(kChunks));
  for (int index = 1; index <= kChunks; ++index) {
    EXPECT_EQ(chunks[index - 1].index, index);
    EXPECT_TRUE(chunks[index - 1].data == ChunkData(index)) << "chunk " << index;
  }
}

}  // namespace
}  // namespace tessera::testing
