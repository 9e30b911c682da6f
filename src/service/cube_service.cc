#include "service/cube_service.h"

#include <spdlog/spdlog.h>

#include "core/error.h"
#include "core/ids.h"
#include "core/time.h"
#include "engine/cube_publisher.h"
#include "engine/dataset_snapshot.h"
#include "engine/pushed_dataset.h"
#include "engine/pushed_rows_file.h"
#include "model/object_types.h"
#include "model/semantic.h"
#include "service/project_model.h"

namespace tessera::service {
namespace {

constexpr std::string_view kPublishing = "publishing";
constexpr std::string_view kReady = "ready";
constexpr std::string_view kFailed = "failed";

std::string CanonicalId(const std::string& id, std::string_view what) {
  auto canonical = CanonicalObjectId(id);
  if (!canonical) {
    throw Error(ErrorCode::kInvalidInput,
                std::string(what) + " id '" + id + "' is not a 32-digit hexadecimal object id");
  }
  return *canonical;
}

// Canonical ids only, so they are safe in file names.
CubeService::CubeKey KeyOf(const std::string& project_id, const std::string& cube_id) {
  return {CanonicalId(project_id, "project"), CanonicalId(cube_id, "cube")};
}

std::filesystem::path RelativeSnapshotFile(const CubeService::CubeKey& key) {
  return std::filesystem::path("cubes") / key.project_id / (key.cube_id + ".tsnap");
}

CubeState StateOf(const std::string& name) {
  if (name == kPublishing) return CubeState::kPublishing;
  if (name == kReady) return CubeState::kReady;
  if (name == kFailed) return CubeState::kFailed;
  return CubeState::kNotPublished;
}

CubeStatus StatusOf(const storage::CubeSnapshotRecord& record) {
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

std::string MessageOf(const std::exception_ptr& failure) {
  try {
    std::rethrow_exception(failure);
  } catch (const Error& error) {
    return std::string(error.message());
  } catch (const std::exception& error) {
    return error.what();
  } catch (...) {
    return "unknown error";
  }
}

}  // namespace

std::string_view CubeStateName(CubeState state) {
  switch (state) {
    case CubeState::kNotPublished:
      return "not_published";
    case CubeState::kPublishing:
      return kPublishing;
    case CubeState::kReady:
      return kReady;
    case CubeState::kFailed:
      return kFailed;
  }
  return "not_published";
}

CubeService::CubeService(storage::MetadataStore& store, WarehouseRegistry& warehouses,
                         CubeServiceOptions options)
    : store_(store), warehouses_(warehouses), options_(std::move(options)) {}

CubeService::~CubeService() {
  is_stopping_ = true;  // cancels the warehouse queries of running publishes
  std::vector<std::thread> workers;
  {
    std::lock_guard lock(mutex_);
    workers = std::move(queue_workers_);
    publish_ended_.notify_all();
    for (auto& [key, entry] : entries_) {
      if (entry->worker.joinable()) workers.push_back(std::move(entry->worker));
    }
  }
  for (auto& worker : workers) worker.join();
}

std::filesystem::path CubeService::PushedRowsPath(const std::string& project_id,
                                                  const std::string& cube_id) const {
  const CubeKey key = KeyOf(project_id, cube_id);
  return options_.data_dir / "cubes" / key.project_id / (key.cube_id + ".rows");
}

std::filesystem::path CubeService::SnapshotPath(const std::string& project_id,
                                                const std::string& cube_id) const {
  return options_.data_dir / RelativeSnapshotFile(KeyOf(project_id, cube_id));
}

CubeService::Entry& CubeService::EntryFor(const std::string& key) {
  auto& entry = entries_[key];
  if (!entry) entry = std::make_unique<Entry>();
  return *entry;
}

void CubeService::Publish(const std::string& project_id, const std::string& cube_id) {
  const CubeKey key = KeyOf(project_id, cube_id);
  bool is_cube = false;
  store_.Read([&](storage::MetadataTransaction& tx) {
    auto object = tx.FindObject(key.project_id, key.cube_id);
    is_cube =
        object && object->type == model::kTypeReportDefinition &&
        (object->subtype == model::kSubtypeOlapCube || object->subtype == model::kSubtypeSuperCube);
  });
  if (!is_cube) {
    throw Error(ErrorCode::kNotFound,
                "Cube '" + key.cube_id + "' not found in project '" + key.project_id + "'");
  }
  StartPublish(key.project_id, key.cube_id, {});
}

bool CubeService::PublishWith(const std::string& project_id, const std::string& cube_id,
                              CustomPublish job) {
  const CubeKey key = KeyOf(project_id, cube_id);
  return StartPublish(key.project_id, key.cube_id, std::move(job));
}

bool CubeService::StartPublish(const std::string& project_id, const std::string& cube_id,
                               CustomPublish job) {
  const CubeKey key{project_id, cube_id};
  std::lock_guard lock(mutex_);
  Entry& entry = EntryFor(key.text());
  if (entry.is_publishing) return false;             // a plain Publish joins the running one
  if (entry.worker.joinable()) entry.worker.join();  // ended: it only had to exit
  entry.is_publishing = true;
  entry.is_queued = false;
  try {
    entry.worker = std::thread([this, key, job = std::move(job)]() mutable {
      RunPublish(key.project_id, key.cube_id, std::move(job));
    });
  } catch (...) {
    entry.is_publishing = false;
    throw;
  }
  return true;
}

void CubeService::PublishInBackground(const std::string& project_id,
                                      std::vector<std::string> cube_ids) {
  if (cube_ids.empty()) return;
  std::vector<CubeKey> keys;
  for (const auto& cube_id : cube_ids) keys.push_back(KeyOf(project_id, cube_id));
  std::lock_guard lock(mutex_);
  for (const auto& key : keys) EntryFor(key.text()).is_queued = true;
  queue_workers_.emplace_back([this, keys = std::move(keys)] { PublishQueue(keys); });
}

void CubeService::PublishQueue(const std::vector<CubeKey>& keys) {
  for (size_t i = 0; i < keys.size(); ++i) {
    const CubeKey& key = keys[i];
    if (!is_stopping_) PublishAndLog(key, fmt::format("{}/{}", i + 1, keys.size()));
    std::lock_guard lock(mutex_);
    EntryFor(key.text()).is_queued = false;
    publish_ended_.notify_all();
  }
}

void CubeService::PublishAndLog(const CubeKey& key, const std::string& position) {
  std::string name = key.cube_id;
  try {
    store_.Read([&](storage::MetadataTransaction& tx) {
      if (auto object = tx.FindObject(key.project_id, key.cube_id)) name = object->name;
    });
    spdlog::info("publishing cube {} '{}'", position, name);
    Publish(key.project_id, key.cube_id);
    WaitForPublish(key.project_id, key.cube_id);
    const CubeStatus status = Status(key.project_id, key.cube_id);
    if (status.state == CubeState::kReady) {
      spdlog::info("cube {} '{}' published: {} rows in {} ms", position, name, status.rows,
                   status.last_publish_duration_ms);
    }
  } catch (const Error& e) {
    spdlog::warn("cube {} '{}' cannot be published: {}", position, name, e.message());
  }
}

bool CubeService::WaitForFirstPublish(Entry& entry) {
  std::unique_lock lock(mutex_);
  if (entry.dataset || !(entry.is_publishing || entry.is_queued)) return false;
  publish_ended_.wait(lock, [&] {
    return is_stopping_ || entry.dataset || !(entry.is_publishing || entry.is_queued);
  });
  return true;
}

void CubeService::WaitForPublish(const std::string& project_id, const std::string& cube_id) {
  const CubeKey key = KeyOf(project_id, cube_id);
  std::unique_lock lock(mutex_);
  auto it = entries_.find(key.text());
  if (it == entries_.end()) return;
  Entry& entry = *it->second;
  publish_ended_.wait(lock, [&] { return !entry.is_publishing; });
}

std::shared_ptr<const engine::Dataset> CubeService::BuildFromSource(const std::string& project_id,
                                                                    const std::string& cube_id) {
  std::optional<model::ObjectRecord> object;
  store_.Read(
      [&](storage::MetadataTransaction& tx) { object = tx.FindObject(project_id, cube_id); });
  if (object && model::IsPushedDataset(*object)) {
    engine::PushModel push = engine::PushModelFromJson(object->definition.at("pushModel"));
    return engine::BuildPushedDataset(
        cube_id, push, engine::ReadPushedRows(push, PushedRowsPath(project_id, cube_id)));
  }
  model::SemanticModel model = LoadSemanticModel(store_, project_id);
  const model::Cube& cube = model.cube(cube_id);
  engine::Warehouse& warehouse = warehouses_.Get(LoadWarehouseName(store_, project_id));
  engine::QueryOptions query;
  query.timeout = options_.query_timeout;
  query.cancel = &is_stopping_;
  return engine::PublishCubeDataset(warehouse, model, cube, query);
}

void CubeService::WriteSnapshot(const std::string& project_id, const std::string& cube_id,
                                const engine::Dataset& dataset) {
  const std::filesystem::path path = SnapshotPath(project_id, cube_id);
  std::error_code error;
  std::filesystem::create_directories(path.parent_path(), error);
  if (error) {
    throw Error(ErrorCode::kInternal, "cannot create the cube snapshot directory " +
                                          path.parent_path().string() + ": " + error.message());
  }
  engine::WriteDatasetSnapshot(dataset, path);
}

void CubeService::RunPublish(std::string project_id, std::string cube_id, CustomPublish job) {
  const CubeKey key{project_id, cube_id};
  const auto started = std::chrono::steady_clock::now();
  std::optional<storage::CubeSnapshotRecord> record;
  std::shared_ptr<const engine::Dataset> dataset;
  std::string error;
  try {
    record = FindRecord(project_id, cube_id);
    if (!record) {
      record.emplace();
      record->project_id = project_id;
      record->cube_id = cube_id;
      record->created = Now();
    }
    record->state = kPublishing;
    record->updated = Now();
    PutRecord(*record);
    dataset = job.build ? job.build() : BuildFromSource(project_id, cube_id);
    WriteSnapshot(project_id, cube_id, *dataset);
    if (job.commit) job.commit();
  } catch (...) {
    dataset.reset();
    error = MessageOf(std::current_exception());
    spdlog::warn("publishing cube {} of project {} failed: {}", cube_id, project_id, error);
  }
  const int64_t duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                  std::chrono::steady_clock::now() - started)
                                  .count();

  // The outcome, recorded for every node. The previous snapshot's fields stay when it failed.
  if (record) {
    record->last_publish_duration_ms = duration_ms;
    record->updated = Now();
    if (dataset) {
      record->state = kReady;
      record->error_message.clear();
      record->snapshot_file = RelativeSnapshotFile(key).generic_string();
      record->rows = static_cast<int64_t>(dataset->row_count());
      record->memory_bytes = static_cast<int64_t>(dataset->MemoryBytes());
      record->raw_bytes = static_cast<int64_t>(dataset->RawBytes());
      record->published = Now();
    } else {
      record->state = kFailed;
      record->error_message = error;
    }
    try {
      PutRecord(*record);
    } catch (const Error& e) {
      // This node still serves what it published; the stored state catches up on the next one.
      spdlog::error("could not record the publish of cube {}: {}", cube_id, e.message());
    }
  }

  CubeStatus status;
  if (record) status = StatusOf(*record);
  {
    std::lock_guard lock(mutex_);
    Entry& entry = EntryFor(key.text());
    if (!record) {  // the storage service could not be read: only this node's knowledge is left
      status = entry.last_status.value_or(CubeStatus{});
      status.state = CubeState::kFailed;
      status.error_message = error;
      status.last_publish_duration_ms = duration_ms;
    }
    if (dataset) Install(entry, std::move(dataset));
    entry.last_status = status;
  }
  if (job.finished) job.finished(error);  // unlocked: it may take its owner's locks
  std::lock_guard lock(mutex_);
  EntryFor(key.text()).is_publishing = false;
  publish_ended_.notify_all();
}

void CubeService::Install(Entry& entry, std::shared_ptr<const engine::Dataset> dataset) {
  const size_t bytes = dataset->MemoryBytes();
  loaded_bytes_ = loaded_bytes_ - entry.dataset_bytes + bytes;
  entry.dataset = std::move(dataset);
  entry.dataset_bytes = bytes;
  ++entry.generation;
}

CubeStatus CubeService::Status(const std::string& project_id, const std::string& cube_id) {
  const CubeKey key = KeyOf(project_id, cube_id);
  std::optional<storage::CubeSnapshotRecord> record;
  std::optional<Error> storage_error;
  try {
    record = FindRecord(key.project_id, key.cube_id);
  } catch (const Error& e) {
    if (e.code() != ErrorCode::kStorageUnavailable) throw;
    storage_error = e;
  }
  std::lock_guard lock(mutex_);
  auto it = entries_.find(key.text());
  const Entry* entry = it == entries_.end() ? nullptr : it->second.get();
  CubeStatus status;
  if (record) {
    status = StatusOf(*record);
  } else if (storage_error) {
    if (!entry || !entry->last_status) throw *storage_error;
    status = *entry->last_status;
  }
  if (entry && (entry->is_publishing || entry->is_queued)) status.state = CubeState::kPublishing;
  if (entry && entry->dataset) {
    status.is_loaded = true;
    status.memory_bytes = entry->dataset_bytes;
    status.rows = entry->dataset->row_count();
    status.raw_bytes = entry->dataset->RawBytes();
  }
  return status;
}

std::shared_ptr<const engine::Dataset> CubeService::Get(const std::string& project_id,
                                                        const std::string& cube_id) {
  const CubeKey key = KeyOf(project_id, cube_id);
  Entry* entry = nullptr;
  {
    std::lock_guard lock(mutex_);
    entry = &EntryFor(key.text());
    if (entry->dataset) return entry->dataset;
  }
  std::lock_guard load(entry->load_mutex);
  uint64_t generation = 0;
  {
    std::lock_guard lock(mutex_);
    if (entry->dataset) return entry->dataset;  // another caller loaded it meanwhile
    generation = entry->generation;
  }
  auto record = FindRecord(key.project_id, key.cube_id);
  if (!record || record->snapshot_file.empty()) {
    if (!WaitForFirstPublish(*entry)) return nullptr;
    std::lock_guard lock(mutex_);
    return entry->dataset;
  }
  std::shared_ptr<const engine::Dataset> dataset;
  try {
    dataset = engine::ReadDatasetSnapshot(options_.data_dir / record->snapshot_file);
  } catch (const Error& e) {
    throw Error(ErrorCode::kInternal, "Cube '" + key.cube_id +
                                          "' cannot be loaded from its snapshot; publish it "
                                          "again. " +
                                          std::string(e.message()));
  }
  std::lock_guard lock(mutex_);
  // A publish that ended while the snapshot loaded installed a newer dataset: serve that one.
  if (entry->generation == generation) Install(*entry, std::move(dataset));
  return entry->dataset;
}

size_t CubeService::LoadedBytes() const {
  std::lock_guard lock(mutex_);
  return loaded_bytes_;
}

std::optional<storage::CubeSnapshotRecord> CubeService::FindRecord(const std::string& project_id,
                                                                   const std::string& cube_id) {
  std::optional<storage::CubeSnapshotRecord> record;
  store_.Read(
      [&](storage::MetadataTransaction& tx) { record = tx.FindCubeSnapshot(project_id, cube_id); });
  return record;
}

void CubeService::PutRecord(const storage::CubeSnapshotRecord& record) {
  store_.Write([&](storage::MetadataTransaction& tx) { tx.PutCubeSnapshot(record); });
}

}  // namespace tessera::service
