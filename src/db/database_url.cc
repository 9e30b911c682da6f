#include "db/database_url.h"

namespace tessera::db {

std::optional<DatabaseUrl> ParseDatabaseUrl(std::string_view url) {
  if (url.starts_with("postgresql://") || url.starts_with("postgres://")) {
    return DatabaseUrl{Backend::kPostgres, std::string(url)};
  }
  if (!url.starts_with("sqlite:")) return std::nullopt;
  std::string_view path = url.substr(std::string_view("sqlite:").size());
  if (path.starts_with("//")) {
    path.remove_prefix(2);
    if (!path.starts_with("/")) return std::nullopt;
  }
  if (path.empty() || path.ends_with("/")) return std::nullopt;
  return DatabaseUrl{Backend::kSqlite, std::string(path)};
}

std::string_view BackendName(Backend backend) {
  return backend == Backend::kSqlite ? "sqlite" : "postgresql";
}

}  // namespace tessera::db
