#include "storage/schema.h"

#include <fmt/format.h>

#include <string_view>

#include "storage/metadata_store.h"

namespace tessera::storage {
namespace {

constexpr std::string_view kCreateStatements[] = {
    "CREATE TABLE IF NOT EXISTS schema_version (version BIGINT NOT NULL)",

    "CREATE TABLE IF NOT EXISTS objects ("
    " project_id TEXT NOT NULL, id TEXT NOT NULL,"
    " type BIGINT NOT NULL, subtype BIGINT NOT NULL, ext_type BIGINT NOT NULL,"
    " name TEXT NOT NULL, description TEXT NOT NULL, abbreviation TEXT NOT NULL,"
    " folder_id TEXT NOT NULL, owner_id TEXT NOT NULL, version TEXT NOT NULL,"
    " created_ms BIGINT NOT NULL, modified_ms BIGINT NOT NULL,"
    " hidden BIGINT NOT NULL, certified BIGINT NOT NULL,"
    " acl_json TEXT NOT NULL, definition_json TEXT NOT NULL,"
    " PRIMARY KEY (project_id, id))",
    "CREATE INDEX IF NOT EXISTS objects_by_folder ON objects (project_id, folder_id)",
    "CREATE INDEX IF NOT EXISTS objects_by_type ON objects (project_id, type)",

    "CREATE TABLE IF NOT EXISTS dependencies ("
    " project_id TEXT NOT NULL, object_id TEXT NOT NULL, used_id TEXT NOT NULL,"
    " PRIMARY KEY (project_id, object_id, used_id))",
    "CREATE INDEX IF NOT EXISTS dependencies_by_used ON dependencies (project_id, used_id)",

    "CREATE TABLE IF NOT EXISTS projects ("
    " id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE,"
    " status BIGINT NOT NULL, alias TEXT NOT NULL)",

    "CREATE TABLE IF NOT EXISTS sessions ("
    " token_hash TEXT PRIMARY KEY, session_id TEXT NOT NULL, user_id TEXT NOT NULL,"
    " application_type BIGINT NOT NULL, created_ms BIGINT NOT NULL,"
    " last_active_ms BIGINT NOT NULL, idle_timeout_seconds BIGINT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS sessions_by_session_id ON sessions (session_id)",

    "CREATE TABLE IF NOT EXISTS searches ("
    " id TEXT PRIMARY KEY, session_id TEXT NOT NULL, project_id TEXT NOT NULL,"
    " created_ms BIGINT NOT NULL, object_ids_json TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS searches_by_session ON searches (session_id)",

    // First cut of the tables later features fill (ARCHITECTURE §1, §7).
    "CREATE TABLE IF NOT EXISTS instances ("
    " id TEXT PRIMARY KEY, session_id TEXT NOT NULL, project_id TEXT NOT NULL,"
    " kind TEXT NOT NULL, state TEXT NOT NULL, data_json TEXT NOT NULL,"
    " created_ms BIGINT NOT NULL, updated_ms BIGINT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS instances_by_session ON instances (session_id)",

    "CREATE TABLE IF NOT EXISTS jobs ("
    " id TEXT PRIMARY KEY, kind TEXT NOT NULL, state TEXT NOT NULL,"
    " lease_owner TEXT NOT NULL DEFAULT '', lease_expires_ms BIGINT NOT NULL DEFAULT 0,"
    " data_json TEXT NOT NULL, created_ms BIGINT NOT NULL, updated_ms BIGINT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS jobs_by_state ON jobs (state)",

    "CREATE TABLE IF NOT EXISTS migrations ("
    " id TEXT PRIMARY KEY, project_id TEXT NOT NULL, kind TEXT NOT NULL, state TEXT NOT NULL,"
    " data_json TEXT NOT NULL, created_ms BIGINT NOT NULL, updated_ms BIGINT NOT NULL)",

    "CREATE TABLE IF NOT EXISTS cube_snapshots ("
    " id TEXT PRIMARY KEY, project_id TEXT NOT NULL, kind TEXT NOT NULL, state TEXT NOT NULL,"
    " data_json TEXT NOT NULL, created_ms BIGINT NOT NULL, updated_ms BIGINT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS cube_snapshots_by_project ON cube_snapshots (project_id)",
};

void CreateSchema(SqlConnection& connection) {
  connection.Begin(TransactionMode::kSchemaChange);
  try {
    if (!connection.HasTable("schema_version")) {
      for (std::string_view statement : kCreateStatements) connection.Execute(statement);
      connection.Execute("INSERT INTO schema_version (version) VALUES (?)",
                         {static_cast<int64_t>(kSchemaVersion)});
    }
    connection.Commit();
  } catch (...) {
    try {
      connection.Rollback();
    } catch (const SqlError&) {
    }
    throw;
  }
}

int64_t ReadVersion(SqlConnection& connection) {
  auto rows = connection.Query("SELECT MAX(version) FROM schema_version");
  return rows.empty() ? 0 : AsInt(rows.front().front());
}

}  // namespace

void EnsureSchema(SqlConnection& connection) {
  if (!connection.HasTable("schema_version")) CreateSchema(connection);
  int64_t version = ReadVersion(connection);
  if (version == kSchemaVersion) return;
  throw SqlError(SqlError::Kind::kSchemaMismatch,
                 fmt::format("storage schema version {} is {} than this binary's {}", version,
                             version > kSchemaVersion ? "newer" : "older", kSchemaVersion));
}

}  // namespace tessera::storage
