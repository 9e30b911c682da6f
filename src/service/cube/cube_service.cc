#include "service/cube/cube_service.h"

#include <utility>

namespace tessera::service::cube {
namespace {

CubePublisherOptions PublisherOptionsOf(const CubeServiceOptions& options) {
  CubePublisherOptions publisher;
  publisher.query_timeout = options.query_timeout;
  publisher.before_publish_commit = options.before_publish_commit;
  return publisher;
}

}  // namespace

CubeService::CubeService(storage::MetadataStore& store, project::WarehouseRegistry& warehouses,
                         JobRunner& jobs, CubeServiceOptions options)
    : files_(store, options.data_dir, options.cubes_dir),
      served_(store, files_, options.version_check_interval,
              [this](const CubeKey& key) { return publisher_.WaitForFirstPublish(key); }),
      publisher_(store, warehouses, jobs, files_, served_, PublisherOptionsOf(options)) {}

CubeService::~CubeService() { Stop(); }

void CubeService::RegisterJobs() { publisher_.RegisterJobs(); }

void CubeService::RemoveLeftovers() {
  publisher_.FailStalePublishes();
  files_.RemoveLeftovers();
}

void CubeService::Stop() { publisher_.Stop(); }

void CubeService::Publish(const std::string& project_id, const std::string& cube_id) {
  publisher_.Publish(CubeKeyOf(project_id, cube_id));
}

bool CubeService::PublishWith(const std::string& project_id, const std::string& cube_id,
                              CustomPublish job) {
  return publisher_.PublishWith(CubeKeyOf(project_id, cube_id), std::move(job));
}

void CubeService::PublishInBackground(const std::string& project_id,
                                      std::vector<std::string> cube_ids) {
  std::vector<CubeKey> keys;
  for (const auto& cube_id : cube_ids) keys.push_back(CubeKeyOf(project_id, cube_id));
  publisher_.PublishInBackground(std::move(keys));
}

void CubeService::WaitForPublish(const std::string& project_id, const std::string& cube_id) {
  publisher_.WaitForPublish(CubeKeyOf(project_id, cube_id));
}

CubeStatus CubeService::Status(const std::string& project_id, const std::string& cube_id) {
  return publisher_.Status(CubeKeyOf(project_id, cube_id));
}

std::shared_ptr<const engine::Dataset> CubeService::Get(const std::string& project_id,
                                                        const std::string& cube_id) {
  return served_.Get(CubeKeyOf(project_id, cube_id));
}

CubeService::Version CubeService::GetVersion(const std::string& project_id,
                                             const std::string& cube_id) {
  return served_.GetVersion(CubeKeyOf(project_id, cube_id));
}

std::shared_ptr<const engine::Dataset> CubeService::GetAt(const std::string& project_id,
                                                          const std::string& cube_id,
                                                          const std::string& snapshot_file) {
  return served_.GetAt(project_id, cube_id, snapshot_file);
}

size_t CubeService::LoadedBytes() const { return served_.LoadedBytes(); }

std::shared_ptr<const engine::RollupSet> CubeService::RollupsOf(
    const engine::Dataset& dataset) const {
  return served_.RollupsOf(dataset);
}

CubeService::LoadedCubes CubeService::Loaded() const {
  const ServedMemory memory = served_.Memory();
  LoadedCubes loaded;
  loaded.cubes = memory.datasets;
  loaded.bytes = memory.bytes;
  loaded.rollup_bytes = memory.rollup_bytes;
  loaded.publishing = publisher_.RunningCount();
  return loaded;
}

std::filesystem::path CubeService::SnapshotPath(const std::string& project_id,
                                                const std::string& cube_id) {
  return files_.RecordedSnapshot(CubeKeyOf(project_id, cube_id));
}

void CubeService::DropPushedRows(const std::string& project_id, const std::string& cube_id) {
  files_.DropPushedRows(CubeKeyOf(project_id, cube_id));
}

void CubeService::HearNotice(const storage::Notice& notice) { served_.HearNotice(notice); }

}  // namespace tessera::service::cube
