#include "service/push/push_service.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <future>
#include <thread>

#include <spdlog/spdlog.h>

#include "core/error.h"
#include "core/ids.h"
#include "core/strings.h"
#include "engine/push/pushed_dataset.h"
#include "engine/push/pushed_rows_file.h"
#include "model/object_types.h"
#include "model/rights.h"
#include "model/semantic.h"
#include "model/well_known.h"

namespace tessera::service::push {

namespace {

constexpr int kStatusNotPublished = 0;
constexpr int kStatusReady = 1;
constexpr int kStatusPublishing = 6;
constexpr char kMadeByModels[] = "models";
constexpr char kMadeBySingleRequest[] = "single";

// A pushed dataset and its model, with the caller's right to read it, or to upload to it.
struct PushedDataset {
  model::ObjectRecord record;
  engine::push::PushModel model;
};

PushedDataset LoadPushed(object::ObjectService& objects, const session::Principal& principal,
                         const std::string& project_id, const std::string& raw_id, int rights) {
  const std::string id = RequireObjectId(raw_id, "datasetId");
  object::ObjectView view;
  try {
    view = objects.Get(principal, project_id, id, model::kTypeReportDefinition);
  } catch (const Error& error) {
    if (error.code() != ErrorCode::kNotFound) throw;
    throw Error(ErrorCode::kNotFound,
                "Dataset '" + id + "' was not found in project '" + project_id + "'");
  }
  if (!model::IsPushedDataset(view.record)) {
    throw Error(ErrorCode::kNotSupported, "'" + view.record.name + "' (" + id +
                                              ") is not a pushed dataset: only datasets created "
                                              "through the push API take uploads");
  }
  session::RequireRights(principal, view.record, rights);
  return {view.record, engine::push::PushModelFromJson(view.record.definition.at("pushModel"))};
}

const engine::push::PushTable& TableOf(const engine::push::PushModel& model,
                                       const std::string& name) {
  const engine::push::PushTable* table = model.FindTable(name);
  if (!table)
    ThrowInvalidInput("Table '" + name + "' is not a table of dataset '" + model.name + "'");
  return *table;
}

std::vector<std::string> ColumnNames(const engine::push::PushTable& table) {
  std::vector<std::string> names;
  for (const auto& column : table.columns) names.push_back(column.name);
  return names;
}

// Records (push_service.h) as row arrays in `headers` order, for ParseChunk.
std::string RowsOfRecords(const Json& records, const std::vector<std::string>& headers) {
  Json rows = Json::array();
  for (const Json& record : records) {
    if (record.is_array()) {
      rows.push_back(record);
      continue;
    }
    Json row = Json::array();
    for (const auto& header : headers) {
      auto cell = record.find(header);
      row.push_back(cell == record.end() ? Json() : *cell);
    }
    rows.push_back(std::move(row));
  }
  return rows.dump();
}

engine::push::PushedRows Concatenated(std::map<int64_t, engine::push::PushedRows>& chunks) {
  engine::push::PushedRows rows;
  size_t total = 0;
  for (const auto& [index, chunk] : chunks) total += chunk.size();
  rows.reserve(total);
  for (auto& [index, chunk] : chunks) {
    std::move(chunk.begin(), chunk.end(), std::back_inserter(rows));
    engine::push::PushedRows().swap(chunk);
  }
  return rows;
}

// parse(i) of every chunk i, on this thread and one more: a publish reads every chunk of its
// session before it answers. The fault of the first chunk that fails, in `chunks` order, is
// thrown, as if they were parsed one after the other.
template <class Parse>
std::vector<engine::push::PushedRows> ParsedInParallel(
    const std::vector<storage::UploadChunk>& chunks, Parse parse) {
  std::vector<engine::push::PushedRows> rows(chunks.size());
  std::vector<std::exception_ptr> faults(chunks.size());
  auto parse_every_other = [&](size_t first) {
    for (size_t i = first; i < chunks.size(); i += 2) {
      try {
        rows[i] = parse(i);
      } catch (...) {
        faults[i] = std::current_exception();
      }
    }
  };
  std::thread helper;
  if (chunks.size() > 1) helper = std::thread(parse_every_other, 1);
  parse_every_other(0);
  if (helper.joinable()) helper.join();
  for (const auto& fault : faults) {
    if (fault) std::rethrow_exception(fault);
  }
  return rows;
}

std::string FolderFor(object::ObjectService& objects, const session::Principal& principal,
                      const std::string& project_id, const engine::push::PushModel& model) {
  if (model.folder_id.empty()) {
    return objects.PredefinedFolderId(principal, project_id, model::kFolderTypeMyReports);
  }
  return RequireObjectId(model.folder_id, "folderId");
}

// The dataset object of `model`, new or replacing one of the same name.
object::SavedObject SaveDataset(object::ObjectService& objects, const session::Principal& principal,
                                const std::string& project_id, const engine::push::PushModel& model,
                                std::string_view made_by) {
  return objects.SaveInFolder(
      principal, project_id, FolderFor(objects, principal, project_id, model),
      {model::kTypeReportDefinition,
       model::kSubtypeSuperCube,
       model.name,
       model.description,
       {{"pushModel", engine::push::PushModelToJson(model)}, {"madeBy", std::string(made_by)}}});
}

}  // namespace

namespace {

// The states of an upload session's record.
constexpr char kSessionOpen[] = "open";
constexpr char kSessionPublishing[] = "publishing";
constexpr char kSessionPublished[] = "published";
constexpr char kSessionFailed[] = "failed";

// How long a publish may take to begin (to record its cube publishing) before a session that
// says it is publishing is taken to have lost the node that ran it.
constexpr auto kPublishStartGrace = std::chrono::seconds(60);
// Chunks from this size are checked beside their write to the store (CheckedBesideTheWrite).
constexpr size_t kCheckAsideBytes = 1 << 20;

Json UploadTableToJson(const UploadTableRequest& table) {
  return {{"name", table.name},
          {"updatePolicy", std::string(engine::push::UpdatePolicyName(table.policy))},
          {"columnHeaders", table.column_headers},
          {"columnOrientation", table.column_orientation}};
}

// What a session keeps of its tables, by name.
std::map<std::string, UploadTableRequest> UploadTablesOf(
    const storage::UploadSessionRecord& session) {
  std::map<std::string, UploadTableRequest> tables;
  for (const auto& json : session.tables) {
    UploadTableRequest table;
    table.name = json.at("name").get<std::string>();
    table.policy = engine::push::ParseUpdatePolicy(json.at("updatePolicy").get<std::string>());
    table.column_headers = json.at("columnHeaders").get<std::vector<std::string>>();
    table.column_orientation = json.at("columnOrientation").get<bool>();
    tables.emplace(table.name, std::move(table));
  }
  return tables;
}

[[noreturn]] void SessionNotFound(const std::string& session_id, const std::string& dataset_id) {
  throw Error(ErrorCode::kNotFound, "Upload session '" + session_id + "' of dataset '" +
                                        dataset_id +
                                        "' was not found; it may have expired or been closed");
}

// A publish hands the session's rows over when it starts, so a session whose publish failed
// holds none: publishing it again would merge nothing (and a replace would empty the table).
void RefuseIfFailed(const storage::UploadSessionRecord& session) {
  if (session.state != kSessionFailed) return;
  ThrowInvalidInput(
      "Upload session '" + session.id +
      "' failed to publish and no longer holds its rows; open a new upload session and "
      "send them again");
}

// `refusal` continues "Upload session '<id>' ".
void RefuseIfPublished(const storage::UploadSessionRecord& session, std::string_view refusal) {
  if (session.state == kSessionPublishing || session.state == kSessionPublished) {
    ThrowInvalidInput("Upload session '" + session.id + "' " + std::string(refusal));
  }
}

bool IsPublishedOrFailed(const storage::UploadSessionRecord& session) {
  return session.state == kSessionPublishing || session.state == kSessionPublished ||
         session.state == kSessionFailed;
}

// CheckChunk of `rows_json`, which must outlive the future. A large chunk is checked on a thread
// of its own, so that its check and its write to the store take the time of the longer one
// rather than of both; a small one is checked when the future is first read.
std::shared_future<void> CheckedBesideTheWrite(const engine::push::PushTable& table,
                                               const UploadTableRequest& upload,
                                               std::string_view rows_json) {
  auto check = [&table, &upload, rows_json] {
    engine::push::CheckChunk(table, upload.column_headers, upload.column_orientation, rows_json);
  };
  const auto launch =
      rows_json.size() >= kCheckAsideBytes ? std::launch::async : std::launch::deferred;
  return std::async(launch, check).share();
}

ChunkShape ShapeOf(const engine::push::PushTable& table, const UploadTableRequest& upload) {
  return {table, upload.column_headers, upload.column_orientation};
}

// The bytes of the chunk listed as `key`; a publishing session's chunks do not change, so a chunk
// gone is the session closed meanwhile.
std::string ReadChunk(storage::MetadataTransaction& tx, const std::string& session_id,
                      const storage::UploadChunk& key) {
  std::optional<storage::UploadChunk> chunk = tx.FindUploadChunk(session_id, key.table, key.index);
  if (!chunk) {
    throw Error(ErrorCode::kNotFound,
                "Upload session '" + session_id + "' was closed before its publish began: chunk " +
                    std::to_string(key.index) + " of table '" + key.table + "' is gone");
  }
  return std::move(chunk->data);
}

// Every chunk of every table numbered 1..n without a gap.
void RequireNoGaps(const std::vector<storage::UploadChunk>& keys) {
  std::map<std::string, int64_t> expected;
  for (const auto& key : keys) {
    int64_t& next = expected.try_emplace(key.table, 1).first->second;
    if (key.index != next) {
      ThrowInvalidInput("Table '" + key.table + "' has no chunk " + std::to_string(next) +
                        " but has chunk " + std::to_string(key.index) +
                        ": chunks are numbered from 1 without gaps");
    }
    ++next;
  }
}

}  // namespace

PushService::PushService(storage::MetadataStore& store, object::ObjectService& objects,
                         cube::CubeService& cubes, PushServiceOptions options)
    : store_(store),
      objects_(objects),
      cubes_(cubes),
      options_(options),
      parse_ahead_(options.parse_ahead_bytes, options.parse_ahead_age) {}

PushService::~PushService() {
  // Running publishes report back to this object: let them end first.
  std::unique_lock lock(mutex_);
  publish_ended_.wait(lock, [&] { return running_publishes_ == 0; });
}

PushedDatasetRef PushService::CreateModel(const session::Principal& principal,
                                          const std::string& project_id,
                                          const engine::push::PushModel& model) {
  object::SavedObject saved = SaveDataset(objects_, principal, project_id, model, kMadeByModels);
  // The new model starts without rows.
  if (saved.replaced) cubes_.DropPushedRows(project_id, saved.view.record.id);
  return {saved.view.record.id, saved.view.record.name, {}};
}

std::string PushService::OpenSession(const session::Principal& principal,
                                     const std::string& project_id, const std::string& dataset_id,
                                     const Parsed<OpenSessionRequest>& request) {
  PushedDataset dataset =
      LoadPushed(objects_, principal, project_id, dataset_id, model::kRightWrite);
  storage::UploadSessionRecord session;
  session.id = NewTicketId();
  session.project_id = project_id;
  session.dataset_id = dataset.record.id;
  session.user_id = principal.user_id;
  session.state = kSessionOpen;
  session.tables = Json::array();
  for (const UploadTableRequest& upload : request.value().tables) {
    const engine::push::PushTable& table = TableOf(dataset.model, upload.name);
    // An empty chunk checks the headers.
    engine::push::CheckChunk(table, upload.column_headers, upload.column_orientation, "[]");
    session.tables.push_back(UploadTableToJson(upload));
  }
  const Timestamp now = Now();
  session.last_used = now;
  std::vector<std::string> superseded;
  store_.Write([&](storage::MetadataTransaction& tx) {
    superseded.clear();
    tx.DeleteUploadSessionsUnusedSince(now - options_.session_ttl);
    for (const auto& other : tx.ListUploadSessions(project_id, session.dataset_id)) {
      if (other.state == kSessionOpen || other.state == kSessionFailed) {
        tx.DeleteUploadSession(other.id);
        superseded.push_back(other.id);
      }
    }
    tx.PutUploadSession(session);
  });
  for (const auto& id : superseded) parse_ahead_.Forget(id);
  return session.id;
}

storage::UploadSessionRecord PushService::FindSession(const session::Principal& principal,
                                                      const std::string& project_id,
                                                      const std::string& dataset_id,
                                                      const std::string& session_id) {
  const std::string dataset = RequireObjectId(dataset_id, "datasetId");
  std::optional<storage::UploadSessionRecord> found;
  store_.Read([&](storage::MetadataTransaction& tx) { found = tx.FindUploadSession(session_id); });
  if (!found || found->project_id != project_id || found->dataset_id != dataset ||
      found->user_id != principal.user_id || IsExpired(*found)) {
    SessionNotFound(session_id, dataset);
  }
  return std::move(*found);
}

bool PushService::IsExpired(const storage::UploadSessionRecord& session) const {
  return session.state != kSessionPublishing && Now() - session.last_used > options_.session_ttl;
}

void PushService::PutChunk(const session::Principal& principal, const std::string& project_id,
                           const std::string& dataset_id, const std::string& session_id,
                           Parsed<ChunkRequest> parsed) {
  storage::UploadSessionRecord session = FindSession(principal, project_id, dataset_id, session_id);
  ChunkRequest& chunk = parsed.value();
  PushedDataset dataset =
      LoadPushed(objects_, principal, project_id, dataset_id, model::kRightWrite);
  const engine::push::PushTable& table = TableOf(dataset.model, chunk.table_name);
  const auto tables = UploadTablesOf(session);
  auto upload = tables.find(chunk.table_name);
  if (upload == tables.end()) {
    ThrowInvalidInput("body.tableName: table '" + chunk.table_name +
                      "' is not part of this upload session");
  }
  storage::UploadChunk stored{chunk.table_name, chunk.index, std::move(chunk.rows_json),
                              NewTicketId()};
  const std::shared_future<void> checked =
      CheckedBesideTheWrite(table, upload->second, stored.data);
  // A chunk's fault is answered before anything the session's state refuses; either undoes the
  // write.
  store_.Write([&](storage::MetadataTransaction& tx) {
    auto current = tx.FindUploadSession(session.id, /*for_update=*/true);
    if (!current) {
      checked.get();
      SessionNotFound(session.id, session.dataset_id);
    }
    if (IsPublishedOrFailed(*current)) checked.get();
    RefuseIfPublished(*current, "is published or publishing; open a new session to upload more");
    RefuseIfFailed(*current);
    tx.PutUploadChunk(session.id, stored);
    current->last_used = Now();
    tx.PutUploadSession(*current);
    checked.get();
  });
  parse_ahead_.Offer({session.id, stored.table, stored.index}, std::move(stored.revision),
                     std::move(stored.data), ShapeOf(table, upload->second));
}

void PushService::Publish(const session::Principal& principal, const std::string& project_id,
                          const std::string& dataset_id, const std::string& session_id) {
  storage::UploadSessionRecord session = FindSession(principal, project_id, dataset_id, session_id);
  PushedDataset dataset =
      LoadPushed(objects_, principal, project_id, dataset_id, model::kRightWrite);
  const auto tables = UploadTablesOf(session);
  for (const auto& [name, table] : tables) TableOf(dataset.model, name);  // it may be replaced
  // The chunks as the session is marked publishing: from then on they do not change.
  std::vector<storage::UploadChunk> chunks;
  store_.Write([&](storage::MetadataTransaction& tx) {
    auto current = tx.FindUploadSession(session.id, /*for_update=*/true);
    if (!current) SessionNotFound(session.id, session.dataset_id);
    RefuseIfPublished(*current, "is already published or publishing");
    RefuseIfFailed(*current);
    chunks = tx.ListUploadChunkKeys(session.id);
    RequireNoGaps(chunks);
    current->state = kSessionPublishing;
    current->error.clear();
    current->publish_started = Now();
    current->last_used = current->publish_started;
    tx.PutUploadSession(*current);
  });
  try {
    StartPublish(project_id, dataset.record.id, dataset.model,
                 LoadsOf(session.id, std::move(chunks), dataset.model, tables), session.id);
  } catch (const std::exception& e) {
    // Its chunks are handed over or unreadable: a new session is needed.
    EndSession(session.id, std::string("the publish could not start: ") + e.what() +
                               "; open a new upload session");
    throw;
  }
}

PushService::Loads PushService::LoadsOf(const std::string& session_id,
                                        std::vector<storage::UploadChunk> chunks,
                                        const engine::push::PushModel& model,
                                        const std::map<std::string, UploadTableRequest>& tables) {
  // The chunks this node holds are taken by their revision, parsed ahead or as bytes; only the
  // others are read from the store.
  std::vector<TakenChunk> taken(chunks.size());
  for (size_t i = 0; i < chunks.size(); ++i) {
    const storage::UploadChunk& chunk = chunks[i];
    if (auto held =
            parse_ahead_.Take({session_id, chunk.table, chunk.index}, chunk.revision,
                              ShapeOf(TableOf(model, chunk.table), tables.at(chunk.table)))) {
      taken[i] = std::move(*held);
    }
  }
  store_.Read([&](storage::MetadataTransaction& tx) {
    for (size_t i = 0; i < chunks.size(); ++i) {
      if (!taken[i].rows && !taken[i].bytes) chunks[i].data = ReadChunk(tx, session_id, chunks[i]);
    }
  });
  std::vector<engine::push::PushedRows> rows = ParsedInParallel(chunks, [&](size_t i) {
    if (taken[i].rows) return std::move(*taken[i].rows);
    storage::UploadChunk& chunk = chunks[i];
    const ChunkShape shape = ShapeOf(TableOf(model, chunk.table), tables.at(chunk.table));
    engine::push::PushedRows chunk_rows =
        engine::push::ParseChunk(shape.table, shape.column_headers, shape.column_orientation,
                                 taken[i].bytes ? *taken[i].bytes : chunk.data);
    taken[i].bytes.reset();
    std::string().swap(chunk.data);
    return chunk_rows;
  });
  std::map<std::string, std::map<int64_t, engine::push::PushedRows>> parsed;
  for (size_t i = 0; i < chunks.size(); ++i) {
    parsed[chunks[i].table][chunks[i].index] = std::move(rows[i]);
  }
  Loads loads;
  for (const auto& [name, table] : tables) {
    loads[name] = {table.policy, Concatenated(parsed[name])};
  }
  return loads;
}

void PushService::EndSession(const std::string& session_id, const std::string& error) {
  parse_ahead_.Forget(session_id);
  try {
    store_.Write([&](storage::MetadataTransaction& tx) {
      auto current = tx.FindUploadSession(session_id, /*for_update=*/true);
      tx.DeleteUploadChunks(session_id);
      if (!current) return;  // closed meanwhile
      current->state = error.empty() ? kSessionPublished : kSessionFailed;
      current->error = error;
      current->last_used = Now();
      tx.PutUploadSession(*current);
    });
  } catch (const Error& e) {
    spdlog::warn("upload session {}: could not record the end of its publish: {}", session_id,
                 e.message());
  }
}

bool PushService::IsClosed(const std::string& session_id) {
  bool closed = false;
  store_.Read([&](storage::MetadataTransaction& tx) {
    closed = !tx.FindUploadSession(session_id).has_value();
  });
  return closed;
}

void PushService::StartPublish(const std::string& project_id, const std::string& dataset_id,
                               const engine::push::PushModel& model, Loads loads,
                               const std::string& session_id,
                               std::function<void(const std::string&)> notify) {
  auto merged = std::make_shared<engine::push::PushedTables>();
  auto pending = std::make_shared<Loads>(std::move(loads));
  // The merged rows go to disk while the dataset is built from them.
  auto staged = std::make_shared<std::unique_ptr<engine::push::StagedPushedRows>>();
  cube::CustomPublish job;
  job.build = [this, model, dataset_id, merged, pending, staged,
               session_id](const std::filesystem::path& rows) {
    *merged = engine::push::ReadPushedRows(model, rows);
    for (auto& [name, load] : *pending) {
      (*merged)[name] = engine::push::ApplyUpdatePolicy(
          load.policy, std::move((*merged)[name]), std::move(load.rows),
          engine::push::AttributeColumnsOf(model, name));
    }
    pending->clear();
    *staged = std::make_unique<engine::push::StagedPushedRows>(model, merged, rows.parent_path());
    auto dataset = engine::push::BuildPushedDataset(dataset_id, model, *merged);
    if (!session_id.empty() && IsClosed(session_id)) {
      throw Error(ErrorCode::kInvalidInput,
                  "the upload session was closed before its publish ended");
    }
    return dataset;
  };
  job.commit = [model, merged, staged](const std::filesystem::path& rows) {
    if (*staged) {
      (*staged)->Install(rows);
      staged->reset();
    } else {
      engine::push::WritePushedRows(model, *merged, rows);
    }
  };
  // The rows are freed once the publish is recorded and answered: a million rows take a while.
  job.finished = [this, session_id, notify, merged](const std::string& error) {
    if (notify) notify(error);
    if (!session_id.empty()) EndSession(session_id, error);
    merged->clear();
    std::lock_guard lock(mutex_);
    --running_publishes_;
    publish_ended_.notify_all();  // the last use of this object
  };
  {
    std::lock_guard lock(mutex_);
    ++running_publishes_;
  }
  try {
    // A refresh of the dataset may be running: this publish starts once it ends.
    while (!cubes_.PublishWith(project_id, dataset_id, job)) {
      cubes_.WaitForPublish(project_id, dataset_id);
    }
  } catch (...) {
    std::lock_guard lock(mutex_);
    --running_publishes_;
    publish_ended_.notify_all();
    throw;
  }
}

PublishProgress PushService::Progress(const session::Principal& principal,
                                      const std::string& project_id, const std::string& dataset_id,
                                      const std::string& session_id) {
  storage::UploadSessionRecord session = FindSession(principal, project_id, dataset_id, session_id);
  if (session.state == kSessionOpen) return {session.id, kStatusNotPublished, "not published"};
  if (session.state == kSessionPublished) return {session.id, kStatusReady, "result ready"};
  if (session.state == kSessionPublishing) {
    std::optional<PublishProgress> progress = ProgressOfPublish(session);
    if (progress) return *progress;
  }
  throw Error(ErrorCode::kInternal,
              "The publish of upload session '" + session.id +
                  "' failed; the previous data is still served: " + session.error);
}

// A session marked publishing, from its cube's record (shared by every node): the node that runs
// the publish records the session's end only after the cube's, and may have died before either.
// Null when the publish failed (`session.error` then says why).
std::optional<PublishProgress> PushService::ProgressOfPublish(
    storage::UploadSessionRecord& session) {
  std::optional<storage::CubeSnapshotRecord> cube;
  store_.Read([&](storage::MetadataTransaction& tx) {
    cube = tx.FindCubeSnapshot(session.project_id, session.dataset_id);
  });
  const bool began = cube && cube->updated >= session.publish_started;
  if (cube && cube->state == "publishing")
    return PublishProgress{session.id, kStatusPublishing, "publishing"};
  if (began && cube->state == "ready")
    return PublishProgress{session.id, kStatusReady, "result ready"};
  if (began && cube->state == "failed") {
    session.error = cube->error_message;
    return std::nullopt;
  }
  if (Now() - session.publish_started < kPublishStartGrace) {
    return PublishProgress{session.id, kStatusPublishing, "publishing"};
  }
  session.error = "the node that ran the publish stopped before it began";
  return std::nullopt;
}

void PushService::CloseSession(const session::Principal& principal, const std::string& project_id,
                               const std::string& dataset_id, const std::string& session_id) {
  storage::UploadSessionRecord session = FindSession(principal, project_id, dataset_id, session_id);
  // A publish still running on any node sees the session gone and is not served.
  store_.Write([&](storage::MetadataTransaction& tx) { tx.DeleteUploadSession(session.id); });
  parse_ahead_.Forget(session.id);
}

void PushService::PublishAndWait(const std::string& project_id, const std::string& dataset_id,
                                 const engine::push::PushModel& model, Loads loads) {
  auto outcome = std::make_shared<std::promise<std::string>>();
  std::future<std::string> error = outcome->get_future();
  StartPublish(project_id, dataset_id, model, std::move(loads), /*session_id=*/"",
               [outcome](const std::string& message) { outcome->set_value(message); });
  const std::string message = error.get();
  if (!message.empty()) {
    throw Error(ErrorCode::kInternal,
                "The publish failed; the previous data is still served: " + message);
  }
}

PushedDatasetRef PushService::CreateSingle(const session::Principal& principal,
                                           const std::string& project_id,
                                           const SingleDatasetRequest& request) {
  const engine::push::PushModel& model = request.model;
  const engine::push::PushTable& table = model.tables.front();
  const std::vector<std::string> headers = ColumnNames(table);
  engine::push::PushedRows rows =
      engine::push::ParseChunk(table, headers, false, RowsOfRecords(request.records, headers));

  object::SavedObject saved =
      SaveDataset(objects_, principal, project_id, model, kMadeBySingleRequest);
  const std::string& id = saved.view.record.id;
  Loads loads;
  loads[table.name] = {engine::push::UpdatePolicy::kReplace, std::move(rows)};
  PublishAndWait(project_id, id, model, std::move(loads));
  return {id, saved.view.record.name, {{engine::push::PushedTableId(id, table.name), table.name}}};
}

void PushService::PatchTable(const session::Principal& principal, const std::string& project_id,
                             const std::string& dataset_id, const std::string& table_key,
                             const std::string& update_policy,
                             const Parsed<TableRowsRequest>& parsed) {
  PushedDataset dataset =
      LoadPushed(objects_, principal, project_id, dataset_id, model::kRightWrite);
  if (dataset.record.definition.value("madeBy", "") != kMadeBySingleRequest) {
    throw Error(ErrorCode::kNotSupported,
                "Dataset '" + dataset.record.name +
                    "' was created through /api/datasets/models; update it through upload "
                    "sessions");
  }
  const engine::push::PushTable* table = nullptr;
  for (const auto& candidate : dataset.model.tables) {
    if (candidate.name == table_key ||
        engine::push::PushedTableId(dataset.record.id, candidate.name) == ToUpper(table_key)) {
      table = &candidate;
    }
  }
  if (!table) {
    throw Error(ErrorCode::kNotFound, "Table '" + table_key + "' is not a table of dataset '" +
                                          dataset.record.name + "'");
  }
  const engine::push::UpdatePolicy policy = engine::push::ParseUpdatePolicy(update_policy);
  const TableRowsRequest& rows = parsed.value();
  const std::vector<std::string> headers =
      rows.column_headers.empty() ? ColumnNames(*table) : rows.column_headers;
  Loads loads;
  loads[table->name] = {policy, engine::push::ParseChunk(*table, headers, false,
                                                         RowsOfRecords(rows.records, headers))};
  PublishAndWait(project_id, dataset.record.id, dataset.model, std::move(loads));
}

}  // namespace tessera::service::push
