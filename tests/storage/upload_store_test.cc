// Dataset upload sessions and their chunks in the storage service, on SQLite and PostgreSQL:
// sessions read back as written, chunks replaced by (table, index), revision included, listed in
// index order and found by key, deleting a session or sweeping unused ones takes their chunks, a
// publishing session is never swept, and a sweep takes chunks whose session is gone.
#include <gtest/gtest.h>

#include "storage/metadata_store.h"
#include "support/store_backend_test.h"

namespace tessera::testing {
namespace {

using storage::MetadataTransaction;
using storage::UploadChunk;
using storage::UploadSessionRecord;

const Timestamp kNoon = FromUnixMillis(1717243200000);  // 2024-06-01T12:00:00.000Z

UploadSessionRecord Session(const std::string& id, const std::string& state, Timestamp last_used) {
  UploadSessionRecord session;
  session.id = id;
  session.project_id = "P";
  session.dataset_id = "D";
  session.user_id = "U";
  session.tables = Json::array({{{"name", "sales"}, {"updatePolicy", "add"}}});
  session.state = state;
  session.last_used = last_used;
  return session;
}

class UploadStore : public StoreBackendTest {
 protected:
  void SetUp() override {
    StoreBackendTest::SetUp();
    if (IsSkipped()) return;
    store_ = OpenStore();
  }

  std::vector<std::string> ChunkKeys(const std::string& session_id) {
    std::vector<std::string> keys;
    store_->Read([&](MetadataTransaction& tx) {
      for (const auto& chunk : tx.ListUploadChunkKeys(session_id)) {
        EXPECT_TRUE(chunk.data.empty());
        keys.push_back(chunk.table + "#" + std::to_string(chunk.index));
      }
    });
    return keys;
  }

  std::unique_ptr<storage::MetadataStore> store_;
};

TEST_P(UploadStore, ASessionReadsBackAsWrittenAndChangesInPlace) {
  UploadSessionRecord written = Session("S1", "open", kNoon);
  written.publish_started = kNoon - std::chrono::seconds(5);
  store_->Write([&](MetadataTransaction& tx) { tx.PutUploadSession(written); });
  written.state = "failed";
  written.error = "it broke";
  store_->Write([&](MetadataTransaction& tx) { tx.PutUploadSession(written); });

  std::optional<UploadSessionRecord> read;
  std::vector<UploadSessionRecord> listed, other_dataset;
  store_->Read([&](MetadataTransaction& tx) {
    read = tx.FindUploadSession("S1");
    listed = tx.ListUploadSessions("P", "D");
    other_dataset = tx.ListUploadSessions("P", "E");
  });
  ASSERT_TRUE(read);
  EXPECT_EQ(read->dataset_id, "D");
  EXPECT_EQ(read->user_id, "U");
  EXPECT_EQ(read->tables, written.tables);
  EXPECT_EQ(read->state, "failed");
  EXPECT_EQ(read->error, "it broke");
  EXPECT_EQ(read->publish_started, written.publish_started);
  EXPECT_EQ(read->last_used, kNoon);
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_TRUE(other_dataset.empty());
}

TEST_P(UploadStore, ChunksAreReplacedByTableAndIndexAndListedInIndexOrder) {
  store_->Write([&](MetadataTransaction& tx) {
    tx.PutUploadSession(Session("S1", "open", kNoon));
    tx.PutUploadChunk("S1",
                      UploadChunk{.table = "sales", .index = 10, .data = "[[10]]", .revision = {}});
    tx.PutUploadChunk("S1",
                      UploadChunk{.table = "sales", .index = 2, .data = "[[2]]", .revision = {}});
    tx.PutUploadChunk("S1",
                      UploadChunk{.table = "costs", .index = 1, .data = "[[1]]", .revision = {}});
    tx.PutUploadChunk(
        "S1",
        UploadChunk{.table = "sales", .index = 2, .data = "[[2, \"again\"]]", .revision = {}});
    tx.PutUploadChunk(
        "S2", UploadChunk{.table = "sales", .index = 1, .data = "other session", .revision = {}});
  });
  EXPECT_EQ(ChunkKeys("S1"), (std::vector<std::string>{"costs#1", "sales#2", "sales#10"}));
  std::vector<UploadChunk> chunks;
  store_->Read([&](MetadataTransaction& tx) { chunks = tx.ListUploadChunks("S1"); });
  ASSERT_EQ(chunks.size(), 3u);
  EXPECT_EQ(chunks[1].data, "[[2, \"again\"]]");
  EXPECT_EQ(chunks[2].data, "[[10]]");

  store_->Write([&](MetadataTransaction& tx) { tx.DeleteUploadChunks("S1"); });
  EXPECT_TRUE(ChunkKeys("S1").empty());
  EXPECT_EQ(ChunkKeys("S2"), std::vector<std::string>{"sales#1"});
}

TEST_P(UploadStore, AChunkKeepsTheRevisionOfItsLastPutAndIsFoundByItsKey) {
  store_->Write([&](MetadataTransaction& tx) {
    tx.PutUploadSession(Session("S1", "open", kNoon));
    tx.PutUploadChunk("S1", {"sales", 1, "[[1]]", "first"});
    tx.PutUploadChunk("S1", {"sales", 2, "[[2]]", "second"});
    tx.PutUploadChunk("S1", {"sales", 1, "[[1, \"again\"]]", "third"});
  });
  std::vector<UploadChunk> keys, chunks;
  std::optional<UploadChunk> found, absent, other_table;
  store_->Read([&](MetadataTransaction& tx) {
    keys = tx.ListUploadChunkKeys("S1");
    chunks = tx.ListUploadChunks("S1");
    found = tx.FindUploadChunk("S1", "sales", 1);
    absent = tx.FindUploadChunk("S1", "sales", 3);
    other_table = tx.FindUploadChunk("S1", "costs", 1);
  });
  ASSERT_EQ(keys.size(), 2u);
  EXPECT_EQ(keys[0].revision, "third");
  EXPECT_EQ(keys[1].revision, "second");
  ASSERT_EQ(chunks.size(), 2u);
  EXPECT_EQ(chunks[0].revision, "third");
  EXPECT_EQ(chunks[0].data, "[[1, \"again\"]]");
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->table, "sales");
  EXPECT_EQ(found->index, 1);
  EXPECT_EQ(found->data, "[[1, \"again\"]]");
  EXPECT_EQ(found->revision, "third");
  EXPECT_FALSE(absent.has_value());
  EXPECT_FALSE(other_table.has_value());
}

TEST_P(UploadStore, DeletingOrSweepingSessionsTakesTheirChunksButNeverAPublishingOne) {
  store_->Write([&](MetadataTransaction& tx) {
    tx.PutUploadSession(Session("OLD", "open", kNoon - std::chrono::hours(2)));
    tx.PutUploadSession(Session("BUSY", "publishing", kNoon - std::chrono::hours(2)));
    tx.PutUploadSession(Session("NEW", "open", kNoon));
    tx.PutUploadSession(Session("GONE", "open", kNoon));
    for (const char* id : {"OLD", "BUSY", "NEW", "GONE"}) {
      tx.PutUploadChunk(id, UploadChunk{.table = "t", .index = 1, .data = "[]", .revision = {}});
    }
  });
  int swept = 0;
  bool deleted = false, deleted_twice = true;
  store_->Write([&](MetadataTransaction& tx) {
    swept = tx.DeleteUploadSessionsUnusedSince(kNoon - std::chrono::hours(1));
    deleted = tx.DeleteUploadSession("GONE");
    deleted_twice = tx.DeleteUploadSession("GONE");
  });
  EXPECT_EQ(swept, 1);
  EXPECT_TRUE(deleted);
  EXPECT_FALSE(deleted_twice);
  store_->Read([&](MetadataTransaction& tx) {
    EXPECT_FALSE(tx.FindUploadSession("OLD"));
    EXPECT_TRUE(tx.FindUploadSession("BUSY"));
    EXPECT_TRUE(tx.FindUploadSession("NEW"));
  });
  EXPECT_TRUE(ChunkKeys("OLD").empty());
  EXPECT_TRUE(ChunkKeys("GONE").empty());
  EXPECT_EQ(ChunkKeys("BUSY").size(), 1u);
  EXPECT_EQ(ChunkKeys("NEW").size(), 1u);
}

TEST_P(UploadStore, ASweepTakesTheChunksOfASessionThatIsGone) {
  store_->Write([&](MetadataTransaction& tx) {
    tx.PutUploadSession(Session("NEW", "open", kNoon));
    tx.PutUploadChunk("NEW", {"t", 1, "[]", "R1"});
    tx.PutUploadChunk("LOST", {"t", 1, "[]", "R2"});
  });
  int swept = -1;
  store_->Write([&](MetadataTransaction& tx) {
    swept = tx.DeleteUploadSessionsUnusedSince(kNoon - std::chrono::hours(1));
  });
  EXPECT_EQ(swept, 0);
  EXPECT_TRUE(ChunkKeys("LOST").empty());
  EXPECT_EQ(ChunkKeys("NEW").size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(Backends, UploadStore, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
