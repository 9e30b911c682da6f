#include "fuzz/fuzz_node.h"

#include "model/well_known.h"
#include "service/bundle/demo_loader.h"

namespace tessera::fuzz {
namespace {

namespace fs = std::filesystem;

std::string SqliteUrl(const fs::path& file) { return "sqlite://" + fs::absolute(file).string(); }

service::MigrationSetup MigrationSetupIn(const fs::path& data_dir) {
  service::MigrationSetup setup;
  setup.jobs.node_id = "F0220000000000000000000000000001";
  setup.jobs.workers = 1;
  setup.packages_dir = data_dir / "packages";
  setup.migrations.environment = {"http://127.0.0.1:9/", "http://127.0.0.1:9/"};
  setup.migrations.platform_version = "11.6.0200.0001";
  setup.migrations.max_package_bytes = int64_t{64} << 20;
  setup.migrations.scratch_dir = data_dir / "scratch";
  setup.shared_files.max_file_bytes = int64_t{64} << 20;
  return setup;
}

}  // namespace

FuzzNode::FuzzNode(const FuzzNodeOptions& options) {
  const fs::path& data_dir = options.data_dir;
  for (const char* directory : {"packages", "scratch", "uploads"}) {
    fs::create_directories(data_dir / directory);
  }
  storage::StoreOptions store_options;
  store_options.url = SqliteUrl(data_dir / "metadata.db");
  store_ = storage::MetadataStore::Open(store_options);
  warehouses_ = std::make_unique<service::project::WarehouseRegistry>(
      std::map<std::string, std::string>{{"demo", SqliteUrl(data_dir / "warehouse.db")}});
  service::cube::CubeServiceOptions cube_options;
  cube_options.data_dir = fs::absolute(data_dir);
  service::instance::InstanceStoreOptions instance_options;
  instance_options.result_budget_bytes = size_t{64} << 20;
  services_ = std::make_unique<service::Services>(*store_, service::session::SessionOptions{},
                                                  *warehouses_, cube_options, instance_options,
                                                  MigrationSetupIn(data_dir));
  services_->directory.Bootstrap(std::nullopt);
  if (options.load_demo) LoadDemo(options);

  api::ApiOptions api_options;
  api_options.node_name = "fuzz:0";
  api_ = std::make_unique<api::Api>(*services_, api_options);
  compute_ = std::make_unique<ThreadPool>(options.compute_threads);
  services_->dataset_instances.set_pool(compute_.get());
  services_->dashboards.set_pool(compute_.get());
}

FuzzNode::~FuzzNode() {
  if (compute_) compute_->Shutdown();
  if (services_) services_->jobs.Stop();
}

void FuzzNode::LoadDemo(const FuzzNodeOptions& options) {
  auto administrator = services_->directory.LoadPrincipal(std::string(model::kAdministratorUserId));
  if (!service::bundle::HasNoProject(
          *store_)) {  // a node reopened on files that hold the demo already
    demo_project_id_ = services_->projects.List(administrator, true).front().project.object.id;
    return;
  }
  service::bundle::DemoRequest request;
  request.data.rows = options.demo_rows;
  request.data.seed = 42;
  request.bundle_dir = TESSERA_SOURCE_DIR "/demo/tutorial";
  auto summary =
      service::bundle::LoadDemo(*store_, warehouses_->Get("demo"), request, administrator);
  demo_project_id_ = summary.project_id;
  for (const std::string& cube_id : service::bundle::DemoCubeIds(*store_, demo_project_id_)) {
    services_->cubes.Publish(demo_project_id_, cube_id);
    services_->cubes.WaitForPublish(demo_project_id_, cube_id);
  }
}

}  // namespace tessera::fuzz
