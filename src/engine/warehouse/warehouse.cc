#include "engine/warehouse/warehouse.h"

#include "core/error.h"
#include "engine/warehouse/pool.h"
#include "engine/warehouse/postgres_warehouse.h"
#include "engine/warehouse/sqlite_warehouse.h"

namespace tessera::engine::warehouse {
namespace {

// The file path of a "sqlite:" URL, or "" when the URL is not a usable SQLite URL.
std::string SqlitePath(std::string_view url) {
  std::string_view path = url.substr(std::string_view("sqlite:").size());
  if (path.starts_with("//")) {
    path.remove_prefix(2);
    // "sqlite://" must be followed by an absolute path: a host part means nothing to SQLite.
    if (!path.starts_with("/")) return "";
  }
  if (path.ends_with("/")) return "";
  return std::string(path);
}

Error InvalidUrl(const WarehouseOptions& options) {
  return Error(ErrorCode::kInvalidInput,
               "warehouse '" + options.name + "': the url '" + options.url +
                   "' names no supported database; expected sqlite:///absolute/path.db, "
                   "sqlite:relative/path.db or postgresql://...");
}

}  // namespace

std::unique_ptr<Warehouse> Warehouse::Open(const WarehouseOptions& options) {
  const std::string& url = options.url;
  if (url.starts_with("postgresql://") || url.starts_with("postgres://")) {
    return std::make_unique<PooledWarehouse>(
        Dialect::kPostgres, options.name, options.max_connections,
        [name = options.name, url] { return OpenPostgresWarehouseConnection(name, url); });
  }
  if (url.starts_with("sqlite:")) {
    std::string path = SqlitePath(url);
    if (path.empty()) throw InvalidUrl(options);
    return std::make_unique<PooledWarehouse>(
        Dialect::kSqlite, options.name, options.max_connections,
        [name = options.name, path] { return OpenSqliteWarehouseConnection(name, path); });
  }
  throw InvalidUrl(options);
}

}  // namespace tessera::engine::warehouse
