#include "storage/metadata_transaction.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "core/error.h"
#include "core/strings.h"
#include "storage/row_reader.h"

namespace tessera::storage {
namespace {

using model::ObjectRecord;

constexpr std::array<std::string_view, 17> kObjectColumns = {
    "project_id",  "id",           "type",      "subtype",  "ext_type",       "name",
    "description", "abbreviation", "folder_id", "owner_id", "version",        "created_ms",
    "modified_ms", "hidden",       "certified", "acl_json", "definition_json"};
constexpr size_t kObjectKeyColumns = 2;  // (project_id, id)

// Statement text is built only from these constants and placeholder counts; values are bound.
constexpr size_t kMaxParamsPerStatement = 500;

std::string Placeholders(size_t count) {
  std::string out;
  for (size_t i = 0; i < count; ++i) out += i == 0 ? "?" : ", ?";
  return out;
}

std::string ObjectColumnList(std::string_view prefix) {
  std::string out;
  for (std::string_view column : kObjectColumns) {
    if (!out.empty()) out += ", ";
    out += prefix;
    out += column;
  }
  return out;
}

const std::string& UpsertObjectSql() {
  static const std::string sql = [] {
    std::string updates;
    for (size_t i = kObjectKeyColumns; i < kObjectColumns.size(); ++i) {
      if (!updates.empty()) updates += ", ";
      updates += fmt::format("{0} = excluded.{0}", kObjectColumns[i]);
    }
    return fmt::format(
        "INSERT INTO objects ({}) VALUES ({}) ON CONFLICT (project_id, id) DO UPDATE SET {}",
        ObjectColumnList(""), Placeholders(kObjectColumns.size()), updates);
  }();
  return sql;
}

SqlParams ObjectParams(const ObjectRecord& object) {
  return {object.project_id,
          object.id,
          int64_t{object.type},
          int64_t{object.subtype},
          int64_t{object.ext_type},
          object.name,
          object.description,
          object.abbreviation,
          object.folder_id,
          object.owner_id,
          object.version,
          ToUnixMillis(object.created),
          ToUnixMillis(object.modified),
          int64_t{object.hidden ? 1 : 0},
          int64_t{object.certified ? 1 : 0},
          DumpJson(model::AclToJson(object.acl)),
          DumpJson(object.definition)};
}

// Reads the object columns at the reader's position (in kObjectColumns order).
ObjectRecord ReadObject(RowReader& cells) {
  ObjectRecord object;
  cells.Read(object.project_id, object.id, object.type, object.subtype, object.ext_type,
             object.name, object.description, object.abbreviation, object.folder_id,
             object.owner_id, object.version, object.created, object.modified, object.hidden,
             object.certified);
  object.acl = model::AclFromJson(cells.JsonText("objects.acl_json"));
  object.definition = cells.JsonText("objects.definition_json");
  return object;
}

ObjectRecord ObjectFromRow(const SqlRow& row) {
  RowReader cells(row);
  return ReadObject(cells);
}

void SortByTypeAndName(std::vector<ObjectRecord>& objects) {
  std::sort(objects.begin(), objects.end(), [](const ObjectRecord& a, const ObjectRecord& b) {
    return std::tie(a.type, a.name, a.id) < std::tie(b.type, b.name, b.id);
  });
}

std::vector<std::string> TextColumn(const std::vector<SqlRow>& rows) {
  std::vector<std::string> out;
  out.reserve(rows.size());
  for (const auto& row : rows) out.push_back(AsText(row.at(0)));
  std::sort(out.begin(), out.end());
  return out;
}

SqlParams IntParams(const std::vector<int>& values) {
  SqlParams params;
  for (int value : values) params.emplace_back(int64_t{value});
  return params;
}

constexpr std::string_view kSessionColumns =
    "token_hash, session_id, user_id, application_type, created_ms, last_active_ms, "
    "idle_timeout_seconds";

SessionRecord SessionFromRow(const SqlRow& row) {
  RowReader cells(row);
  SessionRecord session;
  cells.Read(session.token_hash, session.session_id, session.user_id, session.application_type,
             session.created, session.last_active, session.idle_timeout_seconds);
  return session;
}

constexpr std::string_view kSearchColumns =
    "id, session_id, project_id, created_ms, object_ids_json";

SearchRecord SearchFromRow(const SqlRow& row) {
  RowReader cells(row);
  SearchRecord search;
  cells.Read(search.id, search.session_id, search.project_id, search.created);
  for (const auto& id : cells.JsonText("searches.object_ids_json")) {
    search.object_ids.push_back(id.get<std::string>());
  }
  return search;
}

// A cube's row: cube ids are unique within a project, the table's key is one text column.
std::string CubeSnapshotKey(const std::string& project_id, const std::string& cube_id) {
  return project_id + ":" + cube_id;
}

constexpr std::string_view kCubeSnapshotColumns =
    "project_id, state, data_json, created_ms, updated_ms";

CubeSnapshotRecord CubeSnapshotFromRow(const SqlRow& row) {
  RowReader cells(row);
  CubeSnapshotRecord snapshot;
  cells.Read(snapshot.project_id, snapshot.state);
  Json data = cells.JsonText("cube_snapshots.data_json");
  snapshot.cube_id = data.value("cubeId", "");
  snapshot.error_message = data.value("errorMessage", "");
  snapshot.snapshot_file = data.value("snapshotFile", "");
  snapshot.rows = data.value("rows", int64_t{0});
  snapshot.memory_bytes = data.value("memoryBytes", int64_t{0});
  snapshot.raw_bytes = data.value("rawBytes", int64_t{0});
  snapshot.published = FromUnixMillis(data.value("publishedMs", int64_t{0}));
  snapshot.last_publish_duration_ms = data.value("lastPublishDurationMs", int64_t{0});
  snapshot.publish_job_id = data.value("publishJobId", "");
  snapshot.rows_file = data.value("rowsFile", "");
  snapshot.previous_snapshot_file = data.value("previousSnapshotFile", "");
  cells.Read(snapshot.created, snapshot.updated);
  return snapshot;
}

Json CubeSnapshotData(const CubeSnapshotRecord& snapshot) {
  return Json{{"cubeId", snapshot.cube_id},
              {"errorMessage", snapshot.error_message},
              {"snapshotFile", snapshot.snapshot_file},
              {"rows", snapshot.rows},
              {"memoryBytes", snapshot.memory_bytes},
              {"rawBytes", snapshot.raw_bytes},
              {"publishedMs", ToUnixMillis(snapshot.published)},
              {"lastPublishDurationMs", snapshot.last_publish_duration_ms},
              {"publishJobId", snapshot.publish_job_id},
              {"rowsFile", snapshot.rows_file},
              {"previousSnapshotFile", snapshot.previous_snapshot_file}};
}

Error ProjectNameTaken(const std::string& name) {
  return Error(ErrorCode::kAlreadyExists, fmt::format("A project named '{}' already exists", name));
}

}  // namespace

// Objects

std::vector<ObjectRecord> MetadataTransaction::SelectObjects(const std::string& where,
                                                             const SqlParams& params) {
  return ReadRows(
      db_.Query(fmt::format("SELECT {} FROM objects WHERE {}", ObjectColumnList(""), where),
                params),
      ObjectFromRow);
}

std::optional<ObjectRecord> MetadataTransaction::FindObject(const std::string& project_id,
                                                            const std::string& id) {
  auto objects = SelectObjects("project_id = ? AND id = ?", {project_id, id});
  if (objects.empty()) return std::nullopt;
  return std::move(objects.front());
}

std::vector<ObjectRecord> MetadataTransaction::FindObjects(const std::string& project_id,
                                                           const std::vector<std::string>& ids) {
  std::unordered_map<std::string, ObjectRecord> found;
  for (size_t start = 0; start < ids.size(); start += kMaxParamsPerStatement) {
    size_t count = std::min(kMaxParamsPerStatement, ids.size() - start);
    SqlParams params{project_id};
    params.insert(params.end(), ids.begin() + start, ids.begin() + start + count);
    auto where = fmt::format("project_id = ? AND id IN ({})", Placeholders(count));
    for (auto& object : SelectObjects(where, params)) {
      std::string key = object.id;
      found.emplace(std::move(key), std::move(object));
    }
  }
  std::vector<ObjectRecord> ordered;
  ordered.reserve(found.size());
  for (const auto& id : ids) {
    auto it = found.find(id);
    if (it == found.end()) continue;
    ordered.push_back(std::move(it->second));
    found.erase(it);  // an id asked for twice is returned once
  }
  return ordered;
}

std::vector<ObjectRecord> MetadataTransaction::ListChildren(const std::string& project_id,
                                                            const std::string& folder_id) {
  auto objects = SelectObjects("project_id = ? AND folder_id = ?", {project_id, folder_id});
  SortByTypeAndName(objects);
  return objects;
}

std::vector<ObjectRecord> MetadataTransaction::FindChildrenNamed(const std::string& project_id,
                                                                 const std::string& folder_id,
                                                                 const std::string& name) {
  // LOWER may fold more than ASCII (PostgreSQL): it finds candidates, the comparison decides.
  auto candidates = SelectObjects("project_id = ? AND folder_id = ? AND LOWER(name) = LOWER(?)",
                                  {project_id, folder_id, name});
  std::erase_if(candidates,
                [&](const ObjectRecord& object) { return !EqualsIgnoreCase(object.name, name); });
  SortByTypeAndName(candidates);
  return candidates;
}

bool MetadataTransaction::HasChildren(const std::string& project_id, const std::string& folder_id) {
  return !db_.Query("SELECT 1 FROM objects WHERE project_id = ? AND folder_id = ? LIMIT 1",
                    {project_id, folder_id})
              .empty();
}

std::vector<ObjectRecord> MetadataTransaction::ListObjects(const std::string& project_id,
                                                           const ObjectFilter& filter) {
  std::string where = "project_id = ?";
  SqlParams params{project_id};
  std::vector<std::string> alternatives;
  if (!filter.types.empty()) {
    alternatives.push_back(fmt::format("type IN ({})", Placeholders(filter.types.size())));
    auto types = IntParams(filter.types);
    params.insert(params.end(), types.begin(), types.end());
  }
  if (!filter.subtypes.empty()) {
    alternatives.push_back(fmt::format("subtype IN ({})", Placeholders(filter.subtypes.size())));
    auto subtypes = IntParams(filter.subtypes);
    params.insert(params.end(), subtypes.begin(), subtypes.end());
  }
  if (!alternatives.empty()) where += fmt::format(" AND ({})", fmt::join(alternatives, " OR "));
  auto objects = SelectObjects(where, params);
  SortByTypeAndName(objects);
  return objects;
}

void MetadataTransaction::PutObject(const ObjectRecord& object) {
  if (object.project_id.empty()) changed_directory_ = true;
  changed_objects_ = true;
  db_.Execute(UpsertObjectSql(), ObjectParams(object));
}

bool MetadataTransaction::DeleteObject(const std::string& project_id, const std::string& id) {
  if (project_id.empty()) changed_directory_ = true;
  changed_objects_ = true;
  int64_t deleted =
      db_.Execute("DELETE FROM objects WHERE project_id = ? AND id = ?", {project_id, id});
  db_.Execute("DELETE FROM dependencies WHERE project_id = ? AND object_id = ?", {project_id, id});
  if (project_id.empty()) db_.Execute("DELETE FROM projects WHERE id = ?", {id});
  return deleted > 0;
}

namespace {

constexpr char kObjectKeyListColumns[] = "id, type, subtype, folder_id, version, modified_ms";

ObjectKey ObjectKeyFromRow(const SqlRow& row) {
  RowReader cells(row);
  ObjectKey key;
  cells.Read(key.id, key.type, key.subtype, key.folder_id, key.version, key.modified);
  return key;
}

}  // namespace

std::vector<ObjectKey> MetadataTransaction::ListObjectKeys(const std::string& project_id) {
  std::vector<ObjectKey> keys = ReadRows(
      db_.Query(fmt::format("SELECT {} FROM objects WHERE project_id = ?", kObjectKeyListColumns),
                {project_id}),
      ObjectKeyFromRow);
  std::sort(keys.begin(), keys.end(),
            [](const ObjectKey& a, const ObjectKey& b) { return a.id < b.id; });
  return keys;
}

std::vector<ObjectKey> MetadataTransaction::ListObjectKeysAfter(const std::string& project_id,
                                                                const std::string& after_id,
                                                                int64_t limit) {
  return ReadRows(db_.Query(fmt::format("SELECT {} FROM objects WHERE project_id = ? AND id > ? "
                                        "ORDER BY id LIMIT ?",
                                        kObjectKeyListColumns),
                            {project_id, after_id, limit}),
                  ObjectKeyFromRow);
}

// Dependencies

void MetadataTransaction::SetDependencies(const std::string& project_id,
                                          const std::string& object_id,
                                          const std::vector<std::string>& used_ids) {
  db_.Execute("DELETE FROM dependencies WHERE project_id = ? AND object_id = ?",
              {project_id, object_id});
  std::unordered_set<std::string> written;
  for (const auto& used_id : used_ids) {
    if (!written.insert(used_id).second) continue;
    db_.Execute("INSERT INTO dependencies (project_id, object_id, used_id) VALUES (?, ?, ?)",
                {project_id, object_id, used_id});
  }
}

std::vector<std::string> MetadataTransaction::ListUses(const std::string& project_id,
                                                       const std::string& object_id) {
  return TextColumn(
      db_.Query("SELECT used_id FROM dependencies WHERE project_id = ? AND object_id = ?",
                {project_id, object_id}));
}

std::vector<std::string> MetadataTransaction::ListUsedBy(const std::string& project_id,
                                                         const std::string& object_id) {
  return TextColumn(
      db_.Query("SELECT object_id FROM dependencies WHERE project_id = ? AND used_id = ?",
                {project_id, object_id}));
}

namespace {

constexpr std::string_view kDanglingUseColumns = "d.object_id, d.used_id";

DanglingUse DanglingUseFromRow(const SqlRow& row) {
  RowReader cells(row);
  DanglingUse use;
  cells.Read(use.object_id, use.used_id);
  return use;
}

}  // namespace

std::vector<DanglingUse> MetadataTransaction::ListDanglingUses(
    const std::string& project_id, const std::vector<std::string>& object_ids) {
  std::vector<DanglingUse> dangling;
  for (size_t start = 0; start < object_ids.size(); start += kMaxParamsPerStatement) {
    size_t count = std::min(kMaxParamsPerStatement, object_ids.size() - start);
    SqlParams params{project_id};
    params.insert(params.end(), object_ids.begin() + start, object_ids.begin() + start + count);
    auto rows = db_.Query(
        fmt::format("SELECT {} FROM dependencies d "
                    "LEFT JOIN objects o ON o.project_id = d.project_id AND o.id = d.used_id "
                    "WHERE d.project_id = ? AND d.object_id IN ({}) AND o.id IS NULL",
                    kDanglingUseColumns, Placeholders(count)),
        params);
    for (auto& use : ReadRows(rows, DanglingUseFromRow)) dangling.push_back(std::move(use));
  }
  std::sort(dangling.begin(), dangling.end(), [](const DanglingUse& a, const DanglingUse& b) {
    return std::tie(a.object_id, a.used_id) < std::tie(b.object_id, b.used_id);
  });
  return dangling;
}

// Projects

namespace {

// A project's own columns, then its object's (`p` is projects, `o` its object row).
const std::string& ProjectColumns() {
  static const std::string columns = "p.status, p.alias, " + ObjectColumnList("o.");
  return columns;
}

ProjectRecord ProjectFromRow(const SqlRow& row) {
  RowReader cells(row);
  ProjectRecord project;
  cells.Read(project.status, project.alias);
  project.object = ReadObject(cells);
  return project;
}

}  // namespace

std::vector<ProjectRecord> MetadataTransaction::SelectProjects(const std::string& where,
                                                               const SqlParams& params) {
  auto projects =
      ReadRows(db_.Query(fmt::format("SELECT {} FROM projects p "
                                     "JOIN objects o ON o.project_id = '' AND o.id = p.id{}",
                                     ProjectColumns(), where.empty() ? "" : " WHERE " + where),
                         params),
               ProjectFromRow);
  std::sort(projects.begin(), projects.end(), [](const ProjectRecord& a, const ProjectRecord& b) {
    return std::tie(a.object.name, a.object.id) < std::tie(b.object.name, b.object.id);
  });
  return projects;
}

std::vector<ProjectRecord> MetadataTransaction::ListProjects() { return SelectProjects("", {}); }

std::optional<ProjectRecord> MetadataTransaction::FindProject(const std::string& id) {
  auto projects = SelectProjects("p.id = ?", {id});
  if (projects.empty()) return std::nullopt;
  return std::move(projects.front());
}

std::optional<ProjectRecord> MetadataTransaction::FindProjectByName(const std::string& name) {
  auto projects = SelectProjects("p.name = ?", {name});
  if (projects.empty()) return std::nullopt;
  return std::move(projects.front());
}

void MetadataTransaction::PutProject(const ProjectRecord& project) {
  changed_directory_ = true;
  changed_objects_ = true;  // the project's object row
  const std::string& name = project.object.name;
  auto rows =
      db_.Query("SELECT id FROM projects WHERE name = ? AND id <> ?", {name, project.object.id});
  if (!rows.empty()) throw ProjectNameTaken(name);
  try {
    db_.Execute(
        "INSERT INTO projects (id, name, status, alias) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (id) DO UPDATE SET name = excluded.name, status = excluded.status, "
        "alias = excluded.alias",
        {project.object.id, name, int64_t{project.status}, project.alias});
  } catch (const SqlError& error) {
    // Another transaction took the name after our check.
    if (error.kind() == SqlError::Kind::kUniqueViolation) throw ProjectNameTaken(name);
    throw;
  }
  ObjectRecord object = project.object;
  object.project_id.clear();  // a project is a configuration-level object
  PutObject(object);
}

// Sessions

void MetadataTransaction::PutSession(const SessionRecord& session) {
  db_.Execute(
      fmt::format("INSERT INTO sessions ({}) VALUES (?, ?, ?, ?, ?, ?, ?) "
                  "ON CONFLICT (token_hash) DO UPDATE SET session_id = excluded.session_id, "
                  "user_id = excluded.user_id, application_type = excluded.application_type, "
                  "created_ms = excluded.created_ms, last_active_ms = excluded.last_active_ms, "
                  "idle_timeout_seconds = excluded.idle_timeout_seconds",
                  kSessionColumns),
      {session.token_hash, session.session_id, session.user_id, int64_t{session.application_type},
       ToUnixMillis(session.created), ToUnixMillis(session.last_active),
       int64_t{session.idle_timeout_seconds}});
}

std::optional<SessionRecord> MetadataTransaction::FindSession(const std::string& token_hash) {
  return ReadFirstRow(
      db_.Query(fmt::format("SELECT {} FROM sessions WHERE token_hash = ?", kSessionColumns),
                {token_hash}),
      SessionFromRow);
}

void MetadataTransaction::TouchSession(const std::string& token_hash, Timestamp last_active) {
  db_.Execute("UPDATE sessions SET last_active_ms = ? WHERE token_hash = ?",
              {ToUnixMillis(last_active), token_hash});
}

void MetadataTransaction::DeleteSession(const std::string& token_hash) {
  db_.Execute("DELETE FROM sessions WHERE token_hash = ?", {token_hash});
}

int MetadataTransaction::DeleteSessionsOfUser(const std::string& user_id) {
  for (const char* table : {"searches", "instances"}) {
    db_.Execute(fmt::format("DELETE FROM {} WHERE session_id IN (SELECT session_id FROM sessions "
                            "WHERE user_id = ?)",
                            table),
                {user_id});
  }
  return static_cast<int>(db_.Execute("DELETE FROM sessions WHERE user_id = ?", {user_id}));
}

int MetadataTransaction::DeleteExpiredSessions(Timestamp now) {
  return static_cast<int>(
      db_.Execute("DELETE FROM sessions WHERE last_active_ms + idle_timeout_seconds * 1000 < ?",
                  {ToUnixMillis(now)}));
}

int64_t MetadataTransaction::CountSessions() {
  return AsInt(db_.Query("SELECT count(*) FROM sessions").front().front());
}

// Searches

void MetadataTransaction::PutSearch(const SearchRecord& search) {
  Json ids = Json::array();
  for (const auto& id : search.object_ids) ids.push_back(id);
  db_.Execute(fmt::format("INSERT INTO searches ({}) VALUES (?, ?, ?, ?, ?) "
                          "ON CONFLICT (id) DO UPDATE SET session_id = excluded.session_id, "
                          "project_id = excluded.project_id, created_ms = excluded.created_ms, "
                          "object_ids_json = excluded.object_ids_json",
                          kSearchColumns),
              {search.id, search.session_id, search.project_id, ToUnixMillis(search.created),
               DumpJson(ids)});
}

std::optional<SearchRecord> MetadataTransaction::FindSearch(const std::string& id) {
  return ReadFirstRow(
      db_.Query(fmt::format("SELECT {} FROM searches WHERE id = ?", kSearchColumns), {id}),
      SearchFromRow);
}

void MetadataTransaction::DeleteSearchesOfSession(const std::string& session_id) {
  db_.Execute("DELETE FROM searches WHERE session_id = ?", {session_id});
}

// Published cubes

void MetadataTransaction::PutCubeSnapshot(const CubeSnapshotRecord& snapshot) {
  db_.Execute(
      "INSERT INTO cube_snapshots (id, project_id, kind, state, data_json, created_ms, updated_ms) "
      "VALUES (?, ?, 'cube', ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET "
      "project_id = excluded.project_id, kind = excluded.kind, state = excluded.state, "
      "data_json = excluded.data_json, updated_ms = excluded.updated_ms",
      {CubeSnapshotKey(snapshot.project_id, snapshot.cube_id), snapshot.project_id, snapshot.state,
       DumpJson(CubeSnapshotData(snapshot)), ToUnixMillis(snapshot.created),
       ToUnixMillis(snapshot.updated)});
}

std::optional<CubeSnapshotRecord> MetadataTransaction::FindCubeSnapshot(
    const std::string& project_id, const std::string& cube_id, bool for_update) {
  return ReadFirstRow(
      db_.Query(fmt::format("SELECT {} FROM cube_snapshots WHERE id = ? AND kind = 'cube'{}",
                            kCubeSnapshotColumns, for_update ? LockClause() : ""),
                {CubeSnapshotKey(project_id, cube_id)}),
      CubeSnapshotFromRow);
}

std::vector<CubeSnapshotRecord> MetadataTransaction::ListCubeSnapshots(
    const std::string& project_id) {
  auto snapshots = ReadRows(
      db_.Query(fmt::format("SELECT {} FROM cube_snapshots WHERE project_id = ? AND kind = 'cube'",
                            kCubeSnapshotColumns),
                {project_id}),
      CubeSnapshotFromRow);
  std::sort(snapshots.begin(), snapshots.end(),
            [](const CubeSnapshotRecord& a, const CubeSnapshotRecord& b) {
              return a.cube_id < b.cube_id;
            });
  return snapshots;
}

bool MetadataTransaction::DeleteCubeSnapshot(const std::string& project_id,
                                             const std::string& cube_id) {
  return db_.Execute("DELETE FROM cube_snapshots WHERE id = ?",
                     {CubeSnapshotKey(project_id, cube_id)}) > 0;
}

void MetadataTransaction::Notify(const std::string& channel, const std::string& payload) {
  // PostgreSQL delivers it at commit; SQLite serves one node, which needs no notice.
  if (db_.backend_name() != "postgresql") return;
  db_.Query("SELECT pg_notify(?, ?)", {channel, payload});
}

int64_t MetadataTransaction::ObjectsGeneration() {
  auto rows = db_.Query("SELECT value FROM generations WHERE name = 'objects'");
  return rows.empty() ? 0 : AsInt(rows.front().front());
}

void MetadataTransaction::CountObjectChange() {
  db_.Execute("UPDATE generations SET value = value + 1 WHERE name = 'objects'");
}

}  // namespace tessera::storage
