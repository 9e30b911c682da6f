#include "storage/store_url.h"

#include "storage/postgres_connection.h"
#include "storage/sqlite_connection.h"

namespace tessera::storage {

std::optional<StoreUrl> ParseStoreUrl(std::string_view url) {
  if (url.starts_with("postgresql://") || url.starts_with("postgres://")) {
    return StoreUrl{Backend::kPostgres, std::string(url)};
  }
  if (!url.starts_with("sqlite:")) return std::nullopt;
  std::string_view path = url.substr(std::string_view("sqlite:").size());
  if (path.starts_with("//")) {
    path.remove_prefix(2);
    // "sqlite://" must be followed by an absolute path: a host part means nothing to SQLite.
    if (!path.starts_with("/")) return std::nullopt;
  }
  if (path.empty() || path.ends_with("/")) return std::nullopt;
  return StoreUrl{Backend::kSqlite, std::string(path)};
}

std::string_view BackendName(Backend backend) {
  return backend == Backend::kSqlite ? "sqlite" : "postgresql";
}

std::unique_ptr<SqlConnection> Connect(const StoreUrl& url,
                                       std::chrono::milliseconds busy_timeout) {
  if (url.backend == Backend::kSqlite) return OpenSqliteConnection(url.target, busy_timeout);
  return OpenPostgresConnection(url.target);
}

}  // namespace tessera::storage
