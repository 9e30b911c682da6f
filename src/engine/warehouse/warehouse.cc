#include "engine/warehouse/warehouse.h"

#include "core/error.h"
#include "db/database_url.h"
#include "engine/warehouse/pool.h"
#include "engine/warehouse/postgres_warehouse.h"
#include "engine/warehouse/sqlite_warehouse.h"

namespace tessera::engine::warehouse {
namespace {

Error InvalidUrl(const WarehouseOptions& options) {
  return Error(ErrorCode::kInvalidInput,
               "warehouse '" + options.name + "': the url '" + options.url +
                   "' names no supported database; expected sqlite:///absolute/path.db, "
                   "sqlite:relative/path.db or postgresql://...");
}

}  // namespace

std::unique_ptr<Warehouse> Warehouse::Open(const WarehouseOptions& options) {
  const std::optional<db::DatabaseUrl> url = db::ParseDatabaseUrl(options.url);
  if (!url) throw InvalidUrl(options);
  if (url->backend == db::Backend::kPostgres) {
    return std::make_unique<PooledWarehouse>(Dialect::kPostgres, options.name,
                                             options.max_connections,
                                             [name = options.name, target = url->target] {
                                               return OpenPostgresWarehouseConnection(name, target);
                                             });
  }
  return std::make_unique<PooledWarehouse>(Dialect::kSqlite, options.name, options.max_connections,
                                           [name = options.name, path = url->target] {
                                             return OpenSqliteWarehouseConnection(name, path);
                                           });
}

}  // namespace tessera::engine::warehouse
