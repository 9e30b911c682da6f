#include "service/cube/served_cubes.h"

#include <spdlog/spdlog.h>

#include <utility>

#include "core/error.h"
#include "engine/dataset_snapshot.h"
#include "service/cube/rollup_grains.h"

namespace tessera::service::cube {

ServedCubes::ServedCubes(storage::MetadataStore& store, const SnapshotFiles& files,
                         std::chrono::milliseconds version_check_interval,
                         FirstPublishWait wait_for_first_publish)
    : store_(store),
      files_(files),
      version_check_interval_(version_check_interval),
      wait_for_first_publish_(std::move(wait_for_first_publish)) {}

ServedCubes::Entry& ServedCubes::EntryFor(const std::string& key) {
  auto& entry = entries_[key];
  if (!entry) entry = std::make_unique<Entry>();
  return *entry;
}

const ServedCubes::Entry* ServedCubes::FindEntry(const std::string& key) const {
  auto it = entries_.find(key);
  return it == entries_.end() ? nullptr : it->second.get();
}

std::shared_ptr<const engine::Dataset> ServedCubes::Get(const CubeKey& key) {
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
    MarkChecked(*entry);
    return served;
  }
}

CubeVersion ServedCubes::GetVersion(const CubeKey& key) {
  Get(key);
  std::lock_guard lock(mutex_);
  const Entry& entry = EntryFor(key.text());
  return {entry.dataset, entry.snapshot_file};
}

std::shared_ptr<const engine::Dataset> ServedCubes::GetAt(const std::string& project_id,
                                                          const std::string& cube_id,
                                                          const std::string& snapshot_file) {
  const CubeKey key = CubeKeyOf(project_id, cube_id);
  CubeVersion served = GetVersion(key);
  if (served.dataset && served.snapshot_file == snapshot_file) return served.dataset;
  Entry* entry = nullptr;
  {
    std::lock_guard lock(mutex_);
    entry = &EntryFor(key.text());
    if (entry->superseded_file == snapshot_file) {
      if (auto kept = entry->superseded.lock()) return kept;
    }
  }
  std::lock_guard load(entry->load_mutex);
  std::shared_ptr<const engine::Dataset> dataset =
      ReadReplacedVersion(project_id, cube_id, snapshot_file);
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

std::shared_ptr<const engine::Dataset> ServedCubes::ReadReplacedVersion(
    const std::string& project_id, const std::string& cube_id, const std::string& snapshot_file) {
  auto record = FindCubeRecord(store_, project_id, cube_id);
  if (!record || record->previous_snapshot_file != snapshot_file) return nullptr;
  try {
    return engine::ReadDatasetSnapshot(files_.FileOf(snapshot_file));
  } catch (const Error&) {
    return nullptr;  // replaced again meanwhile
  }
}

std::shared_ptr<const engine::Dataset> ServedCubes::LoadSnapshot(const CubeKey& key, Entry& entry) {
  // A publish that commits while the snapshot loads removes the file the record named: the
  // record is read again then, and names the new one.
  for (int attempt = 1;; ++attempt) {
    uint64_t generation = 0;
    {
      std::lock_guard lock(mutex_);
      generation = entry.generation;
    }
    auto record = FindCubeRecord(store_, key.project_id, key.cube_id);
    {
      std::lock_guard lock(mutex_);
      if (entry.generation != generation) return entry.dataset;  // a publish here installed it
      bool still_recorded = entry.dataset && (!record || record->snapshot_file.empty() ||
                                              record->snapshot_file == entry.snapshot_file);
      if (still_recorded) {
        MarkChecked(entry);
        return entry.dataset;
      }
    }
    if (!record || record->snapshot_file.empty()) {
      if (!wait_for_first_publish_(key)) return nullptr;
      std::lock_guard lock(mutex_);
      return entry.dataset;
    }
    std::shared_ptr<const engine::Dataset> dataset;
    try {
      dataset = engine::ReadDatasetSnapshot(files_.FileOf(record->snapshot_file));
    } catch (const Error& e) {
      auto now = FindCubeRecord(store_, key.project_id, key.cube_id);
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
      InstallLocked(entry, std::move(dataset), std::move(rollups), record->snapshot_file);
    }
    return entry.dataset;
  }
}

void ServedCubes::Install(const CubeKey& key, std::shared_ptr<const engine::Dataset> dataset,
                          std::shared_ptr<const engine::RollupSet> rollups,
                          const std::string& snapshot_file) {
  std::lock_guard lock(mutex_);
  InstallLocked(EntryFor(key.text()), std::move(dataset), std::move(rollups), snapshot_file);
}

void ServedCubes::InstallLocked(Entry& entry, std::shared_ptr<const engine::Dataset> dataset,
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
  MarkChecked(entry);
  ++entry.generation;
}

bool ServedCubes::IsCurrent(const Entry& entry) const {
  if (!entry.dataset || entry.may_be_stale) return false;
  return hears_notices_ ||
         std::chrono::steady_clock::now() - entry.checked_at < version_check_interval_;
}

void ServedCubes::MarkChecked(Entry& entry) {
  entry.checked_at = std::chrono::steady_clock::now();
  entry.may_be_stale = false;
}

bool ServedCubes::IsServed(const CubeKey& key) const {
  std::lock_guard lock(mutex_);
  const Entry* entry = FindEntry(key.text());
  return entry && entry->dataset;
}

void ServedCubes::AddServedFigures(const CubeKey& key, CubeStatus& status) const {
  std::lock_guard lock(mutex_);
  const Entry* entry = FindEntry(key.text());
  if (!entry || !entry->dataset) return;
  status.is_loaded = true;
  status.memory_bytes = entry->dataset_bytes;
  status.rows = entry->dataset->row_count();
  status.raw_bytes = entry->dataset->RawBytes();
}

size_t ServedCubes::LoadedBytes() const {
  std::lock_guard lock(mutex_);
  return loaded_bytes_;
}

ServedMemory ServedCubes::Memory() const {
  std::lock_guard lock(mutex_);
  ServedMemory memory;
  memory.bytes = loaded_bytes_;
  memory.rollup_bytes = rollup_bytes_;
  for (const auto& [key, entry] : entries_) {
    if (entry->dataset) ++memory.datasets;
  }
  return memory;
}

std::shared_ptr<const engine::RollupSet> ServedCubes::RollupsOf(
    const engine::Dataset& dataset) const {
  std::lock_guard lock(mutex_);
  for (const auto& [key, entry] : entries_) {
    if (entry->dataset.get() == &dataset) return entry->rollups;
  }
  return nullptr;
}

void ServedCubes::HearNotice(const storage::Notice& notice) {
  std::lock_guard lock(mutex_);
  if (notice.channel.empty()) {
    for (auto& [key, entry] : entries_) entry->may_be_stale = true;
    return;
  }
  auto it = entries_.find(notice.payload);
  if (it != entries_.end()) it->second->may_be_stale = true;
}

}  // namespace tessera::service::cube
