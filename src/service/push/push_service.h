// service/push/push_service.h
//
// The push API: datasets whose rows clients upload, published as cubes like any other
// (service/cube/cube_service.h). The bodies are read by api/push/push_requests.h into the requests
// below; OpenSession, PutChunk and PatchTable take them Parsed (service/parsed.h) and refuse a
// body's fault only after the dataset or session it is for is found and the caller may write to it.
//
//   CreateModel    POST /api/datasets/models: a super cube (779) holding the model
//                  (engine/push/push_model.h) under "pushModel", in the model's folder or the
//                  caller's My Reports; a dataset of that name there is replaced (its id kept, its
//                  rows dropped, its served data kept until the next publish).
//   OpenSession    an upload session over some of the dataset's tables, each with its update
//                  policy, column headers (default: all columns in table order) and orientation.
//                  A new session supersedes the dataset's unpublished sessions.
//   PutChunk       one chunk of a table, parsed and checked at once (engine/push/pushed_table.h);
//                  a repeated index replaces its chunk.
//   Publish        checks that each table's chunks are numbered 1..n without a gap, then merges
//                  them, in index order, into the table's stored rows by its policy and publishes
//                  the dataset on CubeService's thread. Atomic: the rows and the served data
//                  change together or not at all; a failed publish leaves the previous data
//                  served. The rows went to the publish, so a failed session refuses further
//                  chunks and publishes: the rows are sent again in a new session.
//   Progress       0 before publish, 6 while publishing, 1 once published; a failed publish is
//                  Error(kInternal) with its reason.
//   CloseSession   forgets the session; a publish still running is cancelled (its data is not
//                  served).
//   CreateSingle   POST /api/datasets: model and rows of one table in one request, published
//                  before it returns.
//   PatchTable     PATCH of a table of a dataset made by CreateSingle: its rows merged by the
//                  policy and the dataset republished before it returns. Datasets made by
//                  CreateModel refuse it (Error(kNotSupported)).
//
// Errors: malformed ids, unknown tables and columns, bad cells, chunk gaps are
// Error(kInvalidInput) and change nothing; an unknown dataset or session, or a session of
// another user, is Error(kNotFound); a cube that is not a pushed dataset is
// Error(kNotSupported). Uploading needs write on the dataset.
//
// Sessions and their chunks live in the storage service, so any node takes the next call of a
// session another node opened (a chunk is checked when it arrives and parsed again when the
// session is published; the node that took it parses it in between, and its publish uses those
// rows when the stored chunk and its table are still the same: service/push/parsed_chunk_cache.h).
// A session is forgotten after `session_ttl` without use, unless publishing. The node asked to
// publish runs the publish; its progress is read from the cube's shared record, so any node answers
// it, and a session whose node died before recording the end reads as the cube's outcome (or as
// failed when the publish never began). Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/json.h"
#include "engine/push/push_model.h"
#include "engine/push/pushed_table.h"
#include "service/cube/cube_service.h"
#include "service/object/object_service.h"
#include "service/parsed.h"
#include "service/push/parsed_chunk_cache.h"
#include "service/session/principal.h"
#include "storage/metadata_store.h"

namespace tessera::service::push {

// One table of an upload session.
struct UploadTableRequest {
  std::string name;
  engine::push::UpdatePolicy policy = engine::push::UpdatePolicy::kReplace;
  std::vector<std::string> column_headers;  // empty: every column, in table order
  bool column_orientation = false;          // the chunks hold columns, not rows
};

struct OpenSessionRequest {
  std::vector<UploadTableRequest> tables;  // at least one, each named once
};

// One chunk of a table's rows.
struct ChunkRequest {
  std::string table_name;
  int64_t index = 1;      // 1 or more
  std::string rows_json;  // the rows as JSON, in the session's headers and orientation
};

// Rows given as records: each a JSON array of cells in header order, or a JSON object keyed by
// column name (a missing column is null). Kept as JSON: the table's columns type the cells.
struct TableRowsRequest {
  std::vector<std::string> column_headers;  // empty: the table's columns, in order
  Json records = Json::array();
};

// A dataset of one table and its first rows (the single-request API).
struct SingleDatasetRequest {
  engine::push::PushModel model;  // exactly one table
  Json records = Json::array();   // as TableRowsRequest's, in the table's column order
};

struct PushServiceOptions {
  std::chrono::milliseconds session_ttl{std::chrono::hours(1)};
  // The chunk bytes this node parses ahead of their publish (service/push/parsed_chunk_cache.h);
  // their rows take a few times more. 0 parses every chunk when its session is published.
  size_t parse_ahead_bytes = size_t{256} << 20;
  // How long they are kept for a publish: chunks this node took for a session another node
  // publishes wait this long before they go.
  std::chrono::milliseconds parse_ahead_age{std::chrono::minutes(5)};
};

struct PushedDatasetRef {
  std::string id;
  std::string name;
  std::vector<std::pair<std::string, std::string>> tables;  // id, name (CreateSingle only)
};

struct PublishProgress {
  std::string session_id;
  int status = 0;
  std::string message;
};

class PushService {
 public:
  PushService(storage::MetadataStore& store, object::ObjectService& objects,
              cube::CubeService& cubes, PushServiceOptions options = {});
  ~PushService();
  PushService(const PushService&) = delete;
  PushService& operator=(const PushService&) = delete;

  PushedDatasetRef CreateModel(const session::Principal& principal, const std::string& project_id,
                               const engine::push::PushModel& model);
  std::string OpenSession(const session::Principal& principal, const std::string& project_id,
                          const std::string& dataset_id, const Parsed<OpenSessionRequest>& request);
  void PutChunk(const session::Principal& principal, const std::string& project_id,
                const std::string& dataset_id, const std::string& session_id,
                Parsed<ChunkRequest> chunk);
  void Publish(const session::Principal& principal, const std::string& project_id,
               const std::string& dataset_id, const std::string& session_id);
  PublishProgress Progress(const session::Principal& principal, const std::string& project_id,
                           const std::string& dataset_id, const std::string& session_id);
  void CloseSession(const session::Principal& principal, const std::string& project_id,
                    const std::string& dataset_id, const std::string& session_id);

  PushedDatasetRef CreateSingle(const session::Principal& principal, const std::string& project_id,
                                const SingleDatasetRequest& request);
  void PatchTable(const session::Principal& principal, const std::string& project_id,
                  const std::string& dataset_id, const std::string& table,
                  const std::string& update_policy, const Parsed<TableRowsRequest>& rows);

 private:
  struct TableLoad {
    engine::push::UpdatePolicy policy = engine::push::UpdatePolicy::kReplace;
    engine::push::PushedRows rows;
  };
  using Loads = std::map<std::string, TableLoad>;

  // The caller's live session, or Error(kNotFound).
  storage::UploadSessionRecord FindSession(const session::Principal& principal,
                                           const std::string& project_id,
                                           const std::string& dataset_id,
                                           const std::string& session_id);
  bool IsExpired(const storage::UploadSessionRecord& session) const;
  // The session's chunks, listed by key and revision in `chunks` (ListUploadChunkKeys), parsed
  // and concatenated in index order per table. Listing them again would cost a walk through every
  // chunk's stored bytes, where SQLite keeps the revision.
  Loads LoadsOf(const std::string& session_id, std::vector<storage::UploadChunk> chunks,
                const engine::push::PushModel& model,
                const std::map<std::string, UploadTableRequest>& tables);
  // Records the end of the session's publish ("" or the error) and drops its chunks.
  void EndSession(const std::string& session_id, const std::string& error);
  bool IsClosed(const std::string& session_id);
  std::optional<PublishProgress> ProgressOfPublish(storage::UploadSessionRecord& session);
  // `session_id` "" for a publish without a session.
  void StartPublish(const std::string& project_id, const std::string& dataset_id,
                    const engine::push::PushModel& model, Loads loads,
                    const std::string& session_id,
                    std::function<void(const std::string&)> notify = {});
  void PublishAndWait(const std::string& project_id, const std::string& dataset_id,
                      const engine::push::PushModel& model, Loads loads);

  storage::MetadataStore& store_;
  object::ObjectService& objects_;
  cube::CubeService& cubes_;
  PushServiceOptions options_;

  std::mutex mutex_;
  std::condition_variable publish_ended_;
  int running_publishes_ = 0;

  ParsedChunkCache parse_ahead_;
};

}  // namespace tessera::service::push
