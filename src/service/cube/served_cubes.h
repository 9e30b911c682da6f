// service/cube/served_cubes.h
//
// The datasets this node serves, one per cube: the dataset of the snapshot its record names
// (service/cube/snapshot_files.h), held in memory with its roll-ups (service/cube/rollup_grains.h).
//
// Contract:
//   - Get() returns the dataset served, loading it from its snapshot on first use after a
//     restart (never re-querying the warehouse); null when the cube was never published. A
//     snapshot that cannot be read is Error(kInternal) saying so and asking for a new publish.
//     One snapshot of a cube loads at a time, and a load that a publish overtakes serves the
//     publish's dataset instead.
//   - Get() of a cube that has no dataset yet while its first publish runs (or waits its turn) on
//     this node waits for that publish to end (`wait_for_first_publish`), so a request never
//     fails only because it came early.
//   - A publish on this node serves its dataset as soon as it is recorded (Install()).
//   - A node serves the dataset it published or loaded until it learns of a newer publish: at
//     once from the notice the publish sends (HearNotice(), on backends with notices), otherwise
//     by reading the record again when its dataset was last checked more than
//     `version_check_interval` ago. While the newer snapshot cannot be read, the dataset it has
//     stays served. An instance keeps the dataset it was created on (it holds it), whatever is
//     published later.
//   - GetAt() gives the version read from `snapshot_file`: the one served, or the one it replaced
//     (its record keeps that until the next publish), read once while instances hold it;
//     Error(kNotFound) saying so for an older one.
//   - Every dataset served (published or loaded) has its roll-ups, built before it is served;
//     RollupsOf() gives those of a dataset served now, null for any other (an older version, a
//     report's rows): such a dataset answers from itself alone.
//   - Thread-safe. Its mutex guards its own state alone and is never held while it calls out
//     (the storage service, a snapshot read, `wait_for_first_publish`): a caller may hold a lock
//     of its own while it calls IsServed(), Install() or any other method but Get(), GetVersion()
//     and GetAt(), which load. A cube's load lock is held across a load, the wait for a first
//     publish included, so what that wait locks must never wait for a load.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "engine/dataset.h"
#include "engine/rollup_set.h"
#include "service/cube/cube_key.h"
#include "service/cube/cube_record.h"
#include "service/cube/snapshot_files.h"
#include "storage/change_notices.h"
#include "storage/metadata_store.h"

namespace tessera::service::cube {

// A version of a cube: its dataset and the snapshot file it was read from.
struct CubeVersion {
  std::shared_ptr<const engine::Dataset> dataset;  // null: never published
  std::string snapshot_file;
};

// What the datasets served hold in memory.
struct ServedMemory {
  size_t datasets = 0;
  size_t bytes = 0;
  size_t rollup_bytes = 0;  // the size of their roll-ups, on top of `bytes`
};

class ServedCubes {
 public:
  // Waits while the cube's first publish runs or waits its turn on this node; false, at once, if
  // none does.
  using FirstPublishWait = std::function<bool(const CubeKey& key)>;

  // `files` must outlive this object.
  ServedCubes(storage::MetadataStore& store, const SnapshotFiles& files,
              std::chrono::milliseconds version_check_interval,
              FirstPublishWait wait_for_first_publish);
  ServedCubes(const ServedCubes&) = delete;
  ServedCubes& operator=(const ServedCubes&) = delete;

  std::shared_ptr<const engine::Dataset> Get(const CubeKey& key);
  // The version Get() serves.
  CubeVersion GetVersion(const CubeKey& key);
  // The record that keeps the replaced version is read by the ids as the caller gave them.
  std::shared_ptr<const engine::Dataset> GetAt(const std::string& project_id,
                                               const std::string& cube_id,
                                               const std::string& snapshot_file);

  // Serves `dataset`, which a publish on this node has just recorded as `snapshot_file`.
  void Install(const CubeKey& key, std::shared_ptr<const engine::Dataset> dataset,
               std::shared_ptr<const engine::RollupSet> rollups, const std::string& snapshot_file);
  bool IsServed(const CubeKey& key) const;
  // When the cube's dataset is in memory: `status` takes its figures (rows, sizes, is_loaded).
  void AddServedFigures(const CubeKey& key, CubeStatus& status) const;

  // Bytes held by the datasets this node serves.
  size_t LoadedBytes() const;
  ServedMemory Memory() const;
  // The roll-ups of `dataset` when it is the dataset of a cube served now; else null.
  std::shared_ptr<const engine::RollupSet> RollupsOf(const engine::Dataset& dataset) const;

  // A notice on kCubeNoticeChannel (or a "may have missed notices" one): the cubes it names are
  // checked against their records on their next Get().
  void HearNotice(const storage::Notice& notice);
  // Whether notices reach this node; without them Get() checks records on a timer.
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
    // The replaced version GetAt() last read, while instances hold it.
    std::string superseded_file;
    std::weak_ptr<const engine::Dataset> superseded;
    std::mutex load_mutex;  // one snapshot load at a time per cube
  };

  Entry& EntryFor(const std::string& key);               // with mutex_ held
  const Entry* FindEntry(const std::string& key) const;  // with mutex_ held; null when none
  // With mutex_ held.
  void InstallLocked(Entry& entry, std::shared_ptr<const engine::Dataset> dataset,
                     std::shared_ptr<const engine::RollupSet> rollups,
                     const std::string& snapshot_file);
  bool IsCurrent(const Entry& entry) const;  // mutex_ held
  void MarkChecked(Entry& entry);            // mutex_ held
  // With entry.load_mutex held.
  std::shared_ptr<const engine::Dataset> LoadSnapshot(const CubeKey& key, Entry& entry);
  // The replaced version the record keeps, when it is `snapshot_file` and can be read; else null.
  std::shared_ptr<const engine::Dataset> ReadReplacedVersion(const std::string& project_id,
                                                             const std::string& cube_id,
                                                             const std::string& snapshot_file);

  storage::MetadataStore& store_;
  const SnapshotFiles& files_;
  const std::chrono::milliseconds version_check_interval_;
  const FirstPublishWait wait_for_first_publish_;
  std::atomic<bool> hears_notices_{false};

  mutable std::mutex mutex_;
  std::map<std::string, std::unique_ptr<Entry>> entries_;  // by CubeKey::text()
  size_t loaded_bytes_ = 0;
  size_t rollup_bytes_ = 0;
};

}  // namespace tessera::service::cube
