#include <gtest/gtest.h>

#include <thread>

#include "core/error.h"
#include "storage/metadata_store.h"
#include "storage/sample_records.h"
#include "support/store_backend_test.h"
#include "support/wait.h"

namespace tessera::testing {
namespace {

using storage::MetadataTransaction;

class StoreSchema : public StoreBackendTest {
 protected:
  // Lets a first store create the schema, then sets the version behind its back.
  void InitialiseThenSetVersion(int version) {
    OpenStore()->Write([](MetadataTransaction&) {});
    database().ExecuteDirect("UPDATE schema_version SET version = " + std::to_string(version));
  }

  static void ExpectUnavailable(const std::function<void()>& call) {
    try {
      call();
      FAIL() << "expected Error(kStorageUnavailable)";
    } catch (const Error& error) {
      EXPECT_EQ(error.code(), ErrorCode::kStorageUnavailable);
      EXPECT_EQ(error.message(), kStorageUnavailableMessage);
    }
  }
};

TEST_P(StoreSchema, AnEmptyDatabaseIsInitialisedAtTheCurrentVersion) {
  OpenStore()->Write([](MetadataTransaction&) {});

  EXPECT_EQ(database().QueryDirect("SELECT version FROM schema_version"),
            std::to_string(storage::kSchemaVersion));
  EXPECT_EQ(database().QueryDirect("SELECT COUNT(*) FROM schema_version"), "1");
}

TEST_P(StoreSchema, EveryTableOfTheSchemaExists) {
  OpenStore()->Write([](MetadataTransaction&) {});

  for (const char* table :
       {"objects", "dependencies", "projects", "sessions", "searches", "instances", "jobs",
        "cube_snapshots", "migration_records", "migration_contents", "settings", "shared_files",
        "upload_sessions", "upload_chunks"}) {
    EXPECT_EQ(database().QueryDirect(std::string("SELECT COUNT(*) FROM ") + table), "0") << table;
  }
}

TEST_P(StoreSchema, ReopeningAnInitialisedDatabaseKeepsItsData) {
  OpenStore()->Write(
      [](MetadataTransaction& tx) { tx.PutObject(SampleObject(kProject, Id(1), 4, "Revenue")); });

  std::optional<model::ObjectRecord> found;
  OpenStore()->Read([&](MetadataTransaction& tx) { found = tx.FindObject(kProject, Id(1)); });

  EXPECT_TRUE(found.has_value());
  EXPECT_EQ(database().QueryDirect("SELECT COUNT(*) FROM schema_version"), "1");
}

TEST_P(StoreSchema, StoresInitialisingOneDatabaseAtOnceAllSucceed) {
  std::vector<std::unique_ptr<storage::MetadataStore>> stores;
  for (int i = 0; i < 4; ++i) stores.push_back(OpenStore());
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&, i] {
      try {
        stores[i]->Write([&](MetadataTransaction& tx) {
          tx.PutObject(SampleObject(kProject, Id(i), 4, "Metric " + std::to_string(i)));
        });
      } catch (const std::exception&) {
        ++failures;
      }
    });
  }
  for (auto& thread : threads) thread.join();

  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(database().QueryDirect("SELECT COUNT(*) FROM schema_version"), "1");
  EXPECT_EQ(database().QueryDirect("SELECT COUNT(*) FROM objects"), "4");
}

TEST_P(StoreSchema, ANewerSchemaMakesEveryCallUnavailable) {
  InitialiseThenSetVersion(storage::kSchemaVersion + 1);
  auto store = OpenStore();

  ExpectUnavailable([&] { store->Read([](MetadataTransaction&) {}); });
  ExpectUnavailable([&] { store->Write([](MetadataTransaction&) {}); });
  EXPECT_FALSE(store->IsAvailable());
}

TEST_P(StoreSchema, ASchemaOlderThanTheFirstVersionMakesEveryCallUnavailable) {
  InitialiseThenSetVersion(0);
  auto store = OpenStore();

  ExpectUnavailable([&] { store->Read([](MetadataTransaction&) {}); });
  EXPECT_FALSE(store->IsAvailable());
}

// A database as the first release left it: no migration tables, an unused `migrations` table.
TEST_P(StoreSchema, AVersionOneDatabaseIsUpgradedKeepingItsData) {
  OpenStore()->Write(
      [](MetadataTransaction& tx) { tx.PutObject(SampleObject(kProject, Id(1), 4, "Revenue")); });
  for (const char* table : {"migration_records", "migration_contents", "settings", "shared_files",
                            "upload_sessions", "upload_chunks"}) {
    database().ExecuteDirect(std::string("DROP TABLE ") + table);
  }
  database().ExecuteDirect(
      "CREATE TABLE migrations (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, kind TEXT NOT "
      "NULL, state TEXT NOT NULL, data_json TEXT NOT NULL, created_ms BIGINT NOT NULL, "
      "updated_ms BIGINT NOT NULL)");
  database().ExecuteDirect("UPDATE schema_version SET version = 1");

  auto store = OpenStore();
  std::optional<model::ObjectRecord> kept;
  store->Write([&](MetadataTransaction& tx) {
    kept = tx.FindObject(kProject, Id(1));
    tx.PutSetting("probe", Json{{"ok", true}});
  });

  ASSERT_TRUE(kept.has_value());
  EXPECT_EQ(kept->name, "Revenue");
  EXPECT_EQ(database().QueryDirect("SELECT version FROM schema_version"),
            std::to_string(storage::kSchemaVersion));
  EXPECT_EQ(database().QueryDirect("SELECT COUNT(*) FROM settings"), "1");
  EXPECT_EQ(database().QueryDirect("SELECT COUNT(*) FROM migration_contents"), "0");
  EXPECT_EQ(database().QueryDirect("SELECT COUNT(*) FROM upload_chunks"), "0");
  EXPECT_EQ(database().QueryDirect("SELECT COUNT(*) FROM schema_version"), "1");
}

// Version 7 stored a chunk's bytes without a revision: its chunks are kept, each read with none.
TEST_P(StoreSchema, AVersionSevenDatabaseKeepsItsUploadChunks) {
  OpenStore()->Write([](MetadataTransaction&) {});
  database().ExecuteDirect("DROP TABLE upload_chunks");
  database().ExecuteDirect(
      "CREATE TABLE upload_chunks (session_id TEXT NOT NULL, table_name TEXT NOT NULL, "
      "chunk_index BIGINT NOT NULL, data TEXT NOT NULL, "
      "PRIMARY KEY (session_id, table_name, chunk_index))");
  database().ExecuteDirect(
      "INSERT INTO upload_chunks (session_id, table_name, chunk_index, data) "
      "VALUES ('S1', 'sales', 1, '[[1]]')");
  database().ExecuteDirect("UPDATE schema_version SET version = 7");

  auto store = OpenStore();
  std::optional<storage::UploadChunk> kept;
  store->Write([&](MetadataTransaction& tx) {
    kept = tx.FindUploadChunk("S1", "sales", 1);
    tx.PutUploadChunk("S1", {"sales", 2, "[[2]]", "R2"});
  });

  ASSERT_TRUE(kept.has_value());
  EXPECT_EQ(kept->data, "[[1]]");
  EXPECT_EQ(kept->revision, "");
  EXPECT_EQ(database().QueryDirect("SELECT revision FROM upload_chunks WHERE chunk_index = 2"),
            "R2");
  EXPECT_EQ(database().QueryDirect("SELECT version FROM schema_version"),
            std::to_string(storage::kSchemaVersion));
  if (GetParam() == StoreBackend::kSqlite) {  // version 9 moved them to the chunk file
    EXPECT_EQ(database().QueryDirect("SELECT COUNT(*) FROM chunks.upload_chunks"), "2");
    EXPECT_EQ(database().QueryDirect(
                  "SELECT COUNT(*) FROM main.sqlite_master WHERE name = 'upload_chunks'"),
              "0");
  }
}

TEST_P(StoreSchema, TheStoreRecoversWhenTheSchemaVersionIsRestored) {
  InitialiseThenSetVersion(storage::kSchemaVersion + 1);
  auto options = Options();
  options.retry_interval = std::chrono::milliseconds(50);
  auto store = storage::MetadataStore::Open(options);
  ExpectUnavailable([&] { store->Read([](MetadataTransaction&) {}); });

  database().ExecuteDirect("UPDATE schema_version SET version = " +
                           std::to_string(storage::kSchemaVersion));

  EXPECT_TRUE(WaitUntil([&] { return store->IsAvailable(); }, std::chrono::seconds(10),
                        "the store was available"));
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreSchema, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
