#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "storage/metadata_store.h"
#include "storage/sample_records.h"
#include "support/store_backend_test.h"

namespace tessera::testing {
namespace {

using storage::DanglingUse;
using storage::JobRecord;
using storage::MetadataTransaction;
using storage::MigrationRow;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

MigrationRow SampleMigration(const std::string& role, int package, int import, int64_t created_ms) {
  MigrationRow row;
  row.role = role;
  row.package_id = Id(package);
  row.migration_id = Id(package) + ":" + Id(import);
  row.purpose = "object_migration";
  row.project_id = kProject;
  row.package_status = "creating";
  row.import_status = "pending";
  row.record = Json{{"id", row.migration_id}, {"packageInfo", {{"name", "Revenue to prod"}}}};
  row.internal = Json{{"jobId", Id(99)}};
  row.created = FromUnixMillis(created_ms);
  row.updated = FromUnixMillis(created_ms + 5);
  return row;
}

JobRecord SampleJob(int id, const std::string& state, int64_t created_ms) {
  JobRecord job;
  job.id = Id(id);
  job.kind = "import_package";
  job.state = state;
  job.lease_owner = "node-a";
  job.lease_expires = FromUnixMillis(created_ms + 30000);
  job.data = Json{{"migrationId", Id(1) + ":" + Id(2)}};
  job.created = FromUnixMillis(created_ms);
  job.updated = FromUnixMillis(created_ms);
  return job;
}

std::vector<std::string> MigrationKeys(const std::vector<MigrationRow>& rows) {
  std::vector<std::string> keys;
  for (const auto& row : rows) keys.push_back(row.role + " " + row.migration_id);
  return keys;
}

class MigrationStore : public StoreBackendTest {
 protected:
  void SetUp() override {
    StoreBackendTest::SetUp();
    if (IsSkipped()) return;
    store_ = OpenStore();
  }

  std::unique_ptr<storage::MetadataStore> store_;
};

TEST_P(MigrationStore, AMigrationRowRoundTripsEveryColumn) {
  MigrationRow written = SampleMigration("source", 1, 2, 1717243199000);
  store_->Write([&](MetadataTransaction& tx) { tx.PutMigration(written); });

  std::optional<MigrationRow> read;
  store_->Read(
      [&](MetadataTransaction& tx) { read = tx.FindMigration("source", Id(1) + ":" + Id(2)); });

  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->package_id, Id(1));
  EXPECT_EQ(read->purpose, "object_migration");
  EXPECT_EQ(read->project_id, kProject);
  EXPECT_EQ(read->package_status, "creating");
  EXPECT_EQ(read->import_status, "pending");
  EXPECT_EQ(read->record, written.record);
  EXPECT_EQ(read->internal, written.internal);
  EXPECT_EQ(ToUnixMillis(read->created), 1717243199000);
  EXPECT_EQ(ToUnixMillis(read->updated), 1717243199005);
}

TEST_P(MigrationStore, OneMigrationHasASourceAndATargetRow) {
  MigrationRow source = SampleMigration("source", 1, 2, 1000);
  MigrationRow target = SampleMigration("target", 1, 2, 2000);
  target.import_status = "importing";
  store_->Write([&](MetadataTransaction& tx) {
    tx.PutMigration(source);
    tx.PutMigration(target);
  });

  std::optional<MigrationRow> read_target;
  store_->Read([&](MetadataTransaction& tx) {
    read_target = tx.FindMigration("target", source.migration_id);
  });
  ASSERT_TRUE(read_target.has_value());
  EXPECT_EQ(read_target->import_status, "importing");

  bool deleted = false;
  store_->Write([&](MetadataTransaction& tx) {
    deleted = tx.DeleteMigration("target", source.migration_id);
  });
  std::vector<MigrationRow> left;
  store_->Read([&](MetadataTransaction& tx) { left = tx.ListMigrations(); });

  EXPECT_TRUE(deleted);
  EXPECT_THAT(MigrationKeys(left), ElementsAre("source " + source.migration_id));
}

TEST_P(MigrationStore, PuttingARowAgainReplacesIt) {
  MigrationRow row = SampleMigration("source", 1, 2, 1000);
  store_->Write([&](MetadataTransaction& tx) { tx.PutMigration(row); });
  row.package_status = "created";
  row.record["packageInfo"]["status"] = "created";
  store_->Write([&](MetadataTransaction& tx) { tx.PutMigration(row); });

  std::vector<MigrationRow> rows;
  store_->Read([&](MetadataTransaction& tx) { rows = tx.ListMigrations(); });

  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].package_status, "created");
  EXPECT_EQ(rows[0].record["packageInfo"]["status"], "created");
}

TEST_P(MigrationStore, MigrationsListNewestFirstAndByPackage) {
  store_->Write([&](MetadataTransaction& tx) {
    tx.PutMigration(SampleMigration("source", 1, 2, 1000));
    tx.PutMigration(SampleMigration("source", 3, 4, 3000));
    tx.PutMigration(SampleMigration("source", 1, 5, 2000));  // a reuse of package 1
  });

  std::vector<MigrationRow> all;
  std::vector<MigrationRow> of_package;
  store_->Read([&](MetadataTransaction& tx) {
    all = tx.ListMigrations();
    of_package = tx.ListMigrationsOfPackage(Id(1));
  });

  EXPECT_THAT(MigrationKeys(all),
              ElementsAre("source " + Id(3) + ":" + Id(4), "source " + Id(1) + ":" + Id(5),
                          "source " + Id(1) + ":" + Id(2)));
  EXPECT_THAT(MigrationKeys(of_package),
              ElementsAre("source " + Id(1) + ":" + Id(5), "source " + Id(1) + ":" + Id(2)));
}

TEST_P(MigrationStore, ContentChunksAreKeptPerRecordAndGoWithIt) {
  MigrationRow row = SampleMigration("source", 1, 2, 1000);
  MigrationRow other = SampleMigration("source", 3, 4, 2000);
  store_->Write([&](MetadataTransaction& tx) {
    tx.PutMigration(row);
    tx.PutMigration(other);
    tx.PutMigrationContent("source", row.migration_id, 1, R"([{"id": "a"}])");
    tx.PutMigrationContent("source", row.migration_id, 2, R"([{"id": "b"}])");
    tx.PutMigrationContent("source", row.migration_id, 2, R"([{"id": "c"}])");  // replaces
    tx.PutMigrationContent("source", other.migration_id, 1, R"([{"id": "d"}])");
  });
  auto chunk = [&](const std::string& migration_id, int64_t sequence) {
    std::optional<std::string> text;
    store_->Read([&](MetadataTransaction& tx) {
      text = tx.FindMigrationContent("source", migration_id, sequence);
    });
    return text.value_or("(none)");
  };
  EXPECT_EQ(chunk(row.migration_id, 1), R"([{"id": "a"}])");
  EXPECT_EQ(chunk(row.migration_id, 2), R"([{"id": "c"}])");
  EXPECT_EQ(chunk(row.migration_id, 3), "(none)");

  store_->Write([&](MetadataTransaction& tx) { tx.DeleteMigration("source", row.migration_id); });
  EXPECT_EQ(chunk(row.migration_id, 1), "(none)");
  EXPECT_EQ(chunk(other.migration_id, 1), R"([{"id": "d"}])");
  store_->Write(
      [&](MetadataTransaction& tx) { tx.DeleteMigrationContent("source", other.migration_id); });
  EXPECT_EQ(chunk(other.migration_id, 1), "(none)");
  std::vector<MigrationRow> left;
  store_->Read([&](MetadataTransaction& tx) { left = tx.ListMigrations(); });
  EXPECT_THAT(MigrationKeys(left), ElementsAre("source " + other.migration_id));
}

TEST_P(MigrationStore, DeletingAnUnknownRowReportsNothingDeleted) {
  bool deleted = true;
  store_->Write([&](MetadataTransaction& tx) { deleted = tx.DeleteMigration("source", "X:Y"); });
  EXPECT_FALSE(deleted);
}

// Two requests that read, check and write the same record must not both pass the check.
TEST_P(MigrationStore, ALockedReadSerialisesConcurrentReadCheckWrites) {
  MigrationRow row = SampleMigration("source", 1, 2, 1000);
  row.internal = Json{{"counter", 0}};
  store_->Write([&](MetadataTransaction& tx) { tx.PutMigration(row); });

  constexpr int kThreads = 4;
  constexpr int kIncrements = 10;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      auto store = OpenStore();
      for (int i = 0; i < kIncrements; ++i) {
        try {
          store->Write([&](MetadataTransaction& tx) {
            auto current = tx.FindMigration("source", row.migration_id, /*for_update=*/true);
            current->internal["counter"] = current->internal["counter"].get<int>() + 1;
            tx.PutMigration(*current);
          });
        } catch (const std::exception&) {
          ++failures;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();

  std::optional<MigrationRow> read;
  store_->Read(
      [&](MetadataTransaction& tx) { read = tx.FindMigration("source", row.migration_id); });
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(read->internal["counter"], kThreads * kIncrements);
}

TEST_P(MigrationStore, AJobRoundTripsAndListsByState) {
  store_->Write([&](MetadataTransaction& tx) {
    tx.PutJob(SampleJob(2, "running", 2000));
    tx.PutJob(SampleJob(1, "running", 1000));
    tx.PutJob(SampleJob(3, "done", 500));
  });

  std::vector<JobRecord> running;
  std::optional<JobRecord> one;
  store_->Read([&](MetadataTransaction& tx) {
    running = tx.ListJobs("running");
    one = tx.FindJob(Id(3));
  });

  ASSERT_EQ(running.size(), 2u);
  EXPECT_EQ(running[0].id, Id(1));
  EXPECT_EQ(running[1].id, Id(2));
  EXPECT_EQ(running[0].kind, "import_package");
  EXPECT_EQ(running[0].lease_owner, "node-a");
  EXPECT_EQ(ToUnixMillis(running[0].lease_expires), 31000);
  EXPECT_EQ(running[0].data["migrationId"], Id(1) + ":" + Id(2));
  ASSERT_TRUE(one.has_value());
  EXPECT_EQ(one->state, "done");
}

TEST_P(MigrationStore, ALeaseMovesOnlyFromTheExpectedHolder) {
  JobRecord job = SampleJob(1, "running", 1000);
  store_->Write([&](MetadataTransaction& tx) { tx.PutJob(job); });

  bool stale_take = true;
  bool take = false;
  bool second_take = true;
  store_->Write([&](MetadataTransaction& tx) {
    stale_take =
        tx.ReplaceLease(job.id, "node-a", FromUnixMillis(1), "node-b", FromUnixMillis(90000));
    take = tx.ReplaceLease(job.id, "node-a", job.lease_expires, "node-b", FromUnixMillis(90000));
    second_take =
        tx.ReplaceLease(job.id, "node-a", job.lease_expires, "node-c", FromUnixMillis(95000));
  });
  std::optional<JobRecord> read;
  store_->Read([&](MetadataTransaction& tx) { read = tx.FindJob(job.id); });

  EXPECT_FALSE(stale_take);
  EXPECT_TRUE(take);
  EXPECT_FALSE(second_take);
  EXPECT_EQ(read->lease_owner, "node-b");
  EXPECT_EQ(ToUnixMillis(read->lease_expires), 90000);
}

TEST_P(MigrationStore, OfNodesTakingOverOneJobExactlyOneWins) {
  JobRecord job = SampleJob(1, "running", 1000);
  store_->Write([&](MetadataTransaction& tx) { tx.PutJob(job); });

  std::atomic<int> winners{0};
  std::vector<std::thread> threads;
  for (int node = 0; node < 4; ++node) {
    threads.emplace_back([&, node] {
      auto store = OpenStore();
      try {
        store->Write([&](MetadataTransaction& tx) {
          if (tx.ReplaceLease(job.id, job.lease_owner, job.lease_expires,
                              "node-" + std::to_string(node), FromUnixMillis(90000))) {
            ++winners;
          }
        });
      } catch (const std::exception&) {
      }
    });
  }
  for (auto& thread : threads) thread.join();

  EXPECT_EQ(winners.load(), 1);
}

TEST_P(MigrationStore, SettingsAreReplacedByKey) {
  store_->Write([&](MetadataTransaction& tx) {
    tx.PutSetting("storage.sharedFileStore", Json{{"location", "/mnt/a"}});
    tx.PutSetting("storage.sharedFileStore", Json{{"location", "/mnt/b"}});
  });

  std::optional<Json> value;
  std::optional<Json> missing;
  store_->Read([&](MetadataTransaction& tx) {
    value = tx.FindSetting("storage.sharedFileStore");
    missing = tx.FindSetting("other");
  });

  ASSERT_TRUE(value.has_value());
  EXPECT_EQ((*value)["location"], "/mnt/b");
  EXPECT_FALSE(missing.has_value());
}

TEST_P(MigrationStore, SharedFilesListInCreationOrderAndDelete) {
  store_->Write([&](MetadataTransaction& tx) {
    tx.PutSharedFile({"file-b", Json{{"name", "B"}}, FromUnixMillis(2000), FromUnixMillis(2000)});
    tx.PutSharedFile({"file-a", Json{{"name", "A"}}, FromUnixMillis(1000), FromUnixMillis(1000)});
  });
  bool deleted = false;
  bool deleted_again = true;
  std::vector<storage::SharedFileRecord> before;
  std::vector<storage::SharedFileRecord> after;
  store_->Write([&](MetadataTransaction& tx) {
    before = tx.ListSharedFiles();
    deleted = tx.DeleteSharedFile("file-a");
    deleted_again = tx.DeleteSharedFile("file-a");
    after = tx.ListSharedFiles();
  });

  ASSERT_EQ(before.size(), 2u);
  EXPECT_EQ(before[0].id, "file-a");
  EXPECT_EQ(before[0].data["name"], "A");
  EXPECT_TRUE(deleted);
  EXPECT_FALSE(deleted_again);
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(after[0].id, "file-b");
}

TEST_P(MigrationStore, ObjectKeysListAProjectWithoutDefinitions) {
  auto metric = SampleObject(kProject, Id(2), 4, "Revenue", kOtherFolder);
  metric.version = "0123456789ABCDEF0123456789ABCDEF";
  metric.definition = Json{{"expression", "Sum(Revenue)"}};
  store_->Write([&](MetadataTransaction& tx) {
    tx.PutObject(metric);
    tx.PutObject(SampleObject(kProject, Id(1), 8, "Metrics"));
    tx.PutObject(SampleObject(kOtherProject, Id(3), 4, "Elsewhere"));
  });

  std::vector<storage::ObjectKey> keys;
  store_->Read([&](MetadataTransaction& tx) { keys = tx.ListObjectKeys(kProject); });

  ASSERT_EQ(keys.size(), 2u);
  EXPECT_EQ(keys[0].id, Id(1));
  EXPECT_EQ(keys[1].id, Id(2));
  EXPECT_EQ(keys[1].type, 4);
  EXPECT_EQ(keys[1].subtype, metric.subtype);
  EXPECT_EQ(keys[1].folder_id, kOtherFolder);
  EXPECT_EQ(keys[1].version, metric.version);
  EXPECT_EQ(keys[1].modified, metric.modified);
}

TEST_P(MigrationStore, ObjectKeysComeAPageAtATimeAndTogetherListTheProject) {
  store_->Write([&](MetadataTransaction& tx) {
    for (int i = 1; i <= 7; ++i) tx.PutObject(SampleObject(kProject, Id(i * 3), 4, "M"));
    tx.PutObject(SampleObject(kOtherProject, Id(4), 4, "Elsewhere"));
  });

  std::vector<storage::ObjectKey> whole;
  std::vector<std::vector<std::string>> pages;
  store_->Read([&](MetadataTransaction& tx) {
    whole = tx.ListObjectKeys(kProject);
    std::string after;
    for (;;) {
      auto page = tx.ListObjectKeysAfter(kProject, after, 3);
      pages.emplace_back();
      for (const auto& key : page) pages.back().push_back(key.id);
      if (page.size() < 3) break;
      after = page.back().id;
    }
  });

  ASSERT_EQ(whole.size(), 7u);
  ASSERT_EQ(pages.size(), 3u);
  EXPECT_EQ(pages[0], (std::vector<std::string>{whole[0].id, whole[1].id, whole[2].id}));
  EXPECT_EQ(pages[1], (std::vector<std::string>{whole[3].id, whole[4].id, whole[5].id}));
  EXPECT_EQ(pages[2], (std::vector<std::string>{whole[6].id}));
}

TEST_P(MigrationStore, DanglingUsesAreReferencesToIdsTheProjectLacks) {
  store_->Write([&](MetadataTransaction& tx) {
    tx.PutObject(SampleObject(kProject, Id(10), 3, "Report"));
    tx.PutObject(SampleObject(kProject, Id(20), 4, "Revenue"));
    tx.PutObject(SampleObject(kOtherProject, Id(30), 13, "Fact elsewhere"));
    tx.SetDependencies(kProject, Id(10), {Id(20), Id(30), Id(31)});
    tx.SetDependencies(kProject, Id(20), {Id(32)});
    tx.SetDependencies(kProject, Id(40), {Id(33)});  // not asked about
  });

  std::vector<DanglingUse> dangling;
  std::vector<DanglingUse> none;
  store_->Read([&](MetadataTransaction& tx) {
    dangling = tx.ListDanglingUses(kProject, {Id(20), Id(10)});
    none = tx.ListDanglingUses(kProject, {});
  });

  ASSERT_EQ(dangling.size(), 3u);
  EXPECT_EQ(dangling[0].object_id, Id(10));
  EXPECT_EQ(dangling[0].used_id, Id(30));  // the same id in another project does not count
  EXPECT_EQ(dangling[1].used_id, Id(31));
  EXPECT_EQ(dangling[2].object_id, Id(20));
  EXPECT_EQ(dangling[2].used_id, Id(32));
  EXPECT_THAT(none, IsEmpty());
}

INSTANTIATE_TEST_SUITE_P(Backends, MigrationStore, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
