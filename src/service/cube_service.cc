#include "service/cube_service.h"

#include <spdlog/spdlog.h>

#include <set>

#include "core/error.h"
#include "core/ids.h"
#include "core/private_files.h"
#include "core/time.h"
#include "engine/cube_publisher.h"
#include "engine/dataset_snapshot.h"
#include "engine/push/pushed_dataset.h"
#include "engine/push/pushed_rows_file.h"
#include "model/object_types.h"
#include "model/semantic.h"
#include "service/cube_rollups.h"
#include "service/project_model.h"

namespace tessera::service {
namespace {

constexpr std::string_view kPublishing = "publishing";
constexpr std::string_view kReady = "ready";
constexpr std::string_view kFailed = "failed";

// Canonical ids only, so they are safe in file names.
CubeService::CubeKey KeyOf(const std::string& project_id, const std::string& cube_id) {
  return {RequireObjectId(project_id, "projectId"), RequireObjectId(cube_id, "cubeId")};
}

// Files of a publish are named by its job, so no two publishes ever write the same file:
// cubes/<project id>/<cube id>.<job id>.<extension>.
std::string PublishFile(const CubeService::CubeKey& key, const std::string& job_id,
                        std::string_view extension) {
  return (std::filesystem::path("cubes") / key.project_id /
          (key.cube_id + "." + job_id + "." + std::string(extension)))
      .generic_string();
}

// Where releases before publish jobs kept a pushed dataset's rows.
std::string LegacyRowsFile(const CubeService::CubeKey& key) {
  return (std::filesystem::path("cubes") / key.project_id / (key.cube_id + ".rows"))
      .generic_string();
}

int64_t MillisSince(Timestamp start) {
  return std::max<int64_t>(0, ToUnixMillis(Now()) - ToUnixMillis(start));
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
                         JobRunner& jobs, CubeServiceOptions options)
    : store_(store), warehouses_(warehouses), jobs_(jobs), options_(std::move(options)) {
  if (options_.cubes_dir.empty()) options_.cubes_dir = options_.data_dir / "cubes";
}

CubeService::~CubeService() { Stop(); }

void CubeService::Stop() {
  is_stopping_ = true;  // PublishQueue() starts nothing more
  std::vector<std::thread> workers;
  {
    std::lock_guard lock(mutex_);
    workers = std::move(queue_workers_);
    queue_workers_.clear();
    publish_ended_.notify_all();
    for (auto& [key, entry] : entries_) {
      if (!entry->job_id.empty()) jobs_.Cancel(entry->job_id);  // and its warehouse query
      if (entry->worker.joinable()) workers.push_back(std::move(entry->worker));
    }
  }
  for (auto& worker : workers) worker.join();
}

void CubeService::RegisterJobs() {
  JobKind kind;
  kind.fail = [this](storage::MetadataTransaction& tx, const storage::JobRecord& job,
                     const std::string& reason) { FailPublish(tx, job, reason); };
  jobs_.RegisterKind(kCubePublishJob, std::move(kind));
}

std::filesystem::path CubeService::SnapshotPath(const std::string& project_id,
                                                const std::string& cube_id) {
  const CubeKey key = KeyOf(project_id, cube_id);
  auto record = FindRecord(key.project_id, key.cube_id);
  if (!record || record->snapshot_file.empty()) return {};
  return FileOf(record->snapshot_file);
}

std::filesystem::path CubeService::FileOf(const std::string& recorded) const {
  constexpr std::string_view kRecordedDirectory = "cubes/";
  if (recorded.starts_with(kRecordedDirectory)) {
    return options_.cubes_dir / recorded.substr(kRecordedDirectory.size());
  }
  return options_.data_dir / recorded;
}

std::filesystem::path CubeService::ProjectDirectory(const std::string& project_id) const {
  return options_.cubes_dir / project_id;
}

std::filesystem::path CubeService::RowsPathOf(
    const CubeKey& key, const std::optional<storage::CubeSnapshotRecord>& record) const {
  if (record && !record->rows_file.empty()) return FileOf(record->rows_file);
  return FileOf(LegacyRowsFile(key));
}

void CubeService::DropPushedRows(const std::string& project_id, const std::string& cube_id) {
  const CubeKey key = KeyOf(project_id, cube_id);
  std::optional<storage::CubeSnapshotRecord> before;
  store_.Write([&](storage::MetadataTransaction& tx) {
    before = tx.FindCubeSnapshot(key.project_id, key.cube_id, /*for_update=*/true);
    if (!before || before->rows_file.empty()) return;
    storage::CubeSnapshotRecord record = *before;
    record.rows_file.clear();
    record.updated = Now();
    tx.PutCubeSnapshot(record);
  });
  std::error_code ignored;
  std::filesystem::remove(RowsPathOf(key, before), ignored);
  std::filesystem::remove(FileOf(LegacyRowsFile(key)), ignored);
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
  if (is_stopping_) throw Error(ErrorCode::kServiceUnavailable, "the node is stopping");
  Entry& entry = EntryFor(key.text());
  if (entry.is_publishing) return false;             // a plain Publish joins the running one
  if (entry.worker.joinable()) entry.worker.join();  // ended: it only had to exit
  entry.is_publishing = true;
  entry.is_queued = false;
  try {
    entry.worker = std::thread(
        [this, key, job = std::move(job)]() mutable { RunPublish(key, std::move(job)); });
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

std::shared_ptr<const engine::Dataset> CubeService::BuildFromSource(
    const CubeKey& key, const std::filesystem::path& rows, const std::atomic<bool>* cancel) {
  std::optional<model::ObjectRecord> object;
  store_.Read([&](storage::MetadataTransaction& tx) {
    object = tx.FindObject(key.project_id, key.cube_id);
  });
  if (object && model::IsPushedDataset(*object)) {
    engine::push::PushModel push =
        engine::push::PushModelFromJson(object->definition.at("pushModel"));
    return engine::push::BuildPushedDataset(key.cube_id, push,
                                            engine::push::ReadPushedRows(push, rows));
  }
  model::SemanticModel model = LoadSemanticModel(store_, key.project_id);
  const model::Cube& cube = model.cube(key.cube_id);
  engine::warehouse::Warehouse& warehouse =
      warehouses_.Get(LoadWarehouseName(store_, key.project_id));
  engine::warehouse::QueryOptions query;
  query.timeout = options_.query_timeout;
  query.cancel = cancel;
  return engine::PublishCubeDataset(warehouse, model, cube, query);
}

void CubeService::WriteSnapshot(const std::filesystem::path& path, const engine::Dataset& dataset) {
  std::error_code error;
  CreatePrivateDirectories(path.parent_path(), error);
  if (error) {
    throw Error(ErrorCode::kInternal, "cannot create the cube snapshot directory " +
                                          path.parent_path().string() + ": " + error.message());
  }
  engine::WriteDatasetSnapshot(dataset, path);
}

storage::JobRecord CubeService::BeginPublish(const CubeKey& key) {
  storage::JobRecord job = jobs_.NewJob(kCubePublishJob, "cube:" + key.text(),
                                        {{"projectId", key.project_id}, {"cubeId", key.cube_id}});
  store_.Write([&](storage::MetadataTransaction& tx) {
    auto record = tx.FindCubeSnapshot(key.project_id, key.cube_id, /*for_update=*/true);
    if (!record) {
      record.emplace();
      record->project_id = key.project_id;
      record->cube_id = key.cube_id;
      record->created = Now();
    }
    record->state = kPublishing;
    record->publish_job_id = job.id;
    record->updated = Now();
    tx.PutCubeSnapshot(*record);
    tx.PutJob(job);
  });
  return job;
}

void CubeService::RunPublish(const CubeKey& key, CustomPublish job) {
  const auto started = std::chrono::steady_clock::now();
  std::string error;
  try {
    storage::JobRecord leased = BeginPublish(key);
    {
      std::lock_guard lock(mutex_);
      EntryFor(key.text()).job_id = leased.id;  // for Stop() to cancel
    }
    error = jobs_.RunHere(leased, [&](JobContext& context) { PublishJob(context, key, job); });
  } catch (...) {
    error = MessageOf(std::current_exception());
  }
  if (!error.empty()) {
    spdlog::warn("publishing cube {} of project {} failed: {}", key.cube_id, key.project_id, error);
  }

  // What every node now reads of the cube: the job recorded its outcome (or another node did).
  std::optional<storage::CubeSnapshotRecord> record;
  try {
    record = FindRecord(key.project_id, key.cube_id);
  } catch (const Error& e) {
    spdlog::warn("the outcome of the publish of cube {} cannot be read: {}", key.cube_id,
                 e.message());
  }
  {
    std::lock_guard lock(mutex_);
    Entry& entry = EntryFor(key.text());
    entry.job_id.clear();
    if (record) {
      entry.last_status = StatusOf(*record);
    } else if (!error.empty()) {  // only this node's knowledge is left
      CubeStatus status = entry.last_status.value_or(CubeStatus{});
      status.state = CubeState::kFailed;
      status.error_message = error;
      status.last_publish_duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                            std::chrono::steady_clock::now() - started)
                                            .count();
      entry.last_status = status;
    }
  }
  if (job.finished) job.finished(error);  // unlocked: it may take its owner's locks
  std::lock_guard lock(mutex_);
  EntryFor(key.text()).is_publishing = false;
  publish_ended_.notify_all();
}

void CubeService::PublishJob(JobContext& context, const CubeKey& key, CustomPublish& job) {
  const std::string& job_id = context.job().id;
  if (is_stopping_) {  // Stop() came before it could cancel the job
    throw Error(ErrorCode::kServiceUnavailable,
                "interrupted: the node stopped before the publish started");
  }
  const std::filesystem::path rows_now = RowsPathOf(key, FindRecord(key.project_id, key.cube_id));
  std::shared_ptr<const engine::Dataset> dataset =
      job.build ? job.build(rows_now) : BuildFromSource(key, rows_now, context.cancel_flag());
  context.ThrowIfCancelled();
  std::shared_ptr<const engine::RollupSet> rollups =
      BuildCubeRollups(store_, key.project_id, key.cube_id, *dataset);
  context.ThrowIfCancelled();

  PublishFiles files{PublishFile(key, job_id, "tsnap"),
                     job.commit ? PublishFile(key, job_id, "rows") : ""};
  PublishFiles previous;
  storage::CubeSnapshotRecord recorded;
  try {
    WriteSnapshot(FileOf(files.snapshot), *dataset);
    if (job.commit) job.commit(FileOf(files.rows));
    if (options_.before_publish_commit) options_.before_publish_commit();
    context.ThrowIfCancelled();
    previous = CommitPublish(context, key, files, *dataset, recorded);
  } catch (...) {
    if (!IsRecorded(key, files)) RemoveFiles(files);
    throw;
  }
  {
    std::lock_guard lock(mutex_);
    Entry& entry = EntryFor(key.text());
    Install(entry, std::move(dataset), std::move(rollups), files.snapshot);
    entry.last_status = StatusOf(recorded);
  }
  // Only now may the files of the previous publish go.
  if (previous.snapshot == files.snapshot) previous.snapshot.clear();
  if (previous.rows == files.rows || files.rows.empty()) previous.rows.clear();
  RemoveFiles(previous);
}

CubeService::PublishFiles CubeService::CommitPublish(JobContext& context, const CubeKey& key,
                                                     const PublishFiles& files,
                                                     const engine::Dataset& dataset,
                                                     storage::CubeSnapshotRecord& recorded) {
  PublishFiles previous;
  store_.Write([&](storage::MetadataTransaction& tx) {
    context.MarkDone(tx);
    auto record = tx.FindCubeSnapshot(key.project_id, key.cube_id, /*for_update=*/true);
    if (!record || record->publish_job_id != context.job().id) {
      throw Error(ErrorCode::kServiceUnavailable,
                  "a publish of the cube started later replaced this one");
    }
    previous.snapshot = record->previous_snapshot_file;
    previous.rows = record->rows_file.empty() ? LegacyRowsFile(key) : record->rows_file;
    record->previous_snapshot_file = record->snapshot_file;
    record->state = kReady;
    record->error_message.clear();
    record->snapshot_file = files.snapshot;
    if (!files.rows.empty()) record->rows_file = files.rows;
    record->rows = static_cast<int64_t>(dataset.row_count());
    record->memory_bytes = static_cast<int64_t>(dataset.MemoryBytes());
    record->raw_bytes = static_cast<int64_t>(dataset.RawBytes());
    record->published = Now();
    record->last_publish_duration_ms = MillisSince(context.job().created);
    record->updated = record->published;
    tx.PutCubeSnapshot(*record);
    tx.Notify(kCubeNoticeChannel, key.text());
    recorded = *record;
  });
  return previous;
}

void CubeService::FailPublish(storage::MetadataTransaction& tx, const storage::JobRecord& job,
                              const std::string& reason) {
  auto key = KeyOf(job.data.value("projectId", ""), job.data.value("cubeId", ""));
  auto record = tx.FindCubeSnapshot(key.project_id, key.cube_id, /*for_update=*/true);
  if (record && record->publish_job_id == job.id && record->state == kPublishing) {
    record->state = kFailed;
    record->error_message = reason;
    record->last_publish_duration_ms = MillisSince(job.created);
    record->updated = Now();
    tx.PutCubeSnapshot(*record);
  }
  RemoveFilesOfJob(key, job.id);  // what it wrote here, if it ran here
}

bool CubeService::IsRecorded(const CubeKey& key, const PublishFiles& files) {
  try {  // a commit that failed as it ended may have committed all the same
    auto record = FindRecord(key.project_id, key.cube_id);
    return record && record->snapshot_file == files.snapshot;
  } catch (const Error&) {
    return true;  // kept: if no record names them, the next start removes them
  }
}

void CubeService::RemoveFiles(const PublishFiles& files) const {
  std::error_code ignored;
  if (!files.snapshot.empty()) std::filesystem::remove(FileOf(files.snapshot), ignored);
  if (!files.rows.empty()) std::filesystem::remove(FileOf(files.rows), ignored);
}

void CubeService::RemoveFilesOfJob(const CubeKey& key, const std::string& job_id) const {
  const std::string prefix = key.cube_id + "." + job_id + ".";
  std::error_code error;
  const std::filesystem::path directory = ProjectDirectory(key.project_id);
  for (const auto& entry : std::filesystem::directory_iterator(directory, error)) {
    if (entry.path().filename().string().starts_with(prefix)) {
      std::error_code ignored;
      std::filesystem::remove(entry.path(), ignored);
    }
  }
}

void CubeService::Install(Entry& entry, std::shared_ptr<const engine::Dataset> dataset,
                          std::shared_ptr<const engine::RollupSet> rollups,
                          const std::string& snapshot_file) {
  const size_t bytes = dataset->MemoryBytes();
  loaded_bytes_ = loaded_bytes_ - entry.dataset_bytes + bytes;
  const size_t rollup_bytes = rollups ? rollups->MemoryBytes() : 0;
  rollup_bytes_ = rollup_bytes_ - entry.rollup_bytes + rollup_bytes;
  entry.rollups = std::move(rollups);
  entry.rollup_bytes = rollup_bytes;
  entry.dataset = std::move(dataset);
  entry.dataset_bytes = bytes;
  entry.snapshot_file = snapshot_file;
  entry.checked_at = std::chrono::steady_clock::now();
  entry.may_be_stale = false;
  ++entry.generation;
}

bool CubeService::IsCurrent(const Entry& entry) const {
  if (!entry.dataset || entry.may_be_stale) return false;
  return hears_notices_ ||
         std::chrono::steady_clock::now() - entry.checked_at < options_.version_check_interval;
}

void CubeService::HearNotice(const storage::Notice& notice) {
  std::lock_guard lock(mutex_);
  if (notice.channel.empty()) {
    for (auto& [key, entry] : entries_) entry->may_be_stale = true;
    return;
  }
  auto it = entries_.find(notice.payload);
  if (it != entries_.end()) it->second->may_be_stale = true;
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
    if (IsCurrent(*entry)) return entry->dataset;
  }
  std::lock_guard load(entry->load_mutex);
  std::shared_ptr<const engine::Dataset> served;
  {
    std::lock_guard lock(mutex_);
    if (IsCurrent(*entry)) return entry->dataset;  // another caller checked or loaded it
    served = entry->dataset;
  }
  try {
    return LoadSnapshot(key, *entry);
  } catch (const Error& e) {
    // The dataset served stays served when its newer version cannot be read yet.
    if (!served) throw;
    spdlog::warn("cube {}: keeps serving its loaded dataset: {}", key.cube_id, e.message());
    std::lock_guard lock(mutex_);
    entry->checked_at = std::chrono::steady_clock::now();
    entry->may_be_stale = false;
    return served;
  }
}

CubeService::Version CubeService::GetVersion(const std::string& project_id,
                                             const std::string& cube_id) {
  Get(project_id, cube_id);
  std::lock_guard lock(mutex_);
  const Entry& entry = EntryFor(KeyOf(project_id, cube_id).text());
  return {entry.dataset, entry.snapshot_file};
}

std::shared_ptr<const engine::Dataset> CubeService::GetAt(const std::string& project_id,
                                                          const std::string& cube_id,
                                                          const std::string& snapshot_file) {
  Version served = GetVersion(project_id, cube_id);
  if (served.dataset && served.snapshot_file == snapshot_file) return served.dataset;
  const CubeKey key = KeyOf(project_id, cube_id);
  Entry* entry = nullptr;
  {
    std::lock_guard lock(mutex_);
    entry = &EntryFor(key.text());
    if (entry->superseded_file == snapshot_file) {
      if (auto kept = entry->superseded.lock()) return kept;
    }
  }
  std::lock_guard load(entry->load_mutex);
  auto record = FindRecord(project_id, cube_id);
  std::shared_ptr<const engine::Dataset> dataset;
  if (record && record->previous_snapshot_file == snapshot_file) {
    try {
      dataset = engine::ReadDatasetSnapshot(FileOf(snapshot_file));
    } catch (const Error&) {
      dataset = nullptr;  // replaced again meanwhile
    }
  }
  if (!dataset) {
    throw Error(ErrorCode::kNotFound,
                "The version of cube '" + cube_id +
                    "' this instance was made on has been replaced by two publishes since; "
                    "create a new instance");
  }
  std::lock_guard lock(mutex_);
  entry->superseded_file = snapshot_file;
  entry->superseded = dataset;
  return dataset;
}

std::shared_ptr<const engine::Dataset> CubeService::LoadSnapshot(const CubeKey& key, Entry& entry) {
  // A publish that commits while the snapshot loads removes the file the record named: the
  // record is read again then, and names the new one.
  for (int attempt = 1;; ++attempt) {
    uint64_t generation = 0;
    {
      std::lock_guard lock(mutex_);
      generation = entry.generation;
    }
    auto record = FindRecord(key.project_id, key.cube_id);
    {
      std::lock_guard lock(mutex_);
      if (entry.generation != generation) return entry.dataset;  // a publish here installed it
      bool still_recorded = entry.dataset && (!record || record->snapshot_file.empty() ||
                                              record->snapshot_file == entry.snapshot_file);
      if (still_recorded) {
        entry.checked_at = std::chrono::steady_clock::now();
        entry.may_be_stale = false;
        return entry.dataset;
      }
    }
    if (!record || record->snapshot_file.empty()) {
      if (!WaitForFirstPublish(entry)) return nullptr;
      std::lock_guard lock(mutex_);
      return entry.dataset;
    }
    std::shared_ptr<const engine::Dataset> dataset;
    try {
      dataset = engine::ReadDatasetSnapshot(FileOf(record->snapshot_file));
    } catch (const Error& e) {
      auto now = FindRecord(key.project_id, key.cube_id);
      bool replaced = now && now->snapshot_file != record->snapshot_file;
      if (replaced && attempt < 3) continue;
      throw Error(ErrorCode::kInternal, "Cube '" + key.cube_id +
                                            "' cannot be loaded from its snapshot; publish it "
                                            "again. " +
                                            std::string(e.message()));
    }
    std::shared_ptr<const engine::RollupSet> rollups =
        BuildCubeRollups(store_, key.project_id, key.cube_id, *dataset);
    std::lock_guard lock(mutex_);
    // A publish that ended while the snapshot loaded installed a newer dataset: serve that one.
    if (entry.generation == generation) {
      Install(entry, std::move(dataset), std::move(rollups), record->snapshot_file);
    }
    return entry.dataset;
  }
}

size_t CubeService::LoadedBytes() const {
  std::lock_guard lock(mutex_);
  return loaded_bytes_;
}

std::shared_ptr<const engine::RollupSet> CubeService::RollupsOf(
    const engine::Dataset& dataset) const {
  std::lock_guard lock(mutex_);
  for (const auto& [key, entry] : entries_) {
    if (entry->dataset.get() == &dataset) return entry->rollups;
  }
  return nullptr;
}

CubeService::LoadedCubes CubeService::Loaded() const {
  std::lock_guard lock(mutex_);
  LoadedCubes loaded;
  loaded.bytes = loaded_bytes_;
  loaded.rollup_bytes = rollup_bytes_;
  for (const auto& [key, entry] : entries_) {
    if (entry->dataset) ++loaded.cubes;
    if (entry->is_publishing) ++loaded.publishing;
  }
  return loaded;
}

std::optional<storage::CubeSnapshotRecord> CubeService::FindRecord(const std::string& project_id,
                                                                   const std::string& cube_id) {
  std::optional<storage::CubeSnapshotRecord> record;
  store_.Read(
      [&](storage::MetadataTransaction& tx) { record = tx.FindCubeSnapshot(project_id, cube_id); });
  return record;
}

// Recovery at start

void CubeService::RemoveLeftovers() {
  std::vector<storage::ProjectRecord> projects;
  store_.Read([&](storage::MetadataTransaction& tx) { projects = tx.ListProjects(); });
  for (const auto& project : projects) FailStalePublishes(project.object.id);
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(options_.cubes_dir, error)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_directory() && CanonicalObjectId(name) == name) RemoveLeftoversOfProject(name);
  }
}

void CubeService::FailStalePublishes(const std::string& project_id) {
  store_.Write([&](storage::MetadataTransaction& tx) {
    for (auto record : tx.ListCubeSnapshots(project_id)) {
      if (record.state != kPublishing) continue;
      auto job = record.publish_job_id.empty() ? std::nullopt : tx.FindJob(record.publish_job_id);
      if (job && job->state == "running") continue;  // its node, or recovery, ends it
      record.state = kFailed;
      record.error_message =
          "interrupted: the node that ran the publish stopped before it was complete; no change "
          "was kept";
      record.updated = Now();
      tx.PutCubeSnapshot(record);
      spdlog::warn("the interrupted publish of cube {} is marked failed", record.cube_id);
    }
  });
}

void CubeService::RemoveLeftoversOfProject(const std::string& project_id) {
  // The directory is listed before the records are read: a file another node's publish wrote
  // after its job was stored is then seen with its job running, or recorded.
  const std::filesystem::path directory = ProjectDirectory(project_id);
  std::vector<std::filesystem::path> found;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(directory, error)) {
    found.push_back(entry.path());
  }
  std::set<std::string> kept;  // file names
  std::set<std::string> running_jobs;
  store_.Read([&](storage::MetadataTransaction& tx) {
    for (const auto& record : tx.ListCubeSnapshots(project_id)) {
      for (const std::string* file :
           {&record.snapshot_file, &record.rows_file, &record.previous_snapshot_file}) {
        if (!file->empty()) kept.insert(std::filesystem::path(*file).filename().string());
      }
      if (record.rows_file.empty()) {
        kept.insert(std::filesystem::path(LegacyRowsFile({project_id, record.cube_id}))
                        .filename()
                        .string());
      }
    }
    for (const auto& job : tx.ListJobs("running")) {
      if (job.kind == kCubePublishJob) running_jobs.insert(job.id);
    }
  });
  for (const auto& path : found) {
    const std::string name = path.filename().string();
    if (kept.count(name)) continue;
    // <cube id>.<job id>.<extension>[.tmp-...]: kept while its publish runs (elsewhere).
    if (name.size() > 66 && name[32] == '.' && running_jobs.count(name.substr(33, 32))) continue;
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
    spdlog::info("removed {}, left by an interrupted publish", path.string());
  }
}

}  // namespace tessera::service
