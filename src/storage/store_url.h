// storage/store_url.h
//
// The `storage.url` setting: a database URL (db/database_url.h), "sqlite:///absolute/path.db" or
// "sqlite:relative/path.db" for SQLite, "postgresql://..." or "postgres://..." for PostgreSQL
// (handed to libpq unchanged). Anything else names no backend.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "db/database_url.h"
#include "storage/sql_connection.h"
#include "storage/wal_checkpointer.h"

namespace tessera::storage {

using Backend = db::Backend;
using StoreUrl = db::DatabaseUrl;
using db::BackendName;  // "sqlite" or "postgresql"

inline std::optional<StoreUrl> ParseStoreUrl(std::string_view url) {
  return db::ParseDatabaseUrl(url);
}

// Opens a new connection to the database `url` names. Throws SqlError(kConnectionLost) when the
// database cannot be reached or opened. `checkpointer` is for SQLite (OpenSqliteConnection).
std::unique_ptr<SqlConnection> Connect(const StoreUrl& url, std::chrono::milliseconds busy_timeout,
                                       WalCheckpointer* checkpointer = nullptr);

}  // namespace tessera::storage
