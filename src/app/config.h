// app/config.h
//
// Tessera's settings. Each one can come from four places; the first that gives it wins:
//   1. a command-line flag (--listen ...),
//   2. an environment variable (TESSERA_LISTEN ...),
//   3. the configuration file (tessera.toml, or --config FILE / TESSERA_CONFIG), key
//   "server.listen",
//   4. the built-in default, which gives the embedded deployment: one node with everything
//      under data_dir (SQLite metadata and warehouse).
// SettingSpecs() lists them all; `tessera serve --help` prints the same list.
// Loading validates every value and throws std::invalid_argument naming the setting and source
// (a flag, a variable, or "FILE:LINE: key"). The file is read strictly (app/config_file.h): a
// TOML syntax error, or a key that is no setting here, stops the load with its line.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "service/dashboard/visualization_render.h"

namespace tessera::app {

struct Config {
  std::string listen = "127.0.0.1:8080";
  std::string data_dir = "./tessera-data";
  std::string storage_url;  // default: sqlite:///<data_dir>/metadata.db
  std::string context_path;
  std::optional<std::string> admin_password;
  int io_threads = 2;
  int compute_threads = 0;                       // 0 = one per core
  uint64_t max_body_bytes = 256ull << 20;        // bodies of rows pushed to datasets
  uint64_t max_request_body_bytes = 4ull << 20;  // every other body that is not spooled
  int64_t max_connections = 0;                   // 0 = from the open-file limit
  int64_t max_connections_per_address = 256;
  std::vector<std::string> trusted_proxies;  // canonical IP addresses
  int read_timeout_seconds = 60;
  int idle_timeout_seconds = 120;
  int session_idle_timeout_seconds = 1800;
  int max_failed_logins = 5;
  int max_failed_logins_per_address = 20;
  int lockout_seconds = 30;
  std::string reported_version = "11.6.0200.0001";
  // This server's URL, its environment id in migration records; default http://<listen><context>/.
  std::string public_url;
  std::string packages_dir;  // default: <data_dir>/packages; "none" = not configured
  std::string cubes_dir;     // default: <data_dir>/cubes
  int64_t max_package_bytes = int64_t{1} << 31;
  int migration_workers = 2;
  int migration_target_silence_seconds = 120;
  int job_lease_seconds = 30;
  int instance_async_after_ms = 1000;  // Prefer: respond-async answers 202 after this long
  int64_t instance_result_budget_mb = 1024;
  int query_budget_seconds = 300;         // one computation on data, before it stops
  int upload_session_ttl_seconds = 3600;  // an upload session without use, before it is forgotten
  int64_t upload_parse_ahead_mb = 256;    // chunks held parsed for their publish; 0 holds none
  std::string log_level = "info";
  bool access_log = true;
  std::string log_format = "text";  // or "json"
  std::string metrics_token;        // empty: /metrics needs no token
  bool demo_on_first_start = true;
  int64_t demo_rows = 100000;
  uint64_t demo_seed = 42;
  std::string demo_bundle_dir;  // default: found beside the executable (app/demo_bundle_dir.h)
  std::string web_dir;          // default: found beside the executable (app/web_dir.h)
  // Warehouse connections by name ([warehouses.NAME] url = "..."); "demo" defaults to
  // sqlite:///<data_dir>/warehouse.db.
  std::map<std::string, std::string> warehouses;
  // Tests only, never read from a file: hooks into the rendering of dashboard visualizations.
  service::dashboard::RenderHooks dashboard_render_hooks;

  std::string host() const;
  uint16_t port() const;
  bool is_loopback() const;
  std::string ResolvedStorageUrl() const;
  // The URL of warehouse `name`; throws std::invalid_argument for an unknown name.
  std::string WarehouseUrl(const std::string& name) const;
  // The demo bundle folder; "" when none is found.
  std::string ResolvedDemoBundleDir() const;
  std::string ResolvedWebDir() const;  // "" when the web app is not installed
  std::string ResolvedPublicUrl() const;
  std::string ResolvedPackagesDir() const;  // "" when not configured
  std::string ResolvedCubesDir() const;
};

struct SettingSpec {
  const char* key;   // toml key, e.g. "server.listen"
  const char* env;   // e.g. "TESSERA_LISTEN"
  const char* flag;  // e.g. "--listen"
  const char* help;
};

const std::vector<SettingSpec>& SettingSpecs();

// The fact rows of the demo warehouse that `tessera demo --rows` and demo.rows accept.
inline constexpr int64_t kMinDemoRows = 1;
inline constexpr int64_t kMaxDemoRows = int64_t{1} << 40;

// `text` as a number of demo rows; std::invalid_argument "SOURCE: 'TEXT' is not an integer from
// 1 to 1099511627776" otherwise.
int64_t ParseDemoRows(const std::string& source, const std::string& text);

// `flag_values` maps a setting key to the value given on the command line.
Config LoadConfig(const std::map<std::string, std::string>& flag_values,
                  const std::optional<std::string>& config_file);

}  // namespace tessera::app
