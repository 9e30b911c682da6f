// service/cube/cube_record.h
//
// A cube's record in the storage service (storage::CubeSnapshotRecord), which every node reads:
// the state of the cube's latest publish, the snapshot served and what it holds. A client's view
// of a cube (CubeStatus) starts from it (StatusOfRecord()); the node adds what only it knows
// (service/cube/cube_publisher.h). Also the names every node's publishes share: the job kind that
// runs them and the notice channel that announces them.
//
// Contract:
//   - StatusOfRecord() never fails; a state it does not know reads as kNotPublished.
//   - FindCubeRecord() throws what the storage service throws (Error(kStorageUnavailable)).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "storage/metadata_store.h"

namespace tessera::service::cube {

enum class CubeState { kNotPublished, kPublishing, kReady, kFailed };

// "not_published", "publishing", "ready", "failed"
std::string_view CubeStateName(CubeState state);

struct CubeStatus {
  CubeState state = CubeState::kNotPublished;
  std::string error_message;  // kFailed: why the latest publish failed
  // The dataset served (from the latest successful publish); zeros before the first one.
  size_t rows = 0;
  size_t memory_bytes = 0;  // as measured when it was published or loaded
  size_t raw_bytes = 0;
  int64_t published_ms = 0;              // unix milliseconds
  int64_t last_publish_duration_ms = 0;  // the latest publish that ended, ready or failed
  bool is_loaded = false;                // held in this node's memory
};

// The job kind of cube publishes.
inline constexpr char kCubePublishJob[] = "cube_publish";
// The notice channel of published cubes; the payload is "<project id>:<cube id>".
inline constexpr char kCubeNoticeChannel[] = "tessera_cubes";

// The states a record stores (storage::CubeSnapshotRecord::state).
inline constexpr std::string_view kRecordPublishing = "publishing";
inline constexpr std::string_view kRecordReady = "ready";
inline constexpr std::string_view kRecordFailed = "failed";

CubeStatus StatusOfRecord(const storage::CubeSnapshotRecord& record);

std::optional<storage::CubeSnapshotRecord> FindCubeRecord(storage::MetadataStore& store,
                                                          const std::string& project_id,
                                                          const std::string& cube_id);

}  // namespace tessera::service::cube
