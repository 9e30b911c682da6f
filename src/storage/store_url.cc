#include "storage/store_url.h"

#include "storage/postgres_connection.h"
#include "storage/sqlite_connection.h"

namespace tessera::storage {

std::unique_ptr<SqlConnection> Connect(const StoreUrl& url, std::chrono::milliseconds busy_timeout,
                                       WalCheckpointer* checkpointer) {
  if (url.backend == Backend::kSqlite) {
    return OpenSqliteConnection(url.target, busy_timeout, checkpointer);
  }
  return OpenPostgresConnection(url.target);
}

}  // namespace tessera::storage
