// service/cube/cube_publisher.h
//
// Publishing cubes on this node. A publish runs the cube's query on the project's warehouse into
// a Dataset (engine/cube_publisher.h), writes the Dataset's snapshot
// (service/cube/snapshot_files.h), records it in the storage service, so any node and any restart
// knows the cube is published and where its snapshot is, and serves it here
// (service/cube/served_cubes.h).
//
// Contract:
//   - Publish() checks that the cube exists (Error(kNotFound) for an unknown cube) and returns at
//     once: the publish runs on its own thread, so the HTTP layer can answer 202 and let clients
//     poll Status(). A Publish of a cube that is already publishing on this node joins that
//     publish.
//   - Every publish is a job of the node's JobRunner (kind kCubePublishJob): stored with the
//     cube's record marked publishing, under a lease the node renews while it works. It is all or
//     nothing: its files get names no other publish uses, and the one transaction that marks the
//     job done switches the record to them; the previous files are removed only then. A publish
//     killed anywhere before that transaction leaves the previous snapshot recorded and served.
//   - A publish that fails (warehouse unreachable, timeout, a model the SQL generator refuses,
//     the node killed or stopped...) leaves the previous dataset served, its snapshot on disk, and
//     reports kFailed with the failure's message. A node that restarts, or any node once the lease
//     has expired, fails the abandoned publish that way (JobRunner::Recover(), with the kind
//     RegisterJobs() registers), so no status stays "publishing" after its node is gone.
//   - When two nodes publish one cube at once, the publish started last is the one recorded; the
//     other fails saying so.
//   - A publish keeps the snapshot it replaces until the next publish (the record names it), so
//     an instance made on that version is rebuilt on it by any node (ServedCubes::GetAt()); the
//     version before is removed then.
//   - A pushed dataset (model::IsPushedDataset) is a cube whose rows come from its upload
//     sessions, kept in a rows file (engine/push/pushed_rows_file.h) beside its snapshot and
//     recorded with it: Publish() rebuilds the dataset from those rows. PublishWith() runs a
//     publish whose dataset the caller builds (a push publish): it refuses to start while another
//     publish of the cube runs here; `build` gets the rows file recorded now, `commit` writes the
//     rows behind the built dataset to the new rows file it is given (it may throw, failing the
//     publish), and the record switches to both files together; `finished` hears the outcome (""
//     or the error) after the status is recorded.
//   - PublishInBackground() publishes a list of cubes one after another on a background thread
//     (the demo's first start), logging each one. A cube waiting for its turn reads as
//     publishing.
//   - Status() is the storage service's record (shared by every node), with what only this node
//     knows on top: a publish running here, whether the dataset is in memory and its size. When
//     the storage service cannot be read it falls back to this node's last publish, if any.
//   - FailStalePublishes(), at start after the job runner's first Recover(), fails records left
//     "publishing" without a running job (written before publishes were jobs).
//   - Stop() (and the destructor) cancels running publishes (their warehouse queries) and waits
//     for them; publishes queued by PublishInBackground() are not started.
//   - Thread-safe. Locks are taken in one order: a cube's load lock (ServedCubes, around
//     WaitForFirstPublish()), then this object's mutex, then ServedCubes' mutex (IsServed() in
//     that wait). This object never takes a load lock, ServedCubes never calls it holding its
//     mutex, and `finished` runs with no lock of this object held (it may take its owner's).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"
#include "engine/dataset.h"
#include "engine/warehouse/warehouse.h"
#include "service/cube/cube_key.h"
#include "service/cube/cube_record.h"
#include "service/cube/served_cubes.h"
#include "service/cube/snapshot_files.h"
#include "service/job_runner.h"
#include "service/project/warehouse_registry.h"
#include "storage/metadata_store.h"

namespace tessera::service::cube {

// A publish whose dataset the caller builds (a push publish).
struct CustomPublish {
  // From the rows file recorded now (a path that may not exist: no rows yet).
  std::function<std::shared_ptr<const engine::Dataset>(const std::filesystem::path& rows)> build;
  // Optional: writes the rows behind the built dataset to the new file `rows`.
  std::function<void(const std::filesystem::path& rows)> commit;
  std::function<void(const std::string& error)> finished;  // optional; "" on success
};

struct CubePublisherOptions {
  std::chrono::milliseconds query_timeout{std::chrono::minutes(30)};
  // Fault injection for tests only: runs once a publish has written its files, just before the
  // transaction that records them.
  std::function<void()> before_publish_commit;
};

class CubePublisher {
 public:
  // `jobs` runs the publishes and must outlive them (Stop() ends them); `files` and `served` must
  // outlive this object.
  CubePublisher(storage::MetadataStore& store, project::WarehouseRegistry& warehouses,
                JobRunner& jobs, const SnapshotFiles& files, ServedCubes& served,
                CubePublisherOptions options);
  ~CubePublisher();
  CubePublisher(const CubePublisher&) = delete;
  CubePublisher& operator=(const CubePublisher&) = delete;

  // Before the runner's first Recover(): how abandoned publishes are failed.
  void RegisterJobs();
  // Needs the storage service (throws Error(kStorageUnavailable)).
  void FailStalePublishes();
  void Stop();

  void Publish(const CubeKey& key);
  // False, and nothing started, while a publish of the cube runs.
  bool PublishWith(const CubeKey& key, CustomPublish job);
  // Publishes `keys` in order, in the background.
  void PublishInBackground(std::vector<CubeKey> keys);
  // Blocks until no publish of the cube runs on this node.
  void WaitForPublish(const CubeKey& key);
  // While the cube has no dataset served and its first publish runs or is queued here, waits for
  // that publish to end (or for Stop()); false, at once, if no such publish was.
  bool WaitForFirstPublish(const CubeKey& key);

  CubeStatus Status(const CubeKey& key);
  size_t RunningCount() const;  // publishes running on this node

 private:
  struct Entry {
    bool is_publishing = false;
    bool is_queued = false;                 // PublishInBackground() will publish it
    std::string job_id;                     // of the publish running here
    std::optional<CubeStatus> last_status;  // when the storage service cannot be read
    std::thread worker;
  };

  Entry& EntryFor(const std::string& key);               // with mutex_ held
  const Entry* FindEntry(const std::string& key) const;  // with mutex_ held; null when none
  bool StartPublish(const CubeKey& key, CustomPublish job);
  void PublishQueue(const std::vector<CubeKey>& keys);
  void PublishAndLog(const CubeKey& key, const std::string& position);
  void RunPublish(const CubeKey& key, CustomPublish job);
  // What Status() falls back on while the storage service cannot be read.
  void RememberOutcome(const CubeKey& key, const std::optional<storage::CubeSnapshotRecord>& record,
                       const std::string& error, std::chrono::steady_clock::time_point started);
  void EndPublish(const CubeKey& key);
  // Stores the publish's job with the record marked publishing, in one transaction.
  storage::JobRecord BeginPublish(const CubeKey& key);
  // The job's work: build, write the files, record them (JobContext::MarkDone), serve.
  void PublishJob(JobContext& context, const CubeKey& key, CustomPublish& job);
  // Writes `files` and records them; returns the files recorded before. Removes `files` when
  // they end unrecorded.
  PublishFiles WriteAndRecord(JobContext& context, const CubeKey& key, CustomPublish& job,
                              const PublishFiles& files, const engine::Dataset& dataset,
                              storage::CubeSnapshotRecord& recorded);
  // Records `files` as the cube's; returns the files recorded before.
  PublishFiles CommitPublish(JobContext& context, const CubeKey& key, const PublishFiles& files,
                             const engine::Dataset& dataset, storage::CubeSnapshotRecord& record);
  void FailPublish(storage::MetadataTransaction& tx, const storage::JobRecord& job,
                   const std::string& reason);
  void FailStalePublishesOf(const std::string& project_id);
  std::shared_ptr<const engine::Dataset> BuildFromSource(const CubeKey& key,
                                                         const std::filesystem::path& rows,
                                                         const std::atomic<bool>* cancel);
  bool IsRecorded(const CubeKey& key, const PublishFiles& files);
  // The record's status (or this node's last one when the storage service failed) with the
  // publishes of this node on top.
  CubeStatus StatusOfPublishes(const CubeKey& key,
                               const std::optional<storage::CubeSnapshotRecord>& record,
                               const std::optional<Error>& storage_error) const;

  storage::MetadataStore& store_;
  project::WarehouseRegistry& warehouses_;
  JobRunner& jobs_;
  const SnapshotFiles& files_;
  ServedCubes& served_;
  CubePublisherOptions options_;
  std::atomic<bool> is_stopping_{false};

  mutable std::mutex mutex_;
  std::condition_variable publish_ended_;
  std::map<std::string, std::unique_ptr<Entry>> entries_;  // by CubeKey::text()
  std::vector<std::thread> queue_workers_;                 // of PublishInBackground()
};

}  // namespace tessera::service::cube
