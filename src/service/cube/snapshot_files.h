// service/cube/snapshot_files.h
//
// Where a node keeps the files of its cubes: each published dataset's snapshot
// (engine/dataset_snapshot.h) and a pushed dataset's rows file (engine/push/pushed_rows_file.h),
// under `cubes_dir` (default <data_dir>/cubes), which the nodes of one storage service share, so
// any node loads a cube another node published. A record names a file "cubes/<project id>/<file>"
// whatever `cubes_dir` is; a name outside "cubes/" (written before `cubes_dir` existed) is a file
// under `data_dir`.
//
// Contract:
//   - The files of a publish are named by its job, cubes/<project id>/<cube id>.<job id>.tsnap
//     and .rows, so no two publishes ever write the same file. A record that names no rows file
//     has the one of releases before publish jobs, cubes/<project id>/<cube id>.rows.
//   - WriteSnapshot() leaves the snapshot and the directories it creates to the server's user
//     alone; Error(kInternal) saying which directory when it cannot create one.
//   - Removing files never throws: a file that cannot be removed stays.
//   - RemoveLeftovers() removes from every project's directory every file no record names (as
//     its snapshot, its rows file or the previous snapshot it keeps) and no running publish of any
//     node is writing: temporary files and snapshots of interrupted publishes.
//   - DropPushedRows() forgets the rows recorded for a pushed dataset (a replaced model starts
//     without rows) and removes their file; the dataset served stays served.
//   - RecordedSnapshot(), DropPushedRows() and RemoveLeftovers() read the storage service and
//     throw what it throws (Error(kStorageUnavailable)).
//   - Thread-safe: it keeps no state but where its directories are.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "engine/dataset.h"
#include "service/cube/cube_key.h"
#include "storage/metadata_store.h"

namespace tessera::service::cube {

// The files one publish writes, as records name them.
struct PublishFiles {
  std::string snapshot;
  std::string rows;  // empty unless the publish writes rows
};

class SnapshotFiles {
 public:
  SnapshotFiles(storage::MetadataStore& store, std::filesystem::path data_dir,
                std::filesystem::path cubes_dir);

  // The file a record names, on this node.
  std::filesystem::path FileOf(const std::string& recorded) const;
  static PublishFiles FilesOfPublish(const CubeKey& key, const std::string& job_id,
                                     bool writes_rows);
  // The rows file `record` names, as records name files.
  static std::string RowsFileOf(const CubeKey& key, const storage::CubeSnapshotRecord& record);
  // The rows file `record` names on this node (a path that may not exist: no rows yet).
  std::filesystem::path RowsPathOf(const CubeKey& key,
                                   const std::optional<storage::CubeSnapshotRecord>& record) const;
  // The snapshot file the storage service records for the cube, on this node; empty when none.
  std::filesystem::path RecordedSnapshot(const CubeKey& key) const;

  void WriteSnapshot(const std::filesystem::path& path, const engine::Dataset& dataset) const;
  void Remove(const PublishFiles& files) const;
  // What the publish `job_id` wrote here, temporary files included.
  void RemoveFilesOfJob(const CubeKey& key, const std::string& job_id) const;

  void DropPushedRows(const CubeKey& key);
  void RemoveLeftovers();

 private:
  std::filesystem::path ProjectDirectory(const std::string& project_id) const;
  void RemoveLeftoversOfProject(const std::string& project_id);

  storage::MetadataStore& store_;
  std::filesystem::path data_dir_;
  std::filesystem::path cubes_dir_;
};

}  // namespace tessera::service::cube
