// MetadataTransaction's statements for the tables migrations use: migration records, jobs,
// settings and shared files (storage/metadata_transaction.h states the contract).
#include <fmt/format.h>

#include <algorithm>
#include <string_view>
#include <tuple>

#include "storage/metadata_transaction.h"
#include "storage/row_reader.h"

namespace tessera::storage {
namespace {

constexpr std::string_view kMigrationColumns =
    "role, migration_id, package_id, purpose, project_id, package_status, import_status, "
    "record_json, internal_json, created_ms, updated_ms";

MigrationRow MigrationFromRow(const SqlRow& row) {
  RowReader cells(row);
  MigrationRow migration;
  cells.Read(migration.role, migration.migration_id, migration.package_id, migration.purpose,
             migration.project_id, migration.package_status, migration.import_status);
  migration.record = cells.JsonText("migration_records.record_json");
  migration.internal = cells.JsonText("migration_records.internal_json");
  cells.Read(migration.created, migration.updated);
  return migration;
}

void SortNewestFirst(std::vector<MigrationRow>& rows) {
  std::sort(rows.begin(), rows.end(), [](const MigrationRow& a, const MigrationRow& b) {
    return std::tie(b.created, a.migration_id, a.role) <
           std::tie(a.created, b.migration_id, b.role);
  });
}

constexpr std::string_view kJobColumns =
    "id, kind, state, lease_owner, lease_expires_ms, data_json, created_ms, updated_ms";

JobRecord JobFromRow(const SqlRow& row) {
  RowReader cells(row);
  JobRecord job;
  cells.Read(job.id, job.kind, job.state, job.lease_owner, job.lease_expires);
  job.data = cells.JsonText("jobs.data_json");
  cells.Read(job.created, job.updated);
  return job;
}

constexpr std::string_view kSharedFileColumns = "id, data_json, created_ms, updated_ms";

SharedFileRecord SharedFileFromRow(const SqlRow& row) {
  RowReader cells(row);
  SharedFileRecord file;
  cells.Read(file.id);
  file.data = cells.JsonText("shared_files.data_json");
  cells.Read(file.created, file.updated);
  return file;
}

}  // namespace

std::string MetadataTransaction::LockClause() const {
  // SQLite write transactions already hold the database's only write lock.
  return db_.backend_name() == "postgresql" ? " FOR UPDATE" : "";
}

// Migration records

std::vector<MigrationRow> MetadataTransaction::SelectMigrations(const std::string& where,
                                                                const SqlParams& params) {
  return ReadRows(
      db_.Query(fmt::format("SELECT {} FROM migration_records WHERE {}", kMigrationColumns, where),
                params),
      MigrationFromRow);
}

void MetadataTransaction::PutMigration(const MigrationRow& row) {
  db_.Execute(
      fmt::format("INSERT INTO migration_records ({}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                  "ON CONFLICT (role, migration_id) DO UPDATE SET "
                  "package_id = excluded.package_id, purpose = excluded.purpose, "
                  "project_id = excluded.project_id, package_status = excluded.package_status, "
                  "import_status = excluded.import_status, record_json = excluded.record_json, "
                  "internal_json = excluded.internal_json, created_ms = excluded.created_ms, "
                  "updated_ms = excluded.updated_ms",
                  kMigrationColumns),
      {row.role, row.migration_id, row.package_id, row.purpose, row.project_id, row.package_status,
       row.import_status, DumpJson(row.record), DumpJson(row.internal), ToUnixMillis(row.created),
       ToUnixMillis(row.updated)});
}

std::optional<MigrationRow> MetadataTransaction::FindMigration(const std::string& role,
                                                               const std::string& migration_id,
                                                               bool for_update) {
  auto rows = SelectMigrations("role = ? AND migration_id = ?" + (for_update ? LockClause() : ""),
                               {role, migration_id});
  if (rows.empty()) return std::nullopt;
  return std::move(rows.front());
}

std::vector<MigrationRow> MetadataTransaction::ListMigrations() {
  auto rows = SelectMigrations("1 = 1", {});
  SortNewestFirst(rows);
  return rows;
}

std::vector<MigrationRow> MetadataTransaction::ListMigrationsOfPackage(
    const std::string& package_id) {
  auto rows = SelectMigrations("package_id = ?", {package_id});
  SortNewestFirst(rows);
  return rows;
}

bool MetadataTransaction::DeleteMigration(const std::string& role,
                                          const std::string& migration_id) {
  DeleteMigrationContent(role, migration_id);
  return db_.Execute("DELETE FROM migration_records WHERE role = ? AND migration_id = ?",
                     {role, migration_id}) > 0;
}

void MetadataTransaction::PutMigrationContent(const std::string& role,
                                              const std::string& migration_id, int64_t chunk,
                                              const std::string& items_json) {
  db_.Execute(
      "INSERT INTO migration_contents (role, migration_id, chunk, items_json) "
      "VALUES (?, ?, ?, ?) "
      "ON CONFLICT (role, migration_id, chunk) DO UPDATE SET items_json = excluded.items_json",
      {role, migration_id, chunk, items_json});
}

std::optional<std::string> MetadataTransaction::FindMigrationContent(
    const std::string& role, const std::string& migration_id, int64_t chunk) {
  auto rows = db_.Query(
      "SELECT items_json FROM migration_contents WHERE role = ? AND migration_id = ? AND "
      "chunk = ?",
      {role, migration_id, chunk});
  if (rows.empty()) return std::nullopt;
  return AsText(rows.front().at(0));
}

void MetadataTransaction::DeleteMigrationContent(const std::string& role,
                                                 const std::string& migration_id) {
  db_.Execute("DELETE FROM migration_contents WHERE role = ? AND migration_id = ?",
              {role, migration_id});
}

// Jobs

std::vector<JobRecord> MetadataTransaction::SelectJobs(const std::string& where,
                                                       const SqlParams& params) {
  return ReadRows(
      db_.Query(fmt::format("SELECT {} FROM jobs WHERE {}", kJobColumns, where), params),
      JobFromRow);
}

void MetadataTransaction::PutJob(const JobRecord& job) {
  db_.Execute(
      fmt::format("INSERT INTO jobs ({}) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
                  "ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, state = excluded.state, "
                  "lease_owner = excluded.lease_owner, "
                  "lease_expires_ms = excluded.lease_expires_ms, data_json = excluded.data_json, "
                  "created_ms = excluded.created_ms, updated_ms = excluded.updated_ms",
                  kJobColumns),
      {job.id, job.kind, job.state, job.lease_owner, ToUnixMillis(job.lease_expires),
       DumpJson(job.data), ToUnixMillis(job.created), ToUnixMillis(job.updated)});
}

std::optional<JobRecord> MetadataTransaction::FindJob(const std::string& id, bool for_update) {
  auto jobs = SelectJobs("id = ?" + (for_update ? LockClause() : ""), {id});
  if (jobs.empty()) return std::nullopt;
  return std::move(jobs.front());
}

std::vector<JobRecord> MetadataTransaction::ListJobs(const std::string& state) {
  auto jobs = SelectJobs("state = ?", {state});
  std::sort(jobs.begin(), jobs.end(), [](const JobRecord& a, const JobRecord& b) {
    return std::tie(a.created, a.id) < std::tie(b.created, b.id);
  });
  return jobs;
}

bool MetadataTransaction::ReplaceLease(const std::string& id, const std::string& expected_owner,
                                       Timestamp expected_expires, const std::string& new_owner,
                                       Timestamp new_expires) {
  return db_.Execute(
             "UPDATE jobs SET lease_owner = ?, lease_expires_ms = ? "
             "WHERE id = ? AND lease_owner = ? AND lease_expires_ms = ?",
             {new_owner, ToUnixMillis(new_expires), id, expected_owner,
              ToUnixMillis(expected_expires)}) > 0;
}

std::map<std::pair<std::string, std::string>, int64_t> MetadataTransaction::CountJobs() {
  std::map<std::pair<std::string, std::string>, int64_t> counts;
  for (const auto& row : db_.Query("SELECT kind, state, count(*) FROM jobs GROUP BY kind, state")) {
    counts[{std::get<std::string>(row[0]), std::get<std::string>(row[1])}] = AsInt(row[2]);
  }
  return counts;
}

// Settings

std::optional<Json> MetadataTransaction::FindSetting(const std::string& key) {
  auto rows = db_.Query("SELECT value_json FROM settings WHERE name = ?", {key});
  if (rows.empty()) return std::nullopt;
  return AsJson(rows.front().at(0), "settings.value_json");
}

void MetadataTransaction::PutSetting(const std::string& key, const Json& value) {
  db_.Execute(
      "INSERT INTO settings (name, value_json, updated_ms) VALUES (?, ?, ?) "
      "ON CONFLICT (name) DO UPDATE SET value_json = excluded.value_json, "
      "updated_ms = excluded.updated_ms",
      {key, DumpJson(value), ToUnixMillis(Now())});
}

// Shared files

std::vector<SharedFileRecord> MetadataTransaction::SelectSharedFiles(const std::string& where,
                                                                     const SqlParams& params) {
  return ReadRows(
      db_.Query(fmt::format("SELECT {} FROM shared_files WHERE {}", kSharedFileColumns, where),
                params),
      SharedFileFromRow);
}

void MetadataTransaction::PutSharedFile(const SharedFileRecord& file) {
  db_.Execute(
      fmt::format("INSERT INTO shared_files ({}) VALUES (?, ?, ?, ?) "
                  "ON CONFLICT (id) DO UPDATE SET data_json = excluded.data_json, "
                  "created_ms = excluded.created_ms, updated_ms = excluded.updated_ms",
                  kSharedFileColumns),
      {file.id, DumpJson(file.data), ToUnixMillis(file.created), ToUnixMillis(file.updated)});
}

std::optional<SharedFileRecord> MetadataTransaction::FindSharedFile(const std::string& id) {
  auto files = SelectSharedFiles("id = ?", {id});
  if (files.empty()) return std::nullopt;
  return std::move(files.front());
}

std::vector<SharedFileRecord> MetadataTransaction::ListSharedFiles() {
  auto files = SelectSharedFiles("1 = 1", {});
  std::sort(files.begin(), files.end(), [](const SharedFileRecord& a, const SharedFileRecord& b) {
    return std::tie(a.created, a.id) < std::tie(b.created, b.id);
  });
  return files;
}

bool MetadataTransaction::DeleteSharedFile(const std::string& id) {
  return db_.Execute("DELETE FROM shared_files WHERE id = ?", {id}) > 0;
}

}  // namespace tessera::storage
