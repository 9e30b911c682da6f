// storage/records.h
//
// Rows of the storage service that are not metadata objects: projects' own columns, sessions,
// stored searches and published cubes. Plain values; the services give them meaning.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/time.h"
#include "model/object.h"

namespace tessera::storage {

// A project is a configuration-level object (type 32) plus its own columns. Names are unique
// across the server (enforced by the store).
struct ProjectRecord {
  model::ObjectRecord object;  // project_id "", type 32, subtype 8192
  int status = 0;              // spec 01 §5.1
  std::string alias;
};

// A login session. Only the SHA-256 of the token is stored, so a leaked table grants nothing.
struct SessionRecord {
  std::string token_hash;  // lower-case hex SHA-256 of the token
  std::string session_id;  // 32 upper-case hex, never secret
  std::string user_id;
  int application_type = 76;
  Timestamp created{};
  Timestamp last_active{};
  int idle_timeout_seconds = 1800;
};

// The hits of a metadata search, kept until the session ends (spec 01 §7.2).
struct SearchRecord {
  std::string id;  // 32 upper-case hex
  std::string session_id;
  std::string project_id;
  Timestamp created{};
  std::vector<std::string> object_ids;  // hits in result order
};

// What the storage service knows of a published cube (ARCHITECTURE §1, §4), so every node and
// every restart finds the snapshot a publish wrote. One per (project, cube).
struct CubeSnapshotRecord {
  std::string project_id;
  std::string cube_id;
  std::string state;          // the latest publish: "publishing", "ready" or "failed"
  std::string error_message;  // why the latest publish failed
  // The snapshot served (the latest successful publish; empty before the first one): the file,
  // relative to the node's data directory, and what it holds.
  std::string snapshot_file;
  int64_t rows = 0;
  int64_t memory_bytes = 0;
  int64_t raw_bytes = 0;
  Timestamp published{};
  int64_t last_publish_duration_ms = 0;  // the latest publish that ended, ready or failed
  Timestamp created{};
  Timestamp updated{};
};

}  // namespace tessera::storage
