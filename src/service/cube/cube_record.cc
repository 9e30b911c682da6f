#include "service/cube/cube_record.h"

#include "core/time.h"

namespace tessera::service::cube {
namespace {

CubeState StateOf(const std::string& name) {
  if (name == kRecordPublishing) return CubeState::kPublishing;
  if (name == kRecordReady) return CubeState::kReady;
  if (name == kRecordFailed) return CubeState::kFailed;
  return CubeState::kNotPublished;
}

}  // namespace

std::string_view CubeStateName(CubeState state) {
  switch (state) {
    case CubeState::kNotPublished:
      return "not_published";
    case CubeState::kPublishing:
      return kRecordPublishing;
    case CubeState::kReady:
      return kRecordReady;
    case CubeState::kFailed:
      return kRecordFailed;
  }
  return "not_published";
}

CubeStatus StatusOfRecord(const storage::CubeSnapshotRecord& record) {
  CubeStatus status;
  status.state = StateOf(record.state);
  status.error_message = record.error_message;
  status.rows = static_cast<size_t>(record.rows);
  status.memory_bytes = static_cast<size_t>(record.memory_bytes);
  status.raw_bytes = static_cast<size_t>(record.raw_bytes);
  status.published_ms = record.snapshot_file.empty() ? 0 : ToUnixMillis(record.published);
  status.last_publish_duration_ms = record.last_publish_duration_ms;
  return status;
}

std::optional<storage::CubeSnapshotRecord> FindCubeRecord(storage::MetadataStore& store,
                                                          const std::string& project_id,
                                                          const std::string& cube_id) {
  std::optional<storage::CubeSnapshotRecord> record;
  store.Read(
      [&](storage::MetadataTransaction& tx) { record = tx.FindCubeSnapshot(project_id, cube_id); });
  return record;
}

}  // namespace tessera::service::cube
