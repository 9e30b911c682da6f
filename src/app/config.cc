#include "app/config.h"

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include "app/config_file.h"
#include "app/demo_bundle_dir.h"
#include "app/web_dir.h"
#include "core/strings.h"
#include "http/client_address.h"

namespace tessera::app {

namespace {

using Setter = void (*)(Config&, const std::string&);

struct Binding {
  SettingSpec spec;
  Setter set;
};

int64_t ParseBounded(const std::string& value, int64_t low, int64_t high) {
  auto parsed = ParseInt(value);
  if (!parsed || *parsed < low || *parsed > high) {
    throw std::invalid_argument("'" + value + "' is not an integer from " + std::to_string(low) +
                                " to " + std::to_string(high));
  }
  return *parsed;
}

bool ParseFlag(const std::string& value) {
  auto parsed = ParseBool(value);
  if (!parsed) throw std::invalid_argument("'" + value + "' is not true or false");
  return *parsed;
}

const std::vector<Binding>& Bindings() {
  static const std::vector<Binding> bindings = {
      {{"server.listen", "TESSERA_LISTEN", "--listen",
        "HOST:PORT to listen on (default 127.0.0.1:8080)"},
       [](Config& c, const std::string& v) { c.listen = v; }},
      {{"data_dir", "TESSERA_DATA_DIR", "--data-dir",
        "data directory: metadata.db, warehouse.db, packages/, cubes/ (default ./tessera-data)"},
       [](Config& c, const std::string& v) { c.data_dir = v; }},
      {{"storage.url", "TESSERA_STORAGE_URL", "--storage-url",
        "storage service: sqlite:///PATH or postgresql://... (default: metadata.db in the data "
        "directory)"},
       [](Config& c, const std::string& v) { c.storage_url = v; }},
      {{"auth.admin_password", "TESSERA_ADMIN_PASSWORD", "--admin-password",
        "password of the user 'administrator'; required unless listening on loopback"},
       [](Config& c, const std::string& v) { c.admin_password = v; }},
      {{"auth.session_idle_timeout_seconds", "TESSERA_SESSION_IDLE_TIMEOUT_SECONDS",
        "--session-idle-timeout", "seconds a session may stay idle (default 1800)"},
       [](Config& c, const std::string& v) {
         c.session_idle_timeout_seconds = static_cast<int>(ParseBounded(v, 1, 86400 * 30));
       }},
      {{"auth.max_failed_logins", "TESSERA_MAX_FAILED_LOGINS", "--max-failed-logins",
        "failed logins of one user before it is locked out for a while; 0 = never (default 5)"},
       [](Config& c, const std::string& v) {
         c.max_failed_logins = static_cast<int>(ParseBounded(v, 0, 1000000));
       }},
      {{"auth.max_failed_logins_per_address", "TESSERA_MAX_FAILED_LOGINS_PER_ADDRESS",
        "--max-failed-logins-per-address",
        "failed logins from one client address before it is locked out for a while; 0 = never "
        "(default 20)"},
       [](Config& c, const std::string& v) {
         c.max_failed_logins_per_address = static_cast<int>(ParseBounded(v, 0, 1000000));
       }},
      {{"auth.lockout_seconds", "TESSERA_LOCKOUT_SECONDS", "--lockout-seconds",
        "first lockout after too many failed logins, doubled by each further failure up to an "
        "hour (default 30)"},
       [](Config& c, const std::string& v) {
         c.lockout_seconds = static_cast<int>(ParseBounded(v, 1, 86400));
       }},
      {{"server.context_path", "TESSERA_CONTEXT_PATH", "--context-path",
        "path before /api, e.g. /MicroStrategyLibrary (default: none)"},
       [](Config& c, const std::string& v) {
         std::string path = v;
         while (!path.empty() && path.back() == '/') path.pop_back();
         if (!path.empty() && path.front() != '/') path.insert(path.begin(), '/');
         c.context_path = path;
       }},
      {{"server.io_threads", "TESSERA_IO_THREADS", "--io-threads",
        "threads serving sockets (default 2)"},
       [](Config& c, const std::string& v) {
         c.io_threads = static_cast<int>(ParseBounded(v, 1, 64));
       }},
      {{"server.compute_threads", "TESSERA_COMPUTE_THREADS", "--compute-threads",
        "threads running requests (default: one per core)"},
       [](Config& c, const std::string& v) {
         c.compute_threads = static_cast<int>(ParseBounded(v, 0, 256));
       }},
      {{"server.max_body_bytes", "TESSERA_MAX_BODY_BYTES", "--max-body-bytes",
        "largest body of rows pushed to a dataset, in bytes (default 268435456)"},
       [](Config& c, const std::string& v) {
         c.max_body_bytes = static_cast<uint64_t>(ParseBounded(v, 1024, int64_t{1} << 40));
       }},
      {{"server.max_request_body_bytes", "TESSERA_MAX_REQUEST_BODY_BYTES",
        "--max-request-body-bytes",
        "largest body of any other request that is not spooled to disk, in bytes (default "
        "4194304)"},
       [](Config& c, const std::string& v) {
         c.max_request_body_bytes = static_cast<uint64_t>(ParseBounded(v, 1024, int64_t{1} << 40));
       }},
      {{"server.max_connections", "TESSERA_MAX_CONNECTIONS", "--max-connections",
        "open connections beyond which new ones are answered 503 (default: the open-file limit "
        "less 64)"},
       [](Config& c, const std::string& v) { c.max_connections = ParseBounded(v, 0, 1000000); }},
      {{"server.max_connections_per_address", "TESSERA_MAX_CONNECTIONS_PER_ADDRESS",
        "--max-connections-per-address",
        "open connections from one client address beyond which new ones are answered 503 "
        "(default 256)"},
       [](Config& c, const std::string& v) {
         c.max_connections_per_address = ParseBounded(v, 1, 1000000);
       }},
      {{"server.trusted_proxies", "TESSERA_TRUSTED_PROXIES", "--trusted-proxies",
        "IP addresses of the load balancers or proxies in front of this node, separated by "
        "commas: a request through one is from the client its X-Forwarded-For names (failed-login "
        "limits, access log), and their connections are not capped per address (default none)"},
       [](Config& c, const std::string& v) { c.trusted_proxies = http::ParseTrustedProxies(v); }},
      {{"server.read_timeout_seconds", "TESSERA_READ_TIMEOUT_SECONDS", "--read-timeout",
        "seconds allowed to receive one request (default 60)"},
       [](Config& c, const std::string& v) {
         c.read_timeout_seconds = static_cast<int>(ParseBounded(v, 1, 3600));
       }},
      {{"server.idle_timeout_seconds", "TESSERA_IDLE_TIMEOUT_SECONDS", "--idle-timeout",
        "seconds an idle keep-alive connection stays open (default 120)"},
       [](Config& c, const std::string& v) {
         c.idle_timeout_seconds = static_cast<int>(ParseBounded(v, 1, 3600));
       }},
      {{"server.reported_version", "TESSERA_REPORTED_VERSION", "--reported-version",
        "version reported by GET /api/status (default 11.6.0200.0001)"},
       [](Config& c, const std::string& v) {
         if (v.size() < 9 || v[2] != '.' || v[4] != '.') {
           throw std::invalid_argument("'" + v + "' is not a version like 11.6.0200.0001");
         }
         c.reported_version = v;
       }},
      {{"server.public_url", "TESSERA_PUBLIC_URL", "--public-url",
        "this server's URL, its environment id in migrations (default "
        "http://LISTEN/CONTEXT_PATH/)"},
       [](Config& c, const std::string& v) {
         c.public_url = v.empty() || v.back() == '/' ? v : v + "/";
       }},
      {{"packages.dir", "TESSERA_PACKAGES_DIR", "--packages-dir",
        "migration package location, shared by the environments that migrate between each "
        "other; 'none' = not configured (default: packages/ in the data directory)"},
       [](Config& c, const std::string& v) { c.packages_dir = v; }},
      {{"cubes.dir", "TESSERA_CUBES_DIR", "--cubes-dir",
        "published cubes' snapshots; nodes on one PostgreSQL storage service share it "
        "(default: cubes/ in the data directory)"},
       [](Config& c, const std::string& v) { c.cubes_dir = v; }},
      {{"migrations.max_package_bytes", "TESSERA_MAX_PACKAGE_BYTES", "--max-package-bytes",
        "largest package file in bytes; larger ones end create_failed (default 2147483648)"},
       [](Config& c, const std::string& v) {
         c.max_package_bytes = ParseBounded(v, 1024, int64_t{1} << 40);
       }},
      {{"migrations.workers", "TESSERA_MIGRATION_WORKERS", "--migration-workers",
        "threads running package creations, imports and undos (default 2)"},
       [](Config& c, const std::string& v) {
         c.migration_workers = static_cast<int>(ParseBounded(v, 1, 64));
       }},
      {{"migrations.target_silence_seconds", "TESSERA_MIGRATION_TARGET_SILENCE_SECONDS",
        "--migration-target-silence-seconds",
        "seconds a source waits for a sign of life from the target of a running import or undo "
        "before it reports the import or undo failed (default 120)"},
       [](Config& c, const std::string& v) {
         c.migration_target_silence_seconds = static_cast<int>(ParseBounded(v, 1, 86400));
       }},
      {{"jobs.lease_seconds", "TESSERA_JOB_LEASE_SECONDS", "--job-lease-seconds",
        "lease of a node on the jobs it runs (migrations, cube publishes), renewed every third of "
        "it; another node fails a job whose lease ran out (default 30)"},
       [](Config& c, const std::string& v) {
         c.job_lease_seconds = static_cast<int>(ParseBounded(v, 1, 3600));
       }},
      {{"instances.async_after_ms", "TESSERA_INSTANCE_ASYNC_AFTER_MS", "--instance-async-after-ms",
        "milliseconds an instance creation with 'Prefer: respond-async' waits for its result "
        "before answering 202 (default 1000)"},
       [](Config& c, const std::string& v) {
         c.instance_async_after_ms = static_cast<int>(ParseBounded(v, 0, 3600000));
       }},
      {{"instances.query_budget_seconds", "TESSERA_QUERY_BUDGET_SECONDS", "--query-budget",
        "seconds one computation on data (an instance, a visualization) may run before it stops "
        "with an error (default 300)"},
       [](Config& c, const std::string& v) {
         c.query_budget_seconds = static_cast<int>(ParseBounded(v, 1, 86400));
       }},
      {{"instances.result_budget_mb", "TESSERA_INSTANCE_RESULT_BUDGET_MB",
        "--instance-result-budget-mb",
        "memory for the results of report and cube instances in MiB; beyond it the least "
        "recently used are dropped and recomputed when read again (default 1024)"},
       [](Config& c, const std::string& v) {
         c.instance_result_budget_mb = ParseBounded(v, 1, int64_t{1} << 24);
       }},
      {{"uploads.session_ttl_seconds", "TESSERA_UPLOAD_SESSION_TTL_SECONDS", "--upload-session-ttl",
        "seconds an upload session of pushed data may go unused before it is forgotten with its "
        "chunks; a publishing session is kept (default 3600)"},
       [](Config& c, const std::string& v) {
         c.upload_session_ttl_seconds = static_cast<int>(ParseBounded(v, 1, 604800));
       }},
      {{"uploads.parse_ahead_mb", "TESSERA_UPLOAD_PARSE_AHEAD_MB", "--upload-parse-ahead-mb",
        "chunks of upload sessions this node holds parsed for their publish, in MiB of chunk "
        "bytes (their rows take a few times more); 0 parses every chunk when its session is "
        "published (default 256)"},
       [](Config& c, const std::string& v) {
         c.upload_parse_ahead_mb = ParseBounded(v, 0, int64_t{1} << 20);
       }},
      {{"demo.on_first_start", "TESSERA_DEMO_ON_FIRST_START", "--demo-on-first-start",
        "generate the demo warehouse and load the Tutorial project when the storage service "
        "has no project yet: true or false (default true)"},
       [](Config& c, const std::string& v) { c.demo_on_first_start = ParseFlag(v); }},
      {{"demo.rows", "TESSERA_DEMO_ROWS", "--demo-rows",
        "fact rows of the demo warehouse made on first start (default 100000)"},
       [](Config& c, const std::string& v) {
         c.demo_rows = ParseBounded(v, kMinDemoRows, kMaxDemoRows);
       }},
      {{"demo.bundle_dir", "TESSERA_DEMO_BUNDLE_DIR", "--demo-bundle-dir",
        "folder of the demo project's bundle (default: EXE_DIR/../share/tessera/demo/tutorial, "
        "else demo/tutorial of the nearest ancestor folder of the executable that has one)"},
       [](Config& c, const std::string& v) { c.demo_bundle_dir = v; }},
      {{"web.dir", "TESSERA_WEB_DIR", "--web-dir",
        "folder of the browser app (index.html, assets/) served at /app (default: "
        "EXE_DIR/../share/tessera/web, else web/ of the nearest ancestor folder of the "
        "executable that has web/index.html)"},
       [](Config& c, const std::string& v) { c.web_dir = v; }},
      {{"log.level", "TESSERA_LOG_LEVEL", "--log-level",
        "trace, debug, info, warn, error or off (default info)"},
       [](Config& c, const std::string& v) { c.log_level = ToLower(v); }},
      {{"log.access_log", "TESSERA_ACCESS_LOG", "--access-log",
        "one log line per request: true or false (default true)"},
       [](Config& c, const std::string& v) { c.access_log = ParseFlag(v); }},
      {{"log.format", "TESSERA_LOG_FORMAT", "--log-format",
        "text (one readable line per event) or json (one JSON object per line, for log "
        "collectors) (default text)"},
       [](Config& c, const std::string& v) {
         std::string format = ToLower(v);
         if (format != "text" && format != "json") {
           throw std::invalid_argument("'" + v + "' is not a log format: use text or json");
         }
         c.log_format = format;
       }},
      {{"metrics.token", "TESSERA_METRICS_TOKEN", "--metrics-token",
        "when set, GET /metrics requires 'Authorization: Bearer TOKEN' (default: /metrics is "
        "open, like /health)"},
       [](Config& c, const std::string& v) { c.metrics_token = v; }},
  };
  return bindings;
}

// A setting's value in the file, as text, with "PATH:LINE: KEY" for messages about it.
struct FileValue {
  std::string text;
  std::string source;
};

std::optional<FileValue> TomlValue(const ConfigFile& file, std::string_view key) {
  auto node = file.table.at_path(key);
  if (!node) return std::nullopt;
  const std::string source = Where(file, node.node()->source()) + ": " + std::string(key);
  if (auto text = node.value<std::string>()) return FileValue{*text, source};
  if (auto number = node.value<int64_t>()) return FileValue{std::to_string(*number), source};
  if (auto flag = node.value<bool>()) return FileValue{*flag ? "true" : "false", source};
  throw std::invalid_argument(source + ": expected a string, a whole number, true or false");
}

std::vector<std::string> SettingKeys() {
  std::vector<std::string> keys;
  for (const auto& spec : SettingSpecs()) keys.emplace_back(spec.key);
  return keys;
}

// --config FILE, else TESSERA_CONFIG, else ./tessera.toml when it exists; checked against the
// settings' keys.
ConfigFile ReadConfigFile(const std::optional<std::string>& config_file) {
  std::string path = config_file.value_or("");
  if (path.empty()) {
    if (const char* env = std::getenv("TESSERA_CONFIG"); env && *env) path = env;
  }
  if (path.empty()) {
    if (!std::filesystem::exists("tessera.toml")) return {};
    path = "tessera.toml";
  }
  ConfigFile file = ParseConfigFile(path);
  CheckKnownKeys(file, SettingKeys());
  return file;
}

// [warehouses.NAME] url = "sqlite:///..." | "postgresql://..." (CheckKnownKeys has refused
// anything else in those tables).
void ReadWarehouses(const ConfigFile& file, Config& config) {
  const toml::table* warehouses = file.table["warehouses"].as_table();
  if (!warehouses) return;
  for (const auto& [name, entry] : *warehouses) {
    const std::string table = "warehouses." + std::string(name.str());
    const toml::node* url = (*entry.as_table())["url"].node();
    if (!url) {
      throw std::invalid_argument(Where(file, name.source()) + ": [" + table +
                                  "] needs url = \"...\"");
    }
    if (!url->is_string()) {
      throw std::invalid_argument(Where(file, url->source()) + ": " + table +
                                  ".url: expected a string, sqlite:///PATH or postgresql://...");
    }
    config.warehouses[std::string(name.str())] = **url->as_string();
  }
}

}  // namespace

std::string Config::host() const {
  auto colon = listen.rfind(':');
  std::string host = colon == std::string::npos ? listen : listen.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  return host;
}

uint16_t Config::port() const {
  auto colon = listen.rfind(':');
  return static_cast<uint16_t>(ParseInt(listen.substr(colon + 1)).value_or(0));
}

bool Config::is_loopback() const {
  std::string h = host();
  return h == "localhost" || h == "::1" || h.rfind("127.", 0) == 0;
}

std::string Config::ResolvedStorageUrl() const {
  if (!storage_url.empty()) return storage_url;
  return "sqlite://" + std::filesystem::absolute(std::filesystem::path(data_dir) / "metadata.db")
                           .lexically_normal()
                           .string();
}

std::string Config::WarehouseUrl(const std::string& name) const {
  if (auto it = warehouses.find(name); it != warehouses.end()) return it->second;
  if (name == "demo") {
    return "sqlite://" + std::filesystem::absolute(std::filesystem::path(data_dir) / "warehouse.db")
                             .lexically_normal()
                             .string();
  }
  throw std::invalid_argument("no warehouse named '" + name + "' is configured; add [warehouses." +
                              name + "] url = \"...\"");
}

std::string Config::ResolvedPublicUrl() const {
  if (!public_url.empty()) return public_url;
  return "http://" + listen + context_path + "/";
}

std::string Config::ResolvedPackagesDir() const {
  if (packages_dir == "none") return "";
  if (!packages_dir.empty()) return std::filesystem::absolute(packages_dir).string();
  return std::filesystem::absolute(std::filesystem::path(data_dir) / "packages").string();
}

std::string Config::ResolvedCubesDir() const {
  if (!cubes_dir.empty()) return std::filesystem::absolute(cubes_dir).string();
  return std::filesystem::absolute(std::filesystem::path(data_dir) / "cubes").string();
}

std::string Config::ResolvedDemoBundleDir() const {
  if (!demo_bundle_dir.empty()) return demo_bundle_dir;
  return DefaultDemoBundleDir(ExecutablePath());
}

std::string Config::ResolvedWebDir() const {
  if (!web_dir.empty()) return std::filesystem::absolute(web_dir).lexically_normal().string();
  return DefaultWebDir(ExecutablePath());
}

const std::vector<SettingSpec>& SettingSpecs() {
  static const std::vector<SettingSpec> specs = [] {
    std::vector<SettingSpec> out;
    for (const auto& binding : Bindings()) out.push_back(binding.spec);
    return out;
  }();
  return specs;
}

int64_t ParseDemoRows(const std::string& source, const std::string& text) {
  try {
    return ParseBounded(text, kMinDemoRows, kMaxDemoRows);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(source + ": " + e.what());
  }
}

Config LoadConfig(const std::map<std::string, std::string>& flag_values,
                  const std::optional<std::string>& config_file) {
  const ConfigFile file = ReadConfigFile(config_file);
  Config config;
  for (const auto& binding : Bindings()) {
    std::optional<std::string> value;
    std::string source;
    if (auto it = flag_values.find(binding.spec.key); it != flag_values.end()) {
      value = it->second;
      source = binding.spec.flag;
    } else if (const char* env = std::getenv(binding.spec.env); env != nullptr) {
      value = env;
      source = binding.spec.env;
    } else if (auto in_file = TomlValue(file, binding.spec.key)) {
      value = in_file->text;
      source = in_file->source;
    }
    if (!value) continue;
    try {
      binding.set(config, *value);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(source + ": " + e.what());
    }
  }
  ReadWarehouses(file, config);
  auto colon = config.listen.rfind(':');
  if (colon == std::string::npos || !ParseInt(config.listen.substr(colon + 1)) ||
      *ParseInt(config.listen.substr(colon + 1)) < 0 ||
      *ParseInt(config.listen.substr(colon + 1)) > 65535 || config.host().empty()) {
    throw std::invalid_argument("listen: '" + config.listen + "' is not HOST:PORT");
  }
  return config;
}

}  // namespace tessera::app
