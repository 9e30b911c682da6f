// db/database_url.h
//
// The URLs that name a database, for the storage service and for warehouses alike:
// "sqlite:///absolute/path.db" or "sqlite:relative/path.db" name an SQLite file;
// "postgresql://..." or "postgres://..." name a PostgreSQL database, and the whole URL goes to
// libpq unchanged. Anything else names no database: another scheme, "sqlite://host/..." (a host
// means nothing to SQLite), an empty path or a path ending in "/".
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tessera::db {

enum class Backend { kSqlite, kPostgres };

struct DatabaseUrl {
  Backend backend = Backend::kSqlite;
  std::string target;  // SQLite: the file path; PostgreSQL: the whole URL
};

std::optional<DatabaseUrl> ParseDatabaseUrl(std::string_view url);

std::string_view BackendName(Backend backend);  // "sqlite" or "postgresql"

}  // namespace tessera::db
