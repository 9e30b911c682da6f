#include "app/node.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <unistd.h>

#include "api/api.h"
#include "app/data_directory.h"
#include "app/demo_bundle_dir.h"
#include "app/node_metrics.h"
#include "app/web_app.h"
#include "app/web_dir.h"
#include "core/error.h"
#include "core/ids.h"
#include "core/private_files.h"
#include "core/thread_pool.h"
#include "core/version.h"
#include "http/server.h"
#include "model/bundle/bundle.h"
#include "model/well_known.h"
#include "service/bundle/demo_loader.h"
#include "service/project/warehouse_registry.h"
#include "service/services.h"
#include "storage/metadata_store.h"

namespace tessera::app {

// Destroyed in reverse order: the services (whose cube publishes use the warehouses) before the
// warehouses, and both before the store.
struct Node::Parts {
  std::unique_ptr<storage::MetadataStore> store;
  std::unique_ptr<service::project::WarehouseRegistry> warehouses;
  std::unique_ptr<service::Services> services;
  std::unique_ptr<api::Api> api;
  std::unique_ptr<WebApp> web;
  std::unique_ptr<ThreadPool> compute;
  std::unique_ptr<ThreadPool> metadata;
  http::ExchangeMetrics exchanges;
  std::unique_ptr<http::Server> server;
};

void CheckServable(const Config& config) {
  if (!config.is_loopback() && !config.admin_password) {
    throw std::runtime_error(
        "refusing to listen on " + config.listen +
        " without an administrator password: the demo administrator has an empty password, "
        "which is allowed only on loopback. Set --admin-password or TESSERA_ADMIN_PASSWORD.");
  }
}

Node::Node(Config config) : config_(std::move(config)), parts_(std::make_unique<Parts>()) {}

Node::~Node() { Stop(); }

void Node::EnsureBootstrapped() {
  if (bootstrapped_.load()) return;
  std::lock_guard lock(bootstrap_mutex_);
  if (bootstrapped_.load()) return;
  try {
    parts_->services->directory.Bootstrap(config_.admin_password);
    bootstrapped_ = true;
  } catch (const Error& e) {
    spdlog::warn("storage service not ready; metadata bootstrap postponed: {}", e.message());
  }
}

void Node::LoadDemoOnFirstStart() {
  try {
    if (!service::bundle::HasNoProject(*parts_->store)) return;
    const DemoBundleSearch bundle = FindDemoBundle(config_, ExecutablePath());
    if (bundle.dir.empty()) {
      spdlog::warn("{}. The server starts without the demo project.", bundle.problem);
      return;
    }
    spdlog::info("first start: generating the demo warehouse ({} rows) and the Tutorial project",
                 config_.demo_rows);
    service::bundle::DemoRequest request;
    request.data.rows = config_.demo_rows;
    request.data.seed = config_.demo_seed;
    request.bundle_dir = bundle.dir;
    auto administrator =
        parts_->services->directory.LoadPrincipal(std::string(model::kAdministratorUserId));
    auto summary = service::bundle::LoadDemo(*parts_->store, parts_->warehouses->Get("demo"),
                                             request, administrator);
    spdlog::info("demo project '{}' loaded ({} objects); its cubes publish in the background",
                 summary.project_name, summary.created);
    parts_->services->cubes.PublishInBackground(
        summary.project_id, service::bundle::DemoCubeIds(*parts_->store, summary.project_id));
  } catch (const model::bundle::BundleError& e) {
    spdlog::error("the demo bundle is broken; the server starts without it: {}",
                  e.problems().empty() ? "" : e.problems().front());
  } catch (const Error& e) {
    spdlog::error("could not load the demo project; the server starts without it: {}", e.message());
  }
}

namespace {

// The id this node's jobs carry, kept in the data directory so a restarted node knows its own
// interrupted jobs.
std::string NodeId(const std::filesystem::path& data_dir) {
  std::filesystem::path file = data_dir / "node-id";
  std::ifstream in(file);
  std::string id;
  if (in >> id && IsObjectId(id)) return id;
  id = NewObjectId();
  CreatePrivateFile(file);
  std::ofstream(file) << id << '\n';
  return id;
}

// How the cluster monitors name this node: its host name and port.
std::string NodeName(const Config& config) {
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0 || host[0] == '\0') return config.listen;
  return std::string(host) + ":" + std::to_string(config.port());
}

// Fault injection for tests that kill the process in the middle of a job, never set in
// production: when `variable` holds a number of milliseconds, a hook that waits that long (and
// logs "fault injection: <work> waits <n> ms before its commit").
std::function<void()> CommitDelayFromEnvironment(const char* variable, std::string work) {
  const char* value = std::getenv(variable);
  if (value == nullptr) return nullptr;
  auto delay = std::chrono::milliseconds(std::strtoll(value, nullptr, 10));
  return [delay, work = std::move(work)] {
    spdlog::warn("fault injection: {} waits {} ms before its commit", work, delay.count());
    std::this_thread::sleep_for(delay);
  };
}

// Threads answering the calls that do not compute on data (sessions, objects, searches...).
constexpr int kMetadataThreads = 2;

// Room for a multipart upload's delimiters and part headers around a package of the size limit.
constexpr uint64_t kMultipartOverheadBytes = 1 << 20;

// A working directory of this node under its data directory, emptied of what a stopped or
// killed node left there (only this node writes it): "uploads", where the server spools large
// request bodies, and "scratch", where migration jobs keep what they track per object.
std::filesystem::path EmptyWorkDirectory(const std::filesystem::path& data_dir,
                                         std::string_view name) {
  std::filesystem::path directory = data_dir / name;
  CreatePrivateDirectories(directory);
  for (const auto& entry : std::filesystem::directory_iterator(directory)) {
    std::error_code ignored;
    std::filesystem::remove_all(entry.path(), ignored);
  }
  return directory;
}

}  // namespace

void Node::RecoverJobs() {
  try {
    int failed = parts_->services->jobs.Recover();
    if (failed > 0) spdlog::warn("{} interrupted job(s) marked failed", failed);
    jobs_recovered_ = true;
  } catch (const Error& e) {
    spdlog::warn("could not recover interrupted jobs yet: {}", e.message());
  }
}

void Node::RemoveLeftovers() {
  // A publish this node ran before it restarted is failed first, so its files are left over.
  if (leftovers_removed_ || !jobs_recovered_) return;
  try {
    parts_->services->cubes.RemoveLeftovers();
    leftovers_removed_ = true;
  } catch (const Error& e) {
    spdlog::warn("could not look for files left by interrupted publishes yet: {}", e.message());
    return;
  }
  try {
    int removed = parts_->services->storage_location.Require().RemoveTemporaryFilesOfWriter();
    if (removed > 0) {
      spdlog::info("removed {} temporary file(s) this node left in the package location", removed);
    }
  } catch (const Error&) {  // no package location now: nothing of this node's to look for
  }
}

void Node::MaintenanceLoop() {
  auto next_purge = std::chrono::steady_clock::now();
  std::unique_lock lock(stop_mutex_);
  while (!stopping_) {
    stop_signal_.wait_for(lock, std::chrono::seconds(1));
    if (stopping_) break;
    lock.unlock();
    EnsureBootstrapped();
    RecoverJobs();
    RemoveLeftovers();
    if (bootstrapped_ && std::chrono::steady_clock::now() >= next_purge) {
      try {
        parts_->services->sessions.PurgeExpired();
      } catch (const Error& e) {
        spdlog::warn("could not purge expired sessions: {}", e.message());
      }
      next_purge = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    }
    lock.lock();
  }
}

namespace {

service::session::SessionOptions SessionOptionsOf(const Config& config) {
  service::session::SessionOptions options;
  options.idle_timeout_seconds = config.session_idle_timeout_seconds;
  options.throttle.max_failures_per_user = config.max_failed_logins;
  options.throttle.max_failures_per_address = config.max_failed_logins_per_address;
  options.throttle.lockout_seconds = config.lockout_seconds;
  return options;
}

service::cube::CubeServiceOptions CubeOptionsOf(const Config& config) {
  service::cube::CubeServiceOptions options;
  options.data_dir = std::filesystem::absolute(config.data_dir);
  options.cubes_dir = config.ResolvedCubesDir();
  // Each waits with its work done and its outcome not yet recorded (the import's transaction
  // open with every change applied).
  options.before_publish_commit =
      CommitDelayFromEnvironment("TESSERA_FAULT_CUBE_PUBLISH_DELAY_MS", "the cube publish");
  return options;
}

service::instance::InstanceStoreOptions InstanceOptionsOf(const Config& config) {
  service::instance::InstanceStoreOptions options;
  options.result_budget_bytes = static_cast<size_t>(config.instance_result_budget_mb) << 20;
  return options;
}

service::push::PushServiceOptions PushOptionsOf(const Config& config) {
  service::push::PushServiceOptions options;
  options.session_ttl = std::chrono::seconds(config.upload_session_ttl_seconds);
  options.parse_ahead_bytes = static_cast<size_t>(config.upload_parse_ahead_mb) << 20;
  return options;
}

service::MigrationSetup MigrationSetupOf(const Config& config) {
  service::MigrationSetup setup;
  setup.jobs.node_id = NodeId(config.data_dir);
  setup.jobs.workers = config.migration_workers;
  setup.jobs.lease = std::chrono::seconds(config.job_lease_seconds);
  setup.packages_dir = config.ResolvedPackagesDir();
  if (!setup.packages_dir.empty()) CreatePrivateDirectories(setup.packages_dir);
  setup.migrations.environment = {config.ResolvedPublicUrl(), config.ResolvedPublicUrl()};
  setup.migrations.platform_version = config.reported_version;
  setup.migrations.max_package_bytes = config.max_package_bytes;
  setup.migrations.scratch_dir = EmptyWorkDirectory(config.data_dir, "scratch");
  setup.shared_files.max_file_bytes = config.max_package_bytes;
  setup.migrations.before_import_commit =
      CommitDelayFromEnvironment("TESSERA_FAULT_IMPORT_COMMIT_DELAY_MS", "the import");
  setup.migrations.before_creation_commit =
      CommitDelayFromEnvironment("TESSERA_FAULT_CREATION_COMMIT_DELAY_MS", "the package creation");
  setup.migrations.target_silence = std::chrono::seconds(config.migration_target_silence_seconds);
  return setup;
}

api::ApiOptions ApiOptionsOf(const Config& config) {
  api::ApiOptions options;
  options.context_path = config.context_path;
  options.version = config.reported_version;
  options.async_instance_after = std::chrono::milliseconds(config.instance_async_after_ms);
  options.node_name = NodeName(config);
  options.tessera_version = std::string(TesseraVersion());
  options.metrics_token = config.metrics_token;
  options.max_request_body_bytes = config.max_request_body_bytes;
  options.max_upload_body_bytes = config.max_body_bytes;
  // Uploads of packages, and migration bodies whose content list grows with the package.
  options.max_spooled_body_bytes =
      std::max(config.max_body_bytes,
               static_cast<uint64_t>(config.max_package_bytes) + kMultipartOverheadBytes);
  return options;
}

http::ServerOptions ServerOptionsOf(const Config& config) {
  http::ServerOptions options;
  options.host = config.host();
  options.port = config.port();
  options.io_threads = config.io_threads;
  options.max_body_bytes = config.max_body_bytes;
  options.read_timeout = std::chrono::seconds(config.read_timeout_seconds);
  options.idle_timeout = std::chrono::seconds(config.idle_timeout_seconds);
  options.access_log = config.access_log;
  options.spool_dir = EmptyWorkDirectory(config.data_dir, "uploads").string();
  options.max_connections = static_cast<size_t>(config.max_connections);
  options.max_connections_per_address = static_cast<size_t>(config.max_connections_per_address);
  options.trusted_proxies = config.trusted_proxies;
  return options;
}

}  // namespace

void Node::Start() {
  CheckServable(config_);
  OpenStorage();
  OpenWarehouses();
  CreateServices();
  ListenForNotices();
  RecoverFromPreviousRun();
  BootstrapOnFirstStart();
  StartApi();
  StartWebApp();
  StartPools();
  SetUpComputations();
  StartServer();
  StartMaintenance();
  spdlog::info("Tessera listening on {}:{} (storage: {})", config_.host(), port(),
               parts_->store->backend_name());
}

void Node::OpenStorage() {
  if (CreateDataDirectory(config_)) {
    spdlog::info("created the data directory {}", DataDirectoryPath(config_));
  }
  storage::StoreOptions store_options;
  store_options.url = config_.ResolvedStorageUrl();
  parts_->store = storage::MetadataStore::Open(store_options);
}

// The configured warehouses and the demo's.
void Node::OpenWarehouses() {
  std::map<std::string, std::string> warehouse_urls = config_.warehouses;
  warehouse_urls.emplace("demo", config_.WarehouseUrl("demo"));
  parts_->warehouses = std::make_unique<service::project::WarehouseRegistry>(warehouse_urls);
}

void Node::CreateServices() {
  parts_->services = std::make_unique<service::Services>(
      *parts_->store, SessionOptionsOf(config_), *parts_->warehouses, CubeOptionsOf(config_),
      InstanceOptionsOf(config_), MigrationSetupOf(config_), PushOptionsOf(config_));
}

// Other nodes' changes (ended sessions, published cubes) arrive as notices where the storage
// service sends them; elsewhere the services look for changes themselves.
void Node::ListenForNotices() {
  if (parts_->services->HearOtherNodes()) {
    spdlog::info("hearing other nodes' changes through the storage service");
  } else {
    spdlog::info(
        "storage on SQLite serves this node alone: several nodes need the storage service on "
        "PostgreSQL (docs/deployment.md)");
  }
}

// What a previous run of this node left: its interrupted jobs, then their files. When the
// storage service is not reachable yet, the maintenance thread does it later.
void Node::RecoverFromPreviousRun() {
  RecoverJobs();
  RemoveLeftovers();
}

void Node::BootstrapOnFirstStart() {
  EnsureBootstrapped();
  if (config_.demo_on_first_start && bootstrapped_) LoadDemoOnFirstStart();
}

void Node::StartApi() {
  api::ApiOptions api_options = ApiOptionsOf(config_);
  api_options.node_metrics = [parts = parts_.get()](PrometheusText& out) {
    WriteNodeMetrics(
        out, {&parts->exchanges, parts->server.get(), parts->compute.get(), parts->metadata.get()});
  };
  parts_->api = std::make_unique<api::Api>(*parts_->services, api_options);
}

void Node::StartWebApp() {
  std::string web_dir = config_.ResolvedWebDir();
  if (web_dir.empty()) {
    spdlog::warn("no web app found beside the executable; /app answers 404 (set --web-dir)");
  } else {
    spdlog::info("web app served from {}", web_dir);
  }
  parts_->web = std::make_unique<WebApp>(web_dir, config_.context_path);
}

// The compute pool for computations on data, the metadata pool for every other call.
void Node::StartPools() {
  int compute_threads = config_.compute_threads > 0
                            ? config_.compute_threads
                            : static_cast<int>(std::max(2u, std::thread::hardware_concurrency()));
  parts_->compute = std::make_unique<ThreadPool>(compute_threads);
  parts_->metadata = std::make_unique<ThreadPool>(kMetadataThreads);
}

// The services that compute on data: the compute pool, the time a query may take, and the
// dashboards' render hooks.
void Node::SetUpComputations() {
  service::Services& services = *parts_->services;
  services.dataset_instances.set_pool(parts_->compute.get());
  services.dashboards.set_pool(parts_->compute.get());
  const auto query_budget = std::chrono::seconds(config_.query_budget_seconds);
  services.dataset_instances.set_query_budget(query_budget);
  services.dashboards.set_query_budget(query_budget);
  services.dashboards.set_hooks(config_.dashboard_render_hooks);
}

void Node::StartServer() {
  http::ServerOptions server_options = ServerOptionsOf(config_);
  server_options.on_exchange = [exchanges = &parts_->exchanges](const http::Exchange& exchange) {
    exchanges->Record(exchange);
  };
  server_options.admit = AdmitOnMetadataPool();
  parts_->server = std::make_unique<http::Server>(server_options, DispatchToPools());
  parts_->server->Start();
}

// Admission (the token checked before a body is read) runs on the metadata pool, like every
// cheap call, so it never waits behind a computation.
http::Admit Node::AdmitOnMetadataPool() {
  api::Api* api = parts_->api.get();
  ThreadPool* metadata = parts_->metadata.get();
  return [this, api, metadata](const http::RequestHead& head,
                               std::function<void(http::Admission)> decide) {
    metadata->Post([this, api, head, decide = std::move(decide)] {
      EnsureBootstrapped();
      decide(api->Admit(head));
    });
  };
}

// A call the API can answer from memory is answered on the I/O thread that read it, with no
// hand-over. Computations on data run on the compute pool, everything else (the web app's files
// included) on the metadata pool, so a cheap call never waits behind a computation.
http::Dispatch Node::DispatchToPools() {
  api::Api* api = parts_->api.get();
  WebApp* web = parts_->web.get();
  ThreadPool* compute = parts_->compute.get();
  ThreadPool* metadata = parts_->metadata.get();
  return [this, api, web, compute, metadata](http::Request request, http::Respond respond) {
    if (bootstrapped_.load()) {
      if (auto answer = api->AnswerFromMemory(request)) return respond(std::move(*answer));
    }
    ThreadPool* pool = api::Api::IsDataWork(request.method, request.path) ? compute : metadata;
    pool->Post([this, api, web, request = std::move(request), respond = std::move(respond)] {
      if (auto page = web->Handle(request)) {
        page->route = "/app";
        return respond(std::move(*page));
      }
      EnsureBootstrapped();
      respond(api->Handle(request));
    });
  };
}

void Node::StartMaintenance() {
  maintenance_ = std::thread([this] { MaintenanceLoop(); });
}

uint16_t Node::port() const { return parts_->server ? parts_->server->port() : 0; }

void Node::Stop() {
  {
    std::lock_guard lock(stop_mutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  stop_signal_.notify_all();
  if (parts_->server) parts_->server->Stop();
  if (parts_->compute) parts_->compute->Shutdown();
  if (parts_->metadata) parts_->metadata->Shutdown();
  if (maintenance_.joinable()) maintenance_.join();
  if (parts_->services) {
    parts_->services->cubes.Stop();
    parts_->services->jobs.Stop();
  }
}

void Node::Wait() {
  if (parts_->server) parts_->server->Wait();
}

}  // namespace tessera::app
