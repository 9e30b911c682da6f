// service/services.h
//
// The application services of one Tessera node, constructed together over one storage service
// and the node's warehouses. app/ owns it; api/ borrows it. Long work -- migrations, cube
// publishes -- runs as jobs of `jobs` (service/job_runner.h), one runner per node.
#pragma once

#include "service/cube/cube_service.h"
#include "service/dashboard/dashboard_service.h"
#include "service/directory_service.h"
#include "service/instance/dataset_definition_service.h"
#include "service/instance/dataset_instance_service.h"
#include "service/instance/instance_store.h"
#include "service/job_runner.h"
#include "service/migration/migration_service.h"
#include "service/migration/shared_file_service.h"
#include "service/migration/storage_location_service.h"
#include "service/object/object_service.h"
#include "service/object/search_service.h"
#include "service/project/project_service.h"
#include "service/push/push_service.h"
#include "service/readiness_monitor.h"
#include "service/session/session_service.h"
#include "storage/metadata_store.h"

namespace tessera::service {

// How a node runs migrations: its jobs, its package location and its identity.
struct MigrationSetup {
  JobRunnerOptions jobs;
  std::filesystem::path packages_dir;  // empty: not configured
  migration::MigrationServiceOptions migrations;
  migration::SharedFileOptions shared_files;
};

// How long /health/ready waits for one warehouse to answer.
inline constexpr std::chrono::milliseconds kHealthProbeTimeout{2000};

struct Services {
  Services(storage::MetadataStore& metadata_store, session::SessionOptions session_options,
           project::WarehouseRegistry& warehouses, cube::CubeServiceOptions cube_options,
           instance::InstanceStoreOptions instance_options = {},
           MigrationSetup migration_setup = {}, push::PushServiceOptions push_options = {})
      : store(metadata_store),
        warehouses(warehouses),
        directory(metadata_store),
        sessions(metadata_store, directory, session_options),
        projects(metadata_store, session_options.cache_ttl),
        objects(metadata_store),
        search(metadata_store),
        cubes(metadata_store, warehouses, jobs, std::move(cube_options)),
        definitions(metadata_store, objects, warehouses, cubes),
        instances(instance_options),
        shared_instances(metadata_store, instances, instance_options.idle_ttl),
        dataset_instances(definitions, instances, shared_instances, nullptr),
        dashboards(objects, definitions, instances, shared_instances),
        push(metadata_store, objects, cubes, push_options),
        storage_location(metadata_store, migration_setup.packages_dir,
                         migration_setup.jobs.node_id),
        readiness(metadata_store, warehouses, storage_location, kHealthProbeTimeout),
        migrations(metadata_store, jobs, storage_location, migration_setup.migrations),
        shared_files(metadata_store, storage_location, migration_setup.shared_files),
        jobs(metadata_store, migration_setup.jobs) {
    cubes.RegisterJobs();
    migrations.RegisterJobs();
  }
  // Cube publishes run on the cube service's threads as jobs of `jobs`: they end first.
  ~Services() {
    notices.reset();
    cubes.Stop();
    jobs.Stop();
  }

  // Starts hearing what other nodes on the storage service change (ended sessions, published
  // cubes, the directory's projects and users), where the storage service sends notices; returns
  // whether it does. Without notices the services check for changes themselves (their contracts say
  // how).
  bool HearOtherNodes() {
    notices = store.Subscribe({session::kSessionNoticeChannel, cube::kCubeNoticeChannel,
                               storage::kDirectoryNoticeChannel},
                              [this](const storage::Notice& notice) {
                                const bool missed = notice.channel.empty();
                                if (missed || notice.channel == session::kSessionNoticeChannel)
                                  sessions.HearNotice(notice);
                                if (missed || notice.channel == cube::kCubeNoticeChannel)
                                  cubes.HearNotice(notice);
                                if (missed || notice.channel == storage::kDirectoryNoticeChannel) {
                                  projects.HearNotice(notice);
                                }
                              });
    cubes.set_hears_notices(notices != nullptr);
    return notices != nullptr;
  }
  Services(const Services&) = delete;
  Services& operator=(const Services&) = delete;

  storage::MetadataStore& store;
  project::WarehouseRegistry& warehouses;
  DirectoryService directory;
  session::SessionService sessions;
  project::ProjectService projects;
  object::ObjectService objects;
  object::SearchService search;
  cube::CubeService cubes;
  instance::DatasetDefinitionService definitions;
  instance::InstanceStore instances;
  instance::SharedInstances shared_instances;
  instance::DatasetInstanceService
      dataset_instances;                   // computes on the compute pool once set_pool()
  dashboard::DashboardService dashboards;  // renders on the compute pool once set_pool()
  push::PushService push;
  migration::StorageLocationService storage_location;
  ReadinessMonitor readiness;  // GET /health/ready
  migration::MigrationService migrations;
  migration::SharedFileService shared_files;
  // Last, so that it is destroyed first: its jobs stop before the services they run on go.
  JobRunner jobs;
  std::unique_ptr<storage::NoticeSubscription> notices;  // reset first by the destructor
};

}  // namespace tessera::service
