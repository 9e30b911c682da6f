// storage/records.h
//
// Rows of the storage service that are not metadata objects: projects' own columns, sessions,
// stored searches, published cubes, migration records, jobs and shared files. Plain values; the
// services give them meaning.
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
  int status = 0;              // 0: active (service/project/project_service.h)
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

// The hits of a metadata search, kept until the session ends.
struct SearchRecord {
  std::string id;  // 32 upper-case hex
  std::string session_id;
  std::string project_id;
  Timestamp created{};
  std::vector<std::string> object_ids;  // hits in result order
};

// A dataset upload session (service/push/push_service.h), kept in the storage service so that any
// node takes its next call. `tables` holds what the session keeps of each table.
struct UploadSessionRecord {
  std::string id;
  std::string project_id;
  std::string dataset_id;
  std::string user_id;
  Json tables = Json::array();
  std::string state;  // "open", "publishing", "published", "failed"
  std::string error;  // "failed": why
  Timestamp publish_started{};
  Timestamp last_used{};
};

// A report, cube or dashboard instance (service/instance/shared_instances.h): what rebuilds it on
// any node. `kind` names the service that reads `data`.
struct InstanceRecord {
  std::string id;  // 32 upper-case hex
  std::string session_id;
  std::string project_id;
  std::string kind;      // "dataset" or "dashboard"
  int64_t revision = 1;  // 1 at creation, one more at each change of its definition
  Json data;
  Timestamp created{};
  Timestamp last_used{};
};

// One uploaded chunk of a table of an upload session, as the client sent it (decoded).
struct UploadChunk {
  std::string table;
  int64_t index = 0;
  std::string data;  // empty when only the keys were listed
  // Chosen by the writer, a new one at each put (core/ids.h NewTicketId): two reads of a chunk
  // that give the same revision gave the same bytes. "" for a chunk stored before revisions.
  std::string revision;
};

// What the storage service knows of a published cube, so every node and every restart finds the
// snapshot a publish wrote. One per (project, cube).
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
  // The job of the latest publish (service/job_runner.h): only that job may record its outcome.
  std::string publish_job_id;
  // A pushed dataset's rows behind the snapshot served, relative like snapshot_file; empty when
  // none is recorded.
  std::string rows_file;
  // The snapshot the one served replaced, kept until the next publish for the instances made on
  // it (empty when none is kept).
  std::string previous_snapshot_file;
  Timestamp created{};
  Timestamp updated{};
};

// One side's record of a migration: the public record as the API shows it, and the server's own
// bookkeeping. A server keeps one row per (role, migration id): "source" rows are created by
// package creation, "target" rows by an import request; a migration between projects of one server
// has both. The columns beside the JSON are what lists and guards filter on; the service keeps them
// equal to the record's values.
struct MigrationRow {
  std::string role;          // "source" or "target"
  std::string migration_id;  // "<package id>:<import id>", upper case
  std::string package_id;
  std::string purpose;     // packageInfo.purpose
  std::string project_id;  // the project the row's jobs work on; "" for configuration packages
  std::string package_status;
  std::string import_status;
  Json record = Json::object();    // the public record
  Json internal = Json::object();  // never shown: file checksums, job ids, undo paths, ...
  Timestamp created{};
  Timestamp updated{};
};

// A long operation that survives its request (package creation, import, undo, validation). The
// node running it holds a lease it renews; a job whose lease ran out belongs to a node that
// stopped, and another node (or the same one restarted) may take it over.
struct JobRecord {
  std::string id;  // 32 upper-case hex
  std::string kind;
  std::string state;        // "queued", "running", "done" or "failed"
  std::string lease_owner;  // the node id holding the lease; "" when none
  Timestamp lease_expires{};
  Json data = Json::object();
  Timestamp created{};
  Timestamp updated{};
};

// Metadata of a file uploaded to the shared file store.
struct SharedFileRecord {
  std::string id;
  Json data = Json::object();
  Timestamp created{};
  Timestamp updated{};
};

// What a migration needs to know of an object without reading its definition.
struct ObjectKey {
  std::string id;
  int type = 0;
  int subtype = 0;
  std::string folder_id;
  std::string version;
  Timestamp modified{};
};

// An object's reference to an id that no object of its project has.
struct DanglingUse {
  std::string object_id;
  std::string used_id;
};

}  // namespace tessera::storage
