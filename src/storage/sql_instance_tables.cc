#include "storage/metadata_transaction.h"

namespace tessera::storage {
namespace {

InstanceRecord InstanceFromRow(const SqlRow& row) {
  InstanceRecord instance;
  instance.id = AsText(row.at(0));
  instance.session_id = AsText(row.at(1));
  instance.project_id = AsText(row.at(2));
  instance.kind = AsText(row.at(3));
  instance.revision = AsInt(row.at(4));
  instance.data = AsJson(row.at(5), "instances.data_json");
  instance.created = FromUnixMillis(AsInt(row.at(6)));
  instance.last_used = FromUnixMillis(AsInt(row.at(7)));
  return instance;
}

}  // namespace

void MetadataTransaction::PutInstance(const InstanceRecord& instance) {
  db_.Execute(
      "INSERT INTO instances (id, session_id, project_id, kind, state, revision, data_json, "
      "created_ms, updated_ms) VALUES (?, ?, ?, ?, '', ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET "
      "session_id = excluded.session_id, project_id = excluded.project_id, kind = excluded.kind, "
      "revision = excluded.revision, data_json = excluded.data_json, "
      "created_ms = excluded.created_ms, updated_ms = excluded.updated_ms",
      {instance.id, instance.session_id, instance.project_id, instance.kind, instance.revision,
       DumpJson(instance.data), ToUnixMillis(instance.created), ToUnixMillis(instance.last_used)});
}

bool MetadataTransaction::ReviseInstance(const InstanceRecord& instance,
                                         int64_t expected_revision) {
  return db_.Execute(
             "UPDATE instances SET revision = ?, data_json = ?, updated_ms = ? "
             "WHERE id = ? AND revision = ?",
             {instance.revision, DumpJson(instance.data), ToUnixMillis(instance.last_used),
              instance.id, expected_revision}) > 0;
}

std::optional<InstanceRecord> MetadataTransaction::FindInstance(const std::string& id) {
  auto rows = db_.Query(
      "SELECT id, session_id, project_id, kind, revision, data_json, created_ms, updated_ms "
      "FROM instances WHERE id = ?",
      {id});
  if (rows.empty()) return std::nullopt;
  return InstanceFromRow(rows.front());
}

std::optional<int64_t> MetadataTransaction::InstanceRevision(const std::string& id) {
  auto rows = db_.Query("SELECT revision FROM instances WHERE id = ?", {id});
  if (rows.empty()) return std::nullopt;
  return AsInt(rows.front().front());
}

void MetadataTransaction::TouchInstance(const std::string& id, Timestamp last_used) {
  db_.Execute("UPDATE instances SET updated_ms = ? WHERE id = ? AND updated_ms < ?",
              {ToUnixMillis(last_used), id, ToUnixMillis(last_used)});
}

bool MetadataTransaction::DeleteInstance(const std::string& id) {
  return db_.Execute("DELETE FROM instances WHERE id = ?", {id}) > 0;
}

void MetadataTransaction::DeleteInstancesOfSession(const std::string& session_id) {
  db_.Execute("DELETE FROM instances WHERE session_id = ?", {session_id});
}

int MetadataTransaction::DeleteInstancesUnusedSince(Timestamp before) {
  return static_cast<int>(
      db_.Execute("DELETE FROM instances WHERE updated_ms < ?", {ToUnixMillis(before)}));
}

}  // namespace tessera::storage
