#include <fmt/format.h>

#include <string_view>

#include "storage/metadata_transaction.h"
#include "storage/row_reader.h"

namespace tessera::storage {
namespace {

// The row's `state` column is not read: instances leave it ''. `updated_ms` is the last use.
constexpr std::string_view kInstanceColumns =
    "id, session_id, project_id, kind, revision, data_json, created_ms, updated_ms";

InstanceRecord InstanceFromRow(const SqlRow& row) {
  RowReader cells(row);
  InstanceRecord instance;
  cells.Read(instance.id, instance.session_id, instance.project_id, instance.kind,
             instance.revision);
  instance.data = cells.JsonText("instances.data_json");
  cells.Read(instance.created, instance.last_used);
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
  return ReadFirstRow(
      db_.Query(fmt::format("SELECT {} FROM instances WHERE id = ?", kInstanceColumns), {id}),
      InstanceFromRow);
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
