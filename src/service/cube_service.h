// service/cube_service.h
//
// The published cubes of one node. Publishing a cube runs its query on the project's warehouse into
// a Dataset (engine/cube_publisher.h), writes the Dataset's snapshot to
// <data_dir>/cubes/<project id>/<cube id>.<job id>.tsnap (engine/dataset_snapshot.h) and records it
// in the storage service, so any node and any restart knows the cube is published and where its
// snapshot is.
//
// Contract:
//   - Publish() checks that the cube exists (Error(kInvalidInput) for a malformed id,
//     Error(kNotFound) for an unknown cube) and returns at once: the publish runs on its own
//     thread, so the HTTP layer can answer 202 and let clients poll Status(). A Publish of a cube
//     that is already publishing on this node joins that publish. Refresh() is Publish() again.
//   - Every publish is a job of the node's JobRunner (kind "cube_publish"): stored with the
//     cube's record marked publishing, under a lease the node renews while it works. It is all or
//     nothing: its files get names no other publish uses, and the one transaction that marks the
//     job done switches the record to them; the previous files are removed only then. A publish
//     killed anywhere before that transaction leaves the previous snapshot recorded and served.
//   - A publish that fails (warehouse unreachable, timeout, a model the SQL generator refuses,
//     the node killed or stopped...) leaves the previous dataset served, its snapshot on disk, and
//     reports kFailed with the failure's message. A node that restarts, or any node once the lease
//     has expired, fails the abandoned publish that way (JobRunner::Recover()), so no status
//     stays "publishing" after its node is gone.
//   - When two nodes publish one cube at once, the publish started last is the one recorded; the
//     other fails saying so.
//   - RemoveLeftovers(), at start after the job runner's first Recover(), removes from this
//     node's cubes directory every file no record names and no running publish is writing
//     (temporary files and snapshots of interrupted publishes), and fails records left
//     "publishing" without a running job (written before publishes were jobs).
//   - A publish keeps the snapshot it replaces until the next publish (the record names it), so
//     an instance made on that version is rebuilt on it by any node (GetAt()); the version
//     before is removed then.
//   - Get() returns the dataset served, loading it from its snapshot on first use after a
//     restart (never re-querying the warehouse); null when the cube was never published. A
//     snapshot that cannot be read is Error(kInternal) saying so and asking for a new publish.
//   - Status() is the storage service's record (shared by every node), with what only this node
//     knows on top: a publish running here, whether the dataset is in memory and its size. When
//     the storage service cannot be read it falls back to this node's last publish, if any.
//   - PublishInBackground() publishes a list of cubes one after another on a background thread
//     (the demo's first start), logging each one. A cube waiting for its turn reads as
//     publishing.
//   - Get() of a cube that has no dataset yet while its first publish runs (or waits its turn) on
//     this node waits for that publish to end, so a request never fails only because it came
//     early.
//   - Files live in `cubes_dir` (default <data_dir>/cubes), which nodes on one storage service
//     share, so any node loads a cube another node published. A node serves the dataset it
//     published or loaded until it learns of a newer publish: at once from the notice the
//     publish sends (HearNotice(), on backends with notices), otherwise by reading the record
//     again when its dataset was last checked more than `version_check_interval` ago. An
//     instance keeps the dataset it was created on (it holds it), whatever is published later.
//   - A pushed dataset (model::IsPushedDataset) is a cube whose rows come from its
//     upload sessions, kept in a rows file (engine/push/pushed_rows_file.h) beside its snapshot and
//     recorded with it: Publish() rebuilds the dataset from those rows. PublishWith() runs a
//     publish whose dataset the caller builds (a push publish): it refuses to start while another
//     publish of the cube runs here; `build` gets the rows file recorded now, `commit` writes the
//     rows behind the built dataset to the new rows file it is given (it may throw, failing the
//     publish), and the record switches to both files together; `finished` hears the outcome (""
//     or the error) after the status is recorded. DropPushedRows() forgets the recorded rows (a
//     replaced model starts without rows) and keeps the dataset served.
//   - Every dataset served (published or loaded) has its roll-ups (service/cube_rollups.h),
//     built before it is served; RollupsOf() gives those of a dataset served now, null for any
//     other (an older version, a report's rows): such a dataset answers from itself alone.
//   - Stop() (and the destructor) cancels running publishes (their warehouse queries) and waits
//     for them; publishes queued by PublishInBackground() are not started.
//   - Thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "engine/dataset.h"
#include "engine/rollup_set.h"
#include "engine/warehouse/warehouse.h"
#include "service/job_runner.h"
#include "service/warehouse_registry.h"
#include "storage/metadata_store.h"

namespace tessera::service {

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

// A publish whose dataset the caller builds (a push publish).
struct CustomPublish {
  // From the rows file recorded now (a path that may not exist: no rows yet).
  std::function<std::shared_ptr<const engine::Dataset>(const std::filesystem::path& rows)> build;
  // Optional: writes the rows behind the built dataset to the new file `rows`.
  std::function<void(const std::filesystem::path& rows)> commit;
  std::function<void(const std::string& error)> finished;  // optional; "" on success
};

struct CubeServiceOptions {
  std::filesystem::path data_dir;   // where records written before `cubes_dir` existed point
  std::filesystem::path cubes_dir;  // snapshots and rows files; empty: data_dir/cubes
  std::chrono::milliseconds version_check_interval{1000};  // without notices
  std::chrono::milliseconds query_timeout{std::chrono::minutes(30)};
  // Fault injection for tests only: runs once a publish has written its files, just before the
  // transaction that records them.
  std::function<void()> before_publish_commit;
};

// The job kind of cube publishes.
inline constexpr char kCubePublishJob[] = "cube_publish";
// The notice channel of published cubes; the payload is "<project id>:<cube id>".
inline constexpr char kCubeNoticeChannel[] = "tessera_cubes";

class CubeService {
 public:
  // A cube of a project, by canonical ids (safe in file names).
  struct CubeKey {
    std::string project_id;
    std::string cube_id;
    std::string text() const { return project_id + ":" + cube_id; }
  };

  // `jobs` runs the publishes and must outlive this service's publishes (Stop() ends them).
  CubeService(storage::MetadataStore& store, WarehouseRegistry& warehouses, JobRunner& jobs,
              CubeServiceOptions options);
  ~CubeService();
  CubeService(const CubeService&) = delete;
  CubeService& operator=(const CubeService&) = delete;

  // Before the runner's first Recover(): how abandoned publishes are failed.
  void RegisterJobs();
  // After it: see the contract. Needs the storage service (throws Error(kStorageUnavailable)).
  void RemoveLeftovers();
  void Stop();

  void Publish(const std::string& project_id, const std::string& cube_id);
  void Refresh(const std::string& project_id, const std::string& cube_id) {
    Publish(project_id, cube_id);
  }
  // False, and nothing started, while a publish of the cube runs.
  bool PublishWith(const std::string& project_id, const std::string& cube_id, CustomPublish job);
  // Publishes `cube_ids` of the project in order, in the background.
  void PublishInBackground(const std::string& project_id, std::vector<std::string> cube_ids);
  // Blocks until no publish of the cube runs on this node (tests, command line).
  void WaitForPublish(const std::string& project_id, const std::string& cube_id);

  CubeStatus Status(const std::string& project_id, const std::string& cube_id);
  std::shared_ptr<const engine::Dataset> Get(const std::string& project_id,
                                             const std::string& cube_id);
  // A version of a cube: its dataset and the snapshot file it was read from.
  struct Version {
    std::shared_ptr<const engine::Dataset> dataset;  // null: never published
    std::string snapshot_file;
  };
  // The version Get() serves.
  Version GetVersion(const std::string& project_id, const std::string& cube_id);
  // The dataset of the version read from `snapshot_file`: the one served, or the one it replaced
  // (kept until the next publish); Error(kNotFound) saying so for an older one.
  std::shared_ptr<const engine::Dataset> GetAt(const std::string& project_id,
                                               const std::string& cube_id,
                                               const std::string& snapshot_file);

  // Bytes held by the datasets this node serves.
  size_t LoadedBytes() const;
  // The roll-ups of `dataset` when it is the dataset of a cube served now; else null.
  std::shared_ptr<const engine::RollupSet> RollupsOf(const engine::Dataset& dataset) const;

  // What this node holds now, for monitoring.
  struct LoadedCubes {
    size_t cubes = 0;         // datasets in memory
    size_t bytes = 0;         // their size
    size_t rollup_bytes = 0;  // the size of their roll-ups, on top of `bytes`
    size_t publishing = 0;    // publishes running on this node
  };
  LoadedCubes Loaded() const;

  // The snapshot file the storage service records for the cube, on this node; empty when none.
  std::filesystem::path SnapshotPath(const std::string& project_id, const std::string& cube_id);
  // Forgets the rows recorded for a pushed dataset and removes their file.
  void DropPushedRows(const std::string& project_id, const std::string& cube_id);

  // A notice on kCubeNoticeChannel (or a "may have missed notices" one): the cubes it names are
  // checked against their records on their next Get().
  void HearNotice(const storage::Notice& notice);
  // Whether notices reach this service; without them Get() checks records on a timer.
  void set_hears_notices(bool hears) { hears_notices_ = hears; }

 private:
  struct Entry {
    std::shared_ptr<const engine::Dataset> dataset;    // served; null until published or loaded
    std::shared_ptr<const engine::RollupSet> rollups;  // of `dataset`
    size_t rollup_bytes = 0;
    std::string snapshot_file;                         // the recorded file `dataset` came from
    std::chrono::steady_clock::time_point checked_at;  // when that was still the record's
    bool may_be_stale = false;                         // a notice named the cube since
    size_t dataset_bytes = 0;
    uint64_t generation = 0;  // datasets installed so far, so a stale snapshot load is dropped
    bool is_publishing = false;
    bool is_queued = false;                 // PublishInBackground() will publish it
    std::string job_id;                     // of the publish running here
    std::optional<CubeStatus> last_status;  // when the storage service cannot be read
    // The replaced version GetAt() last read, while instances hold it.
    std::string superseded_file;
    std::weak_ptr<const engine::Dataset> superseded;
    std::thread worker;
    std::mutex load_mutex;  // one snapshot load at a time per cube
  };
  // The files one publish writes, relative to the data directory.
  struct PublishFiles {
    std::string snapshot;
    std::string rows;  // empty unless the publish writes rows
  };

  Entry& EntryFor(const std::string& key);  // with mutex_ held
  void PublishQueue(const std::vector<CubeKey>& keys);
  void PublishAndLog(const CubeKey& key, const std::string& position);
  // Waits while the cube's first publish is running or queued on this node; false if none was.
  bool WaitForFirstPublish(Entry& entry);
  bool StartPublish(const std::string& project_id, const std::string& cube_id, CustomPublish job);
  void RunPublish(const CubeKey& key, CustomPublish job);
  // Stores the publish's job with the record marked publishing, in one transaction.
  storage::JobRecord BeginPublish(const CubeKey& key);
  // The job's work: build, write the files, record them (JobContext::MarkDone), serve.
  void PublishJob(JobContext& context, const CubeKey& key, CustomPublish& job);
  // Records `files` as the cube's; returns the files recorded before.
  PublishFiles CommitPublish(JobContext& context, const CubeKey& key, const PublishFiles& files,
                             const engine::Dataset& dataset, storage::CubeSnapshotRecord& record);
  void FailPublish(storage::MetadataTransaction& tx, const storage::JobRecord& job,
                   const std::string& reason);
  std::shared_ptr<const engine::Dataset> BuildFromSource(const CubeKey& key,
                                                         const std::filesystem::path& rows,
                                                         const std::atomic<bool>* cancel);
  void WriteSnapshot(const std::filesystem::path& path, const engine::Dataset& dataset);
  // With mutex_ held.
  void Install(Entry& entry, std::shared_ptr<const engine::Dataset> dataset,
               std::shared_ptr<const engine::RollupSet> rollups, const std::string& snapshot_file);
  bool IsCurrent(const Entry& entry) const;  // mutex_ held
  std::shared_ptr<const engine::Dataset> LoadSnapshot(const CubeKey& key, Entry& entry);
  // A path the storage service records ("cubes/<project>/<file>") on this node.
  std::filesystem::path FileOf(const std::string& recorded) const;
  std::filesystem::path ProjectDirectory(const std::string& project_id) const;
  std::optional<storage::CubeSnapshotRecord> FindRecord(const std::string& project_id,
                                                        const std::string& cube_id);
  // The rows file a record names (the name of releases before publish jobs when it names none).
  std::filesystem::path RowsPathOf(const CubeKey& key,
                                   const std::optional<storage::CubeSnapshotRecord>& record) const;
  bool IsRecorded(const CubeKey& key, const PublishFiles& files);
  void RemoveFiles(const PublishFiles& files) const;
  void RemoveFilesOfJob(const CubeKey& key, const std::string& job_id) const;
  void RemoveLeftoversOfProject(const std::string& project_id);
  void FailStalePublishes(const std::string& project_id);

  storage::MetadataStore& store_;
  WarehouseRegistry& warehouses_;
  JobRunner& jobs_;
  CubeServiceOptions options_;
  std::atomic<bool> is_stopping_{false};
  std::atomic<bool> hears_notices_{false};

  mutable std::mutex mutex_;
  std::condition_variable publish_ended_;
  std::map<std::string, std::unique_ptr<Entry>> entries_;  // by "<project id>:<cube id>"
  std::vector<std::thread> queue_workers_;                 // of PublishInBackground()
  size_t loaded_bytes_ = 0;
  size_t rollup_bytes_ = 0;
};

}  // namespace tessera::service
