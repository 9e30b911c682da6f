#include "service/cube/snapshot_files.h"

#include <spdlog/spdlog.h>

#include <set>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/ids.h"
#include "core/private_files.h"
#include "core/time.h"
#include "engine/dataset_snapshot.h"
#include "service/cube/cube_record.h"

namespace tessera::service::cube {
namespace {

std::string PublishFile(const CubeKey& key, const std::string& job_id, std::string_view extension) {
  return (std::filesystem::path("cubes") / key.project_id /
          (key.cube_id + "." + job_id + "." + std::string(extension)))
      .generic_string();
}

std::string LegacyRowsFile(const CubeKey& key) {
  return (std::filesystem::path("cubes") / key.project_id / (key.cube_id + ".rows"))
      .generic_string();
}

}  // namespace

SnapshotFiles::SnapshotFiles(storage::MetadataStore& store, std::filesystem::path data_dir,
                             std::filesystem::path cubes_dir)
    : store_(store),
      data_dir_(std::move(data_dir)),
      cubes_dir_(cubes_dir.empty() ? data_dir_ / "cubes" : std::move(cubes_dir)) {}

std::filesystem::path SnapshotFiles::FileOf(const std::string& recorded) const {
  constexpr std::string_view kRecordedDirectory = "cubes/";
  if (recorded.starts_with(kRecordedDirectory)) {
    return cubes_dir_ / recorded.substr(kRecordedDirectory.size());
  }
  return data_dir_ / recorded;
}

PublishFiles SnapshotFiles::FilesOfPublish(const CubeKey& key, const std::string& job_id,
                                           bool writes_rows) {
  return {PublishFile(key, job_id, "tsnap"), writes_rows ? PublishFile(key, job_id, "rows") : ""};
}

std::string SnapshotFiles::RowsFileOf(const CubeKey& key,
                                      const storage::CubeSnapshotRecord& record) {
  return record.rows_file.empty() ? LegacyRowsFile(key) : record.rows_file;
}

std::filesystem::path SnapshotFiles::RowsPathOf(
    const CubeKey& key, const std::optional<storage::CubeSnapshotRecord>& record) const {
  return FileOf(record ? RowsFileOf(key, *record) : LegacyRowsFile(key));
}

std::filesystem::path SnapshotFiles::RecordedSnapshot(const CubeKey& key) const {
  auto record = FindCubeRecord(store_, key.project_id, key.cube_id);
  if (!record || record->snapshot_file.empty()) return {};
  return FileOf(record->snapshot_file);
}

void SnapshotFiles::WriteSnapshot(const std::filesystem::path& path,
                                  const engine::Dataset& dataset) const {
  std::error_code error;
  CreatePrivateDirectories(path.parent_path(), error);
  if (error) {
    throw Error(ErrorCode::kInternal, "cannot create the cube snapshot directory " +
                                          path.parent_path().string() + ": " + error.message());
  }
  engine::WriteDatasetSnapshot(dataset, path);
}

void SnapshotFiles::Remove(const PublishFiles& files) const {
  std::error_code ignored;
  if (!files.snapshot.empty()) std::filesystem::remove(FileOf(files.snapshot), ignored);
  if (!files.rows.empty()) std::filesystem::remove(FileOf(files.rows), ignored);
}

void SnapshotFiles::RemoveFilesOfJob(const CubeKey& key, const std::string& job_id) const {
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

void SnapshotFiles::DropPushedRows(const CubeKey& key) {
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

std::filesystem::path SnapshotFiles::ProjectDirectory(const std::string& project_id) const {
  return cubes_dir_ / project_id;
}

void SnapshotFiles::RemoveLeftovers() {
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(cubes_dir_, error)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_directory() && CanonicalObjectId(name) == name) RemoveLeftoversOfProject(name);
  }
}

void SnapshotFiles::RemoveLeftoversOfProject(const std::string& project_id) {
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

}  // namespace tessera::service::cube
