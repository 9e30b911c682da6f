#include "storage/schema.h"

#include <fmt/format.h>

#include <string_view>

#include "storage/metadata_store.h"

namespace tessera::storage {
namespace {

// Version 1.
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

    // Instances, jobs and published cube snapshots (version 6 adds the instances' revision).
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

    "CREATE TABLE IF NOT EXISTS cube_snapshots ("
    " id TEXT PRIMARY KEY, project_id TEXT NOT NULL, kind TEXT NOT NULL, state TEXT NOT NULL,"
    " data_json TEXT NOT NULL, created_ms BIGINT NOT NULL, updated_ms BIGINT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS cube_snapshots_by_project ON cube_snapshots (project_id)",
};

// Version 2: what migrations keep (records, settings, shared files). Version 1 had an unused
// `migrations` table.
constexpr std::string_view kVersion2Statements[] = {
    "DROP TABLE IF EXISTS migrations",

    "CREATE TABLE IF NOT EXISTS migration_records ("
    " role TEXT NOT NULL, migration_id TEXT NOT NULL, package_id TEXT NOT NULL,"
    " purpose TEXT NOT NULL, project_id TEXT NOT NULL,"
    " package_status TEXT NOT NULL, import_status TEXT NOT NULL,"
    " record_json TEXT NOT NULL, internal_json TEXT NOT NULL,"
    " created_ms BIGINT NOT NULL, updated_ms BIGINT NOT NULL,"
    " PRIMARY KEY (role, migration_id))",
    "CREATE INDEX IF NOT EXISTS migration_records_by_package ON migration_records (package_id)",

    "CREATE TABLE IF NOT EXISTS settings ("
    " name TEXT PRIMARY KEY, value_json TEXT NOT NULL, updated_ms BIGINT NOT NULL)",

    "CREATE TABLE IF NOT EXISTS shared_files ("
    " id TEXT PRIMARY KEY, data_json TEXT NOT NULL,"
    " created_ms BIGINT NOT NULL, updated_ms BIGINT NOT NULL)",
};

// Version 3: the users of an object are found through an index that covers the query, so
// SQLite's planner no longer prefers scanning the project's whole primary-key range.
constexpr std::string_view kVersion3Statements[] = {
    "DROP INDEX IF EXISTS dependencies_by_used",
    "CREATE INDEX IF NOT EXISTS dependencies_by_user ON dependencies (project_id, used_id, "
    "object_id)",
};

// Version 4: the content list of a package being created, in chunks.
constexpr std::string_view kVersion4Statements[] = {
    "CREATE TABLE IF NOT EXISTS migration_contents ("
    " role TEXT NOT NULL, migration_id TEXT NOT NULL, chunk BIGINT NOT NULL,"
    " items_json TEXT NOT NULL, PRIMARY KEY (role, migration_id, chunk))",
};

// Version 5: dataset upload sessions shared by the nodes.
constexpr std::string_view kVersion5Statements[] = {
    "CREATE TABLE IF NOT EXISTS upload_sessions ("
    " id TEXT PRIMARY KEY, project_id TEXT NOT NULL, dataset_id TEXT NOT NULL,"
    " user_id TEXT NOT NULL, tables_json TEXT NOT NULL, state TEXT NOT NULL,"
    " error TEXT NOT NULL, publish_started_ms BIGINT NOT NULL, last_used_ms BIGINT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS upload_sessions_by_dataset"
    " ON upload_sessions (project_id, dataset_id)",
    "CREATE TABLE IF NOT EXISTS upload_chunks ("
    " session_id TEXT NOT NULL, table_name TEXT NOT NULL, chunk_index BIGINT NOT NULL,"
    " data TEXT NOT NULL, PRIMARY KEY (session_id, table_name, chunk_index))",
};

// Version 6: instances carry a revision, so a node sees that another one changed an instance.
constexpr std::string_view kVersion6AddRevision =
    "ALTER TABLE instances ADD COLUMN revision BIGINT NOT NULL DEFAULT 0";

// Version 7: a count of the committed changes to objects, which every node's cached semantic
// models are checked against.
constexpr std::string_view kVersion7Statements[] = {
    "CREATE TABLE IF NOT EXISTS generations (name TEXT PRIMARY KEY, value BIGINT NOT NULL)",
    "INSERT INTO generations (name, value) VALUES ('objects', 0) ON CONFLICT (name) DO NOTHING",
};

// Version 8: a chunk's revision, so a node that parsed a chunk knows, without reading it again,
// that it is still the one stored.
constexpr std::string_view kVersion8AddChunkRevision =
    "ALTER TABLE upload_chunks ADD COLUMN revision TEXT NOT NULL DEFAULT ''";

// Version 9: on SQLite, the chunks move to the attached `chunks` database
// (storage/sqlite_connection.h), created by EnsureChunkTable; PostgreSQL keeps them where they are.
constexpr std::string_view kVersion9SqliteStatements[] = {
    "INSERT OR REPLACE INTO chunks.upload_chunks"
    " (session_id, table_name, chunk_index, revision, data)"
    " SELECT session_id, table_name, chunk_index, revision, data FROM main.upload_chunks",
    "DROP TABLE main.upload_chunks",
};

// The revision precedes the bytes, so listing the chunks' revisions does not walk their pages.
constexpr std::string_view kCreateSqliteChunkTable =
    "CREATE TABLE IF NOT EXISTS chunks.upload_chunks ("
    " session_id TEXT NOT NULL, table_name TEXT NOT NULL, chunk_index BIGINT NOT NULL,"
    " revision TEXT NOT NULL DEFAULT '', data TEXT NOT NULL,"
    " PRIMARY KEY (session_id, table_name, chunk_index))";

bool IsSqlite(SqlConnection& connection) { return connection.backend_name() == "sqlite"; }

// On SQLite, at every start: the chunk file may be new (never made, or removed while the server
// was down), and upload sessions then find their chunks gone rather than the table missing.
void EnsureChunkTable(SqlConnection& connection) {
  if (IsSqlite(connection)) connection.Execute(kCreateSqliteChunkTable);
}

// Whether `table` has `column` (an ALTER TABLE ... ADD COLUMN cannot say "if not exists" on
// every backend).
bool HasColumn(SqlConnection& connection, std::string_view table, std::string_view column) {
  const bool sqlite = IsSqlite(connection);
  return !connection
              .Query(sqlite ? "SELECT 1 FROM pragma_table_info(?, 'main') WHERE name = ?"
                            : "SELECT 1 FROM information_schema.columns WHERE table_schema = "
                              "current_schema() AND table_name = ? AND column_name = ?",
                     {std::string(table), std::string(column)})
              .empty();
}

// The oldest version this binary upgrades; older ones are refused.
constexpr int64_t kOldestUpgradableVersion = 1;

int64_t ReadVersion(SqlConnection& connection) {
  auto rows = connection.Query("SELECT MAX(version) FROM schema_version");
  return rows.empty() ? 0 : AsInt(rows.front().front());
}

void ApplyUpgrades(SqlConnection& connection, int64_t from_version) {
  if (from_version < 2) {
    for (std::string_view statement : kVersion2Statements) connection.Execute(statement);
  }
  if (from_version < 3) {
    for (std::string_view statement : kVersion3Statements) connection.Execute(statement);
  }
  if (from_version < 4) {
    for (std::string_view statement : kVersion4Statements) connection.Execute(statement);
  }
  if (from_version < 5) {
    for (std::string_view statement : kVersion5Statements) connection.Execute(statement);
  }
  if (from_version < 6 && !HasColumn(connection, "instances", "revision")) {
    connection.Execute(kVersion6AddRevision);
  }
  if (from_version < 7) {
    for (std::string_view statement : kVersion7Statements) connection.Execute(statement);
  }
  if (from_version < 8 && !HasColumn(connection, "upload_chunks", "revision")) {
    connection.Execute(kVersion8AddChunkRevision);
  }
  if (from_version < 9 && IsSqlite(connection)) {
    for (std::string_view statement : kVersion9SqliteStatements) connection.Execute(statement);
  }
}

// Runs `change` in a schema-change transaction (concurrent initialisers and upgraders wait for
// each other; the loser finds the work done).
template <typename Change>
void InSchemaTransaction(SqlConnection& connection, const Change& change) {
  connection.Begin(TransactionMode::kSchemaChange);
  try {
    change();
    connection.Commit();
  } catch (...) {
    try {
      connection.Rollback();
    } catch (const SqlError&) {
    }
    throw;
  }
}

void CreateSchema(SqlConnection& connection) {
  InSchemaTransaction(connection, [&] {
    if (connection.HasTable("schema_version")) return;
    for (std::string_view statement : kCreateStatements) connection.Execute(statement);
    ApplyUpgrades(connection, 1);
    connection.Execute("INSERT INTO schema_version (version) VALUES (?)",
                       {static_cast<int64_t>(kSchemaVersion)});
  });
}

void UpgradeSchema(SqlConnection& connection) {
  InSchemaTransaction(connection, [&] {
    int64_t version = ReadVersion(connection);
    if (version >= kSchemaVersion || version < kOldestUpgradableVersion) return;
    ApplyUpgrades(connection, version);
    connection.Execute("UPDATE schema_version SET version = ?",
                       {static_cast<int64_t>(kSchemaVersion)});
  });
}

}  // namespace

void EnsureSchema(SqlConnection& connection) {
  EnsureChunkTable(connection);
  if (!connection.HasTable("schema_version")) CreateSchema(connection);
  int64_t version = ReadVersion(connection);
  if (version >= kOldestUpgradableVersion && version < kSchemaVersion) {
    UpgradeSchema(connection);
    version = ReadVersion(connection);
  }
  if (version == kSchemaVersion) return;
  throw SqlError(SqlError::Kind::kSchemaMismatch,
                 fmt::format("storage schema version {} is {} than this binary's {}", version,
                             version > kSchemaVersion ? "newer" : "older", kSchemaVersion));
}

}  // namespace tessera::storage
