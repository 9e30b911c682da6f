// Instance records in the storage service, on SQLite and PostgreSQL: a record reads back as
// written; a revision is replaced only from the revision expected (of two nodes changing one
// instance, one wins); a session's records, a user's sessions' records and records unused since a
// time are removed, and no others.
#include <gtest/gtest.h>

#include "storage/metadata_store.h"
#include "support/store_backend_test.h"

namespace tessera::testing {
namespace {

using storage::InstanceRecord;
using storage::MetadataTransaction;

const Timestamp kNoon = FromUnixMillis(1717243200000);  // 2024-06-01T12:00:00.000Z

InstanceRecord Record(const std::string& id, const std::string& session_id, Timestamp last_used) {
  InstanceRecord record;
  record.id = id;
  record.session_id = session_id;
  record.project_id = "P";
  record.kind = "dataset";
  record.data = {{"object", "C"}, {"viewFilter", nullptr}, {"sorting", {{"rows", Json::array()}}}};
  record.created = last_used;
  record.last_used = last_used;
  return record;
}

class InstanceRecords : public StoreBackendTest {
 protected:
  void SetUp() override {
    StoreBackendTest::SetUp();
    if (IsSkipped()) return;
    store_ = OpenStore();
  }

  std::optional<InstanceRecord> Find(const std::string& id) {
    std::optional<InstanceRecord> record;
    store_->Read([&](MetadataTransaction& tx) { record = tx.FindInstance(id); });
    return record;
  }

  std::unique_ptr<storage::MetadataStore> store_;
};

TEST_P(InstanceRecords, ARecordReadsBackAsWritten) {
  const InstanceRecord written = Record("I1", "S1", kNoon);
  store_->Write([&](MetadataTransaction& tx) { tx.PutInstance(written); });
  const std::optional<InstanceRecord> read = Find("I1");
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->session_id, "S1");
  EXPECT_EQ(read->project_id, "P");
  EXPECT_EQ(read->kind, "dataset");
  EXPECT_EQ(read->revision, 1);
  EXPECT_EQ(read->data, written.data);
  EXPECT_EQ(read->created, kNoon);
  EXPECT_EQ(read->last_used, kNoon);
  EXPECT_FALSE(Find("I2").has_value());
}

TEST_P(InstanceRecords, ARevisionReplacesOnlyTheRevisionExpected) {
  store_->Write([&](MetadataTransaction& tx) { tx.PutInstance(Record("I1", "S1", kNoon)); });
  InstanceRecord first = Record("I1", "S1", kNoon + std::chrono::seconds(1));
  first.revision = 2;
  first.data["sorting"] = "by revenue";
  InstanceRecord second = first;
  second.data["sorting"] = "by name";
  bool first_won = false;
  bool second_won = true;
  store_->Write([&](MetadataTransaction& tx) { first_won = tx.ReviseInstance(first, 1); });
  store_->Write([&](MetadataTransaction& tx) { second_won = tx.ReviseInstance(second, 1); });
  EXPECT_TRUE(first_won);
  EXPECT_FALSE(second_won) << "a change made from a stale revision replaced a newer one";
  const std::optional<InstanceRecord> read = Find("I1");
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->revision, 2);
  EXPECT_EQ(read->data["sorting"], "by revenue");
  EXPECT_EQ(read->last_used, kNoon + std::chrono::seconds(1));
  std::optional<int64_t> revision;
  store_->Read([&](MetadataTransaction& tx) { revision = tx.InstanceRevision("I1"); });
  EXPECT_EQ(revision, 2);
  store_->Read([&](MetadataTransaction& tx) { revision = tx.InstanceRevision("I9"); });
  EXPECT_FALSE(revision.has_value());
}

TEST_P(InstanceRecords, RecordsGoWithTheirSessionOrWhenUnused) {
  store_->Write([&](MetadataTransaction& tx) {
    tx.PutInstance(Record("I1", "S1", kNoon));
    tx.PutInstance(Record("I2", "S1", kNoon));
    tx.PutInstance(Record("I3", "S2", kNoon - std::chrono::hours(2)));
    tx.PutInstance(Record("I4", "S2", kNoon));
  });
  store_->Write([&](MetadataTransaction& tx) { tx.DeleteInstancesOfSession("S1"); });
  EXPECT_FALSE(Find("I1").has_value());
  EXPECT_FALSE(Find("I2").has_value());
  EXPECT_TRUE(Find("I3").has_value());

  // A touch moves the last use forward, never back.
  store_->Write(
      [&](MetadataTransaction& tx) { tx.TouchInstance("I3", kNoon - std::chrono::hours(3)); });
  EXPECT_EQ(Find("I3")->last_used, kNoon - std::chrono::hours(2));
  int removed = -1;
  store_->Write([&](MetadataTransaction& tx) {
    removed = tx.DeleteInstancesUnusedSince(kNoon - std::chrono::hours(1));
  });
  EXPECT_EQ(removed, 1);
  EXPECT_FALSE(Find("I3").has_value());
  EXPECT_TRUE(Find("I4").has_value());
  bool deleted = false;
  store_->Write([&](MetadataTransaction& tx) { deleted = tx.DeleteInstance("I4"); });
  EXPECT_TRUE(deleted);
  EXPECT_FALSE(Find("I4").has_value());
}

TEST_P(InstanceRecords, TheEndOfAUsersSessionsTakesTheirRecords) {
  storage::SessionRecord session;
  session.token_hash = "hash";
  session.session_id = "S1";
  session.user_id = "U1";
  session.created = kNoon;
  session.last_active = kNoon;
  store_->Write([&](MetadataTransaction& tx) {
    tx.PutSession(session);
    tx.PutInstance(Record("I1", "S1", kNoon));
    tx.PutInstance(Record("I2", "S2", kNoon));
  });
  store_->Write([&](MetadataTransaction& tx) { EXPECT_EQ(tx.DeleteSessionsOfUser("U1"), 1); });
  EXPECT_FALSE(Find("I1").has_value());
  EXPECT_TRUE(Find("I2").has_value()) << "another session's instance went too";
}

INSTANTIATE_TEST_SUITE_P(Backends, InstanceRecords, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
