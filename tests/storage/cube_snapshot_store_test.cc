// Published cubes' records in the storage service (cube_snapshots), on SQLite and PostgreSQL.
#include <gtest/gtest.h>

#include "storage/metadata_store.h"
#include "support/store_backend_test.h"

namespace tessera::testing {
namespace {

using storage::CubeSnapshotRecord;
using storage::MetadataTransaction;

const Timestamp kNoon = FromUnixMillis(1717243200000);  // 2024-06-01T12:00:00.000Z
const std::string kProject = "0123456789ABCDEF0123456789ABCDEF";
const std::string kOtherProject = "FEDCBA9876543210FEDCBA9876543210";
const std::string kCube = "11111111111111111111111111111111";
const std::string kOtherCube = "22222222222222222222222222222222";

CubeSnapshotRecord ReadyRecord(const std::string& project_id, const std::string& cube_id) {
  CubeSnapshotRecord record;
  record.project_id = project_id;
  record.cube_id = cube_id;
  record.state = "ready";
  record.snapshot_file = "cubes/" + project_id + "/" + cube_id + ".tsnap";
  record.rows = 123456;
  record.memory_bytes = 9876543210;
  record.raw_bytes = 5555555;
  record.published = kNoon;
  record.last_publish_duration_ms = 4321;
  record.publish_job_id = "33333333333333333333333333333333";
  record.rows_file =
      "cubes/" + project_id + "/" + cube_id + ".33333333333333333333333333333333.rows";
  record.created = kNoon - std::chrono::hours(1);
  record.updated = kNoon;
  return record;
}

class CubeSnapshotStore : public StoreBackendTest {
 protected:
  void SetUp() override {
    StoreBackendTest::SetUp();
    if (IsSkipped()) return;
    store_ = OpenStore();
  }

  void Put(const CubeSnapshotRecord& record) {
    store_->Write([&](MetadataTransaction& tx) { tx.PutCubeSnapshot(record); });
  }

  std::optional<CubeSnapshotRecord> Find(const std::string& project_id,
                                         const std::string& cube_id) {
    std::optional<CubeSnapshotRecord> record;
    store_->Read(
        [&](MetadataTransaction& tx) { record = tx.FindCubeSnapshot(project_id, cube_id); });
    return record;
  }

  std::unique_ptr<storage::MetadataStore> store_;
};

TEST_P(CubeSnapshotStore, PutThenFindReturnsEveryField) {
  Put(ReadyRecord(kProject, kCube));

  auto record = Find(kProject, kCube);

  ASSERT_TRUE(record);
  EXPECT_EQ(record->project_id, kProject);
  EXPECT_EQ(record->cube_id, kCube);
  EXPECT_EQ(record->state, "ready");
  EXPECT_EQ(record->error_message, "");
  EXPECT_EQ(record->snapshot_file, "cubes/" + kProject + "/" + kCube + ".tsnap");
  EXPECT_EQ(record->rows, 123456);
  EXPECT_EQ(record->memory_bytes, 9876543210);
  EXPECT_EQ(record->raw_bytes, 5555555);
  EXPECT_EQ(record->published, kNoon);
  EXPECT_EQ(record->last_publish_duration_ms, 4321);
  EXPECT_EQ(record->publish_job_id, "33333333333333333333333333333333");
  EXPECT_EQ(record->rows_file,
            "cubes/" + kProject + "/" + kCube + ".33333333333333333333333333333333.rows");
  EXPECT_EQ(record->created, kNoon - std::chrono::hours(1));
  EXPECT_EQ(record->updated, kNoon);
  EXPECT_FALSE(Find(kProject, kOtherCube));
  EXPECT_FALSE(Find(kOtherProject, kCube));  // cubes are per project
}

TEST_P(CubeSnapshotStore, PutReplacesTheStateButKeepsTheCreationTime) {
  Put(ReadyRecord(kProject, kCube));
  CubeSnapshotRecord failed = ReadyRecord(kProject, kCube);
  failed.state = "failed";
  failed.error_message = "The warehouse 'demo' cannot be reached";
  failed.created = kNoon + std::chrono::hours(5);  // ignored: the row exists
  failed.updated = kNoon + std::chrono::hours(2);
  Put(failed);

  auto record = Find(kProject, kCube);

  ASSERT_TRUE(record);
  EXPECT_EQ(record->state, "failed");
  EXPECT_EQ(record->error_message, "The warehouse 'demo' cannot be reached");
  EXPECT_EQ(record->rows, 123456);
  EXPECT_EQ(record->created, kNoon - std::chrono::hours(1));
  EXPECT_EQ(record->updated, kNoon + std::chrono::hours(2));
}

TEST_P(CubeSnapshotStore, TheSameCubeIdInTwoProjectsIsTwoRecords) {
  Put(ReadyRecord(kProject, kCube));
  CubeSnapshotRecord other = ReadyRecord(kOtherProject, kCube);
  other.rows = 7;
  Put(other);

  EXPECT_EQ(Find(kProject, kCube)->rows, 123456);
  EXPECT_EQ(Find(kOtherProject, kCube)->rows, 7);
}

TEST_P(CubeSnapshotStore, ListGivesAProjectsCubesByIdAndDeleteRemovesOne) {
  Put(ReadyRecord(kProject, kOtherCube));
  Put(ReadyRecord(kProject, kCube));
  Put(ReadyRecord(kOtherProject, kCube));

  std::vector<CubeSnapshotRecord> listed;
  store_->Read([&](MetadataTransaction& tx) { listed = tx.ListCubeSnapshots(kProject); });
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[0].cube_id, kCube);
  EXPECT_EQ(listed[1].cube_id, kOtherCube);

  bool deleted = false;
  bool deleted_again = true;
  store_->Write([&](MetadataTransaction& tx) {
    deleted = tx.DeleteCubeSnapshot(kProject, kCube);
    deleted_again = tx.DeleteCubeSnapshot(kProject, kCube);
  });
  EXPECT_TRUE(deleted);
  EXPECT_FALSE(deleted_again);
  EXPECT_FALSE(Find(kProject, kCube));
  EXPECT_TRUE(Find(kOtherProject, kCube));
}

INSTANTIATE_TEST_SUITE_P(Backends, CubeSnapshotStore, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
