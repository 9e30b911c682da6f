#include "service/cube/cube_publisher.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <exception>
#include <utility>

#include "core/time.h"
#include "engine/cube_publisher.h"
#include "engine/push/pushed_dataset.h"
#include "engine/push/pushed_rows_file.h"
#include "model/object_types.h"
#include "model/semantic.h"
#include "service/cube/rollup_grains.h"
#include "service/project/project_model.h"

namespace tessera::service::cube {
namespace {

int64_t MillisSince(Timestamp start) {
  return std::max<int64_t>(0, ToUnixMillis(Now()) - ToUnixMillis(start));
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

CubePublisher::CubePublisher(storage::MetadataStore& store, project::WarehouseRegistry& warehouses,
                             JobRunner& jobs, const SnapshotFiles& files, ServedCubes& served,
                             CubePublisherOptions options)
    : store_(store),
      warehouses_(warehouses),
      jobs_(jobs),
      files_(files),
      served_(served),
      options_(std::move(options)) {}

CubePublisher::~CubePublisher() { Stop(); }

void CubePublisher::Stop() {
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

void CubePublisher::RegisterJobs() {
  JobKind kind;
  kind.fail = [this](storage::MetadataTransaction& tx, const storage::JobRecord& job,
                     const std::string& reason) { FailPublish(tx, job, reason); };
  jobs_.RegisterKind(kCubePublishJob, std::move(kind));
}

CubePublisher::Entry& CubePublisher::EntryFor(const std::string& key) {
  auto& entry = entries_[key];
  if (!entry) entry = std::make_unique<Entry>();
  return *entry;
}

const CubePublisher::Entry* CubePublisher::FindEntry(const std::string& key) const {
  auto it = entries_.find(key);
  return it == entries_.end() ? nullptr : it->second.get();
}

void CubePublisher::Publish(const CubeKey& key) {
  bool is_cube = false;
  store_.Read([&](storage::MetadataTransaction& tx) {
    auto object = tx.FindObject(key.project_id, key.cube_id);
    is_cube = object && object->type == model::kTypeReportDefinition && model::IsCube(*object);
  });
  if (!is_cube) {
    throw Error(ErrorCode::kNotFound,
                "Cube '" + key.cube_id + "' not found in project '" + key.project_id + "'");
  }
  StartPublish(key, {});
}

bool CubePublisher::PublishWith(const CubeKey& key, CustomPublish job) {
  return StartPublish(key, std::move(job));
}

bool CubePublisher::StartPublish(const CubeKey& key, CustomPublish job) {
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

void CubePublisher::PublishInBackground(std::vector<CubeKey> keys) {
  if (keys.empty()) return;
  std::lock_guard lock(mutex_);
  for (const auto& key : keys) EntryFor(key.text()).is_queued = true;
  queue_workers_.emplace_back([this, keys = std::move(keys)] { PublishQueue(keys); });
}

void CubePublisher::PublishQueue(const std::vector<CubeKey>& keys) {
  for (size_t i = 0; i < keys.size(); ++i) {
    const CubeKey& key = keys[i];
    if (!is_stopping_) PublishAndLog(key, fmt::format("{}/{}", i + 1, keys.size()));
    std::lock_guard lock(mutex_);
    EntryFor(key.text()).is_queued = false;
    publish_ended_.notify_all();
  }
}

void CubePublisher::PublishAndLog(const CubeKey& key, const std::string& position) {
  std::string name = key.cube_id;
  try {
    store_.Read([&](storage::MetadataTransaction& tx) {
      if (auto object = tx.FindObject(key.project_id, key.cube_id)) name = object->name;
    });
    spdlog::info("publishing cube {} '{}'", position, name);
    Publish(key);
    WaitForPublish(key);
    const CubeStatus status = Status(key);
    if (status.state == CubeState::kReady) {
      spdlog::info("cube {} '{}' published: {} rows in {} ms", position, name, status.rows,
                   status.last_publish_duration_ms);
    }
  } catch (const Error& e) {
    spdlog::warn("cube {} '{}' cannot be published: {}", position, name, e.message());
  }
}

void CubePublisher::WaitForPublish(const CubeKey& key) {
  std::unique_lock lock(mutex_);
  const Entry* entry = FindEntry(key.text());
  if (!entry) return;
  publish_ended_.wait(lock, [&] { return !entry->is_publishing; });
}

bool CubePublisher::WaitForFirstPublish(const CubeKey& key) {
  std::unique_lock lock(mutex_);
  const Entry* entry = FindEntry(key.text());
  if (!entry) return false;
  // ServedCubes' mutex is taken inside this one: it is never held while this one is asked for.
  auto is_over = [&] {
    return !(entry->is_publishing || entry->is_queued) || served_.IsServed(key);
  };
  if (is_over()) return false;
  publish_ended_.wait(lock, [&] { return is_stopping_ || is_over(); });
  return true;
}

CubeStatus CubePublisher::Status(const CubeKey& key) {
  std::optional<storage::CubeSnapshotRecord> record;
  std::optional<Error> storage_error;
  try {
    record = FindCubeRecord(store_, key.project_id, key.cube_id);
  } catch (const Error& e) {
    if (e.code() != ErrorCode::kStorageUnavailable) throw;
    storage_error = e;
  }
  CubeStatus status = StatusOfPublishes(key, record, storage_error);
  // A publish serves its dataset before it stops reading as publishing, so reading the two
  // apart never shows a finished publish without its dataset.
  served_.AddServedFigures(key, status);
  return status;
}

CubeStatus CubePublisher::StatusOfPublishes(
    const CubeKey& key, const std::optional<storage::CubeSnapshotRecord>& record,
    const std::optional<Error>& storage_error) const {
  std::lock_guard lock(mutex_);
  const Entry* entry = FindEntry(key.text());
  CubeStatus status;
  if (record) {
    status = StatusOfRecord(*record);
  } else if (storage_error) {
    if (!entry || !entry->last_status) throw *storage_error;
    status = *entry->last_status;
  }
  if (entry && (entry->is_publishing || entry->is_queued)) status.state = CubeState::kPublishing;
  return status;
}

size_t CubePublisher::RunningCount() const {
  std::lock_guard lock(mutex_);
  size_t running = 0;
  for (const auto& [key, entry] : entries_) {
    if (entry->is_publishing) ++running;
  }
  return running;
}

// One publish, on its own thread

void CubePublisher::RunPublish(const CubeKey& key, CustomPublish job) {
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
    record = FindCubeRecord(store_, key.project_id, key.cube_id);
  } catch (const Error& e) {
    spdlog::warn("the outcome of the publish of cube {} cannot be read: {}", key.cube_id,
                 e.message());
  }
  RememberOutcome(key, record, error, started);
  if (job.finished) job.finished(error);  // unlocked: it may take its owner's locks
  EndPublish(key);
}

void CubePublisher::RememberOutcome(const CubeKey& key,
                                    const std::optional<storage::CubeSnapshotRecord>& record,
                                    const std::string& error,
                                    std::chrono::steady_clock::time_point started) {
  std::lock_guard lock(mutex_);
  Entry& entry = EntryFor(key.text());
  entry.job_id.clear();
  if (record) {
    entry.last_status = StatusOfRecord(*record);
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

void CubePublisher::EndPublish(const CubeKey& key) {
  std::lock_guard lock(mutex_);
  EntryFor(key.text()).is_publishing = false;
  publish_ended_.notify_all();
}

storage::JobRecord CubePublisher::BeginPublish(const CubeKey& key) {
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
    record->state = kRecordPublishing;
    record->publish_job_id = job.id;
    record->updated = Now();
    tx.PutCubeSnapshot(*record);
    tx.PutJob(job);
  });
  return job;
}

void CubePublisher::PublishJob(JobContext& context, const CubeKey& key, CustomPublish& job) {
  if (is_stopping_) {  // Stop() came before it could cancel the job
    throw Error(ErrorCode::kServiceUnavailable,
                "interrupted: the node stopped before the publish started");
  }
  const std::filesystem::path rows_now =
      files_.RowsPathOf(key, FindCubeRecord(store_, key.project_id, key.cube_id));
  std::shared_ptr<const engine::Dataset> dataset =
      job.build ? job.build(rows_now) : BuildFromSource(key, rows_now, context.cancel_flag());
  context.ThrowIfCancelled();
  std::shared_ptr<const engine::RollupSet> rollups =
      BuildCubeRollups(store_, key.project_id, key.cube_id, *dataset);
  context.ThrowIfCancelled();

  const PublishFiles files =
      SnapshotFiles::FilesOfPublish(key, context.job().id,
                                    /*writes_rows=*/static_cast<bool>(job.commit));
  storage::CubeSnapshotRecord recorded;
  PublishFiles previous = WriteAndRecord(context, key, job, files, *dataset, recorded);
  served_.Install(key, std::move(dataset), std::move(rollups), files.snapshot);
  {
    std::lock_guard lock(mutex_);
    EntryFor(key.text()).last_status = StatusOfRecord(recorded);
  }
  // Only now may the files of the previous publish go.
  if (previous.snapshot == files.snapshot) previous.snapshot.clear();
  if (previous.rows == files.rows || files.rows.empty()) previous.rows.clear();
  files_.Remove(previous);
}

PublishFiles CubePublisher::WriteAndRecord(JobContext& context, const CubeKey& key,
                                           CustomPublish& job, const PublishFiles& files,
                                           const engine::Dataset& dataset,
                                           storage::CubeSnapshotRecord& recorded) {
  try {
    files_.WriteSnapshot(files_.FileOf(files.snapshot), dataset);
    if (job.commit) job.commit(files_.FileOf(files.rows));
    if (options_.before_publish_commit) options_.before_publish_commit();
    context.ThrowIfCancelled();
    return CommitPublish(context, key, files, dataset, recorded);
  } catch (...) {
    if (!IsRecorded(key, files)) files_.Remove(files);
    throw;
  }
}

PublishFiles CubePublisher::CommitPublish(JobContext& context, const CubeKey& key,
                                          const PublishFiles& files, const engine::Dataset& dataset,
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
    previous.rows = SnapshotFiles::RowsFileOf(key, *record);
    record->previous_snapshot_file = record->snapshot_file;
    record->state = kRecordReady;
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

bool CubePublisher::IsRecorded(const CubeKey& key, const PublishFiles& files) {
  try {  // a commit that failed as it ended may have committed all the same
    auto record = FindCubeRecord(store_, key.project_id, key.cube_id);
    return record && record->snapshot_file == files.snapshot;
  } catch (const Error&) {
    return true;  // kept: if no record names them, the next start removes them
  }
}

std::shared_ptr<const engine::Dataset> CubePublisher::BuildFromSource(
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
  model::SemanticModel model = project::LoadSemanticModel(store_, key.project_id);
  const model::Cube& cube = model.cube(key.cube_id);
  engine::warehouse::Warehouse& warehouse =
      warehouses_.Get(project::LoadWarehouseName(store_, key.project_id));
  engine::warehouse::QueryOptions query;
  query.timeout = options_.query_timeout;
  query.cancel = cancel;
  return engine::PublishCubeDataset(warehouse, model, cube, query);
}

// Failed publishes

void CubePublisher::FailPublish(storage::MetadataTransaction& tx, const storage::JobRecord& job,
                                const std::string& reason) {
  auto key = CubeKeyOf(job.data.value("projectId", ""), job.data.value("cubeId", ""));
  auto record = tx.FindCubeSnapshot(key.project_id, key.cube_id, /*for_update=*/true);
  if (record && record->publish_job_id == job.id && record->state == kRecordPublishing) {
    record->state = kRecordFailed;
    record->error_message = reason;
    record->last_publish_duration_ms = MillisSince(job.created);
    record->updated = Now();
    tx.PutCubeSnapshot(*record);
  }
  files_.RemoveFilesOfJob(key, job.id);  // what it wrote here, if it ran here
}

void CubePublisher::FailStalePublishes() {
  std::vector<storage::ProjectRecord> projects;
  store_.Read([&](storage::MetadataTransaction& tx) { projects = tx.ListProjects(); });
  for (const auto& project : projects) FailStalePublishesOf(project.object.id);
}

void CubePublisher::FailStalePublishesOf(const std::string& project_id) {
  store_.Write([&](storage::MetadataTransaction& tx) {
    for (auto record : tx.ListCubeSnapshots(project_id)) {
      if (record.state != kRecordPublishing) continue;
      auto job = record.publish_job_id.empty() ? std::nullopt : tx.FindJob(record.publish_job_id);
      if (job && job->state == "running") continue;  // its node, or recovery, ends it
      record.state = kRecordFailed;
      record.error_message =
          "interrupted: the node that ran the publish stopped before it was complete; no change "
          "was kept";
      record.updated = Now();
      tx.PutCubeSnapshot(record);
      spdlog::warn("the interrupted publish of cube {} is marked failed", record.cube_id);
    }
  });
}

}  // namespace tessera::service::cube
