// service/cube/cube_service.h
//
// The published cubes of one node, as callers use them: one service made of three parts, each of
// which states its own contract, and forwarding to them:
//   - service/cube/cube_publisher.h: publishing a cube as a job of the node's JobRunner, all or
//     nothing; the publishes of PublishInBackground(); Status(); Stop().
//   - service/cube/served_cubes.h: the datasets this node serves and their roll-ups, loaded from
//     snapshots, kept current by notices or a timer, and the versions instances were made on.
//   - service/cube/snapshot_files.h: where a cube's files live and what they are named, shared
//     by the nodes of one storage service; what interrupted publishes leave.
// A cube's record in the storage service and the status it reads as: service/cube/cube_record.h.
//
// Contract:
//   - Every call that names a cube checks its ids first: Error(kInvalidInput) for a malformed
//     one (service/cube/cube_key.h). Refresh() is Publish() again.
//   - RemoveLeftovers(), at start after the job runner's first Recover(), fails the records left
//     "publishing" without a running job (CubePublisher::FailStalePublishes()), then removes the
//     files no record names and no running publish is writing (SnapshotFiles::RemoveLeftovers()).
//   - Loaded() is what the datasets served hold, with the publishes running here.
//   - Thread-safe. The parts take their locks in one order -- a cube's snapshot load, then the
//     publisher's, then the served datasets' (cube_publisher.h says where) -- so no cycle of
//     waits can form.
#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/dataset.h"
#include "engine/rollup_set.h"
#include "service/cube/cube_key.h"
#include "service/cube/cube_publisher.h"
#include "service/cube/cube_record.h"
#include "service/cube/served_cubes.h"
#include "service/cube/snapshot_files.h"
#include "service/job_runner.h"
#include "service/project/warehouse_registry.h"
#include "storage/metadata_store.h"

namespace tessera::service::cube {

struct CubeServiceOptions {
  std::filesystem::path data_dir;   // where records written before `cubes_dir` existed point
  std::filesystem::path cubes_dir;  // snapshots and rows files; empty: data_dir/cubes
  std::chrono::milliseconds version_check_interval{1000};  // without notices
  std::chrono::milliseconds query_timeout{std::chrono::minutes(30)};
  // Fault injection for tests only: runs once a publish has written its files, just before the
  // transaction that records them.
  std::function<void()> before_publish_commit;
};

class CubeService {
 public:
  // A cube of a project, by canonical ids (safe in file names).
  using CubeKey = ::tessera::service::cube::CubeKey;

  // `jobs` runs the publishes and must outlive this service's publishes (Stop() ends them).
  CubeService(storage::MetadataStore& store, project::WarehouseRegistry& warehouses,
              JobRunner& jobs, CubeServiceOptions options);
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
  using Version = CubeVersion;
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
  void set_hears_notices(bool hears) { served_.set_hears_notices(hears); }

 private:
  // In this order: each part borrows the ones before it, and the publisher stops first.
  SnapshotFiles files_;
  ServedCubes served_;
  CubePublisher publisher_;
};

}  // namespace tessera::service::cube
