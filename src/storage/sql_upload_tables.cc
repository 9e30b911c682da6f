#include <fmt/format.h>

#include <string_view>

#include "storage/metadata_transaction.h"
#include "storage/row_reader.h"

namespace tessera::storage {
namespace {

constexpr std::string_view kUploadSessionColumns =
    "id, project_id, dataset_id, user_id, tables_json, state, error, publish_started_ms, "
    "last_used_ms";

UploadSessionRecord UploadSessionFromRow(const SqlRow& row) {
  RowReader cells(row);
  UploadSessionRecord session;
  cells.Read(session.id, session.project_id, session.dataset_id, session.user_id);
  session.tables = cells.JsonText("upload_sessions.tables_json");
  cells.Read(session.state, session.error, session.publish_started, session.last_used);
  return session;
}

// A chunk without its data, for listing what a session holds without reading its bytes.
constexpr std::string_view kUploadChunkKeyColumns = "table_name, chunk_index, revision";

UploadChunk UploadChunkKeyFromRow(const SqlRow& row) {
  RowReader cells(row);
  UploadChunk key;
  cells.Read(key.table, key.index, key.revision);
  return key;
}

constexpr std::string_view kUploadChunkColumns = "table_name, chunk_index, data, revision";

// The text of `cell`, moved out of it: a chunk's bytes are not copied once more.
std::string TakeText(SqlValue& cell) {
  if (auto* text = std::get_if<std::string>(&cell)) return std::move(*text);
  return AsText(cell);
}

// The row is mutable because `data` is moved out of it, which a RowReader does not do.
UploadChunk UploadChunkFromRow(SqlRow& row) {
  return UploadChunk{AsText(row.at(0)), AsInt(row.at(1)), TakeText(row.at(2)), AsText(row.at(3))};
}

}  // namespace

std::vector<UploadSessionRecord> MetadataTransaction::SelectUploadSessions(
    const std::string& where, const SqlParams& params) {
  return ReadRows(db_.Query(fmt::format("SELECT {} FROM upload_sessions WHERE {}",
                                        kUploadSessionColumns, where),
                            params),
                  UploadSessionFromRow);
}

void MetadataTransaction::PutUploadSession(const UploadSessionRecord& session) {
  db_.Execute(
      fmt::format(
          "INSERT INTO upload_sessions ({}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
          "ON CONFLICT (id) DO UPDATE SET project_id = excluded.project_id, "
          "dataset_id = excluded.dataset_id, user_id = excluded.user_id, "
          "tables_json = excluded.tables_json, state = excluded.state, error = excluded.error, "
          "publish_started_ms = excluded.publish_started_ms, last_used_ms = excluded.last_used_ms",
          kUploadSessionColumns),
      {session.id, session.project_id, session.dataset_id, session.user_id,
       DumpJson(session.tables), session.state, session.error,
       ToUnixMillis(session.publish_started), ToUnixMillis(session.last_used)});
}

std::optional<UploadSessionRecord> MetadataTransaction::FindUploadSession(const std::string& id,
                                                                          bool for_update) {
  auto sessions = SelectUploadSessions("id = ?" + (for_update ? LockClause() : ""), {id});
  if (sessions.empty()) return std::nullopt;
  return std::move(sessions.front());
}

std::vector<UploadSessionRecord> MetadataTransaction::ListUploadSessions(
    const std::string& project_id, const std::string& dataset_id) {
  return SelectUploadSessions("project_id = ? AND dataset_id = ? ORDER BY id",
                              {project_id, dataset_id});
}

bool MetadataTransaction::DeleteUploadSession(const std::string& id) {
  db_.Execute("DELETE FROM upload_chunks WHERE session_id = ?", {id});
  return db_.Execute("DELETE FROM upload_sessions WHERE id = ?", {id}) > 0;
}

int MetadataTransaction::DeleteUploadSessionsUnusedSince(Timestamp before) {
  const SqlParams params = {ToUnixMillis(before)};
  db_.Execute(
      "DELETE FROM upload_chunks WHERE session_id NOT IN (SELECT id FROM upload_sessions "
      "WHERE state = 'publishing' OR last_used_ms >= ?)",
      params);
  return static_cast<int>(db_.Execute(
      "DELETE FROM upload_sessions WHERE state <> 'publishing' AND last_used_ms < ?", params));
}

void MetadataTransaction::PutUploadChunk(const std::string& session_id, const UploadChunk& chunk) {
  db_.Execute(fmt::format("INSERT INTO upload_chunks (session_id, {}) VALUES (?, ?, ?, ?, ?) "
                          "ON CONFLICT (session_id, table_name, chunk_index) "
                          "DO UPDATE SET data = excluded.data, revision = excluded.revision",
                          kUploadChunkColumns),
              {session_id, chunk.table, chunk.index, chunk.data, chunk.revision});
}

std::vector<UploadChunk> MetadataTransaction::ListUploadChunkKeys(const std::string& session_id) {
  return ReadRows(db_.Query(fmt::format("SELECT {} FROM upload_chunks WHERE session_id = ? "
                                        "ORDER BY table_name, chunk_index",
                                        kUploadChunkKeyColumns),
                            {session_id}),
                  UploadChunkKeyFromRow);
}

std::vector<UploadChunk> MetadataTransaction::ListUploadChunks(const std::string& session_id) {
  std::vector<UploadChunk> chunks;
  for (auto& row : db_.Query(fmt::format("SELECT {} FROM upload_chunks WHERE session_id = ? "
                                         "ORDER BY table_name, chunk_index",
                                         kUploadChunkColumns),
                             {session_id})) {
    chunks.push_back(UploadChunkFromRow(row));
  }
  return chunks;
}

std::optional<UploadChunk> MetadataTransaction::FindUploadChunk(const std::string& session_id,
                                                                const std::string& table,
                                                                int64_t index) {
  auto rows = db_.Query(fmt::format("SELECT {} FROM upload_chunks "
                                    "WHERE session_id = ? AND table_name = ? AND chunk_index = ?",
                                    kUploadChunkColumns),
                        {session_id, table, index});
  if (rows.empty()) return std::nullopt;
  return UploadChunkFromRow(rows.front());
}

void MetadataTransaction::DeleteUploadChunks(const std::string& session_id) {
  db_.Execute("DELETE FROM upload_chunks WHERE session_id = ?", {session_id});
}

}  // namespace tessera::storage
