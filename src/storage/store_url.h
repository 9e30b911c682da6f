// storage/store_url.h
//
// The `storage.url` setting: "sqlite:///absolute/path/metadata.db" or "sqlite:relative/path.db"
// for SQLite; "postgresql://..." or "postgres://..." for PostgreSQL (handed to libpq unchanged).
// Anything else names no backend.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "storage/sql_connection.h"

namespace tessera::storage {

enum class Backend { kSqlite, kPostgres };

struct StoreUrl {
  Backend backend = Backend::kSqlite;
  std::string target;  // SQLite: the file path; PostgreSQL: the whole URL
};

std::optional<StoreUrl> ParseStoreUrl(std::string_view url);

std::string_view BackendName(Backend backend);  // "sqlite" or "postgresql"

// Opens a new connection to the database `url` names. Throws SqlError(kConnectionLost) when the
// database cannot be reached or opened.
std::unique_ptr<SqlConnection> Connect(const StoreUrl& url, std::chrono::milliseconds busy_timeout);

}  // namespace tessera::storage
