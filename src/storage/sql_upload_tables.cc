#include <fmt/format.h>

#include "storage/metadata_transaction.h"

namespace tessera::storage {
namespace {

constexpr char kUploadSessionColumns[] =
    "id, project_id, dataset_id, user_id, tables_json, state, error, publish_started_ms, "
    "last_used_ms";

// The text of `cell`, moved out of it: a chunk's bytes are not copied once more.
std::string TakeText(SqlValue& cell) {
  if (auto* text = std::get_if<std::string>(&cell)) return std::move(*text);
  return AsText(cell);
}

UploadSessionRecord UploadSessionFromRow(const SqlRow& row) {
  UploadSessionRecord session;
  session.id = AsText(row.at(0));
  session.project_id = AsText(row.at(1));
  session.dataset_id = AsText(row.at(2));
  session.user_id = AsText(row.at(3));
  session.tables = AsJson(row.at(4), "upload_sessions.tables_json");
  session.state = AsText(row.at(5));
  session.error = AsText(row.at(6));
  session.publish_started = FromUnixMillis(AsInt(row.at(7)));
  session.last_used = FromUnixMillis(AsInt(row.at(8)));
  return session;
}

}  // namespace

std::vector<UploadSessionRecord> MetadataTransaction::SelectUploadSessions(
    const std::string& where, const SqlParams& params) {
  auto rows = db_.Query(
      fmt::format("SELECT {} FROM upload_sessions WHERE {}", kUploadSessionColumns, where), params);
  std::vector<UploadSessionRecord> sessions;
  sessions.reserve(rows.size());
  for (const auto& row : rows) sessions.push_back(UploadSessionFromRow(row));
  return sessions;
}

void MetadataTransaction::PutUploadSession(const UploadSessionRecord& session) {
  db_.Execute(
      "INSERT INTO upload_sessions (id, project_id, dataset_id, user_id, tables_json, state, "
      "error, publish_started_ms, last_used_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
      "ON CONFLICT (id) DO UPDATE SET project_id = excluded.project_id, "
      "dataset_id = excluded.dataset_id, user_id = excluded.user_id, "
      "tables_json = excluded.tables_json, state = excluded.state, error = excluded.error, "
      "publish_started_ms = excluded.publish_started_ms, last_used_ms = excluded.last_used_ms",
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
  db_.Execute(
      "INSERT INTO upload_chunks (session_id, table_name, chunk_index, data, revision) "
      "VALUES (?, ?, ?, ?, ?) ON CONFLICT (session_id, table_name, chunk_index) "
      "DO UPDATE SET data = excluded.data, revision = excluded.revision",
      {session_id, chunk.table, chunk.index, chunk.data, chunk.revision});
}

std::vector<UploadChunk> MetadataTransaction::ListUploadChunkKeys(const std::string& session_id) {
  std::vector<UploadChunk> keys;
  for (const auto& row : db_.Query("SELECT table_name, chunk_index, revision FROM upload_chunks "
                                   "WHERE session_id = ? ORDER BY table_name, chunk_index",
                                   {session_id})) {
    keys.push_back({AsText(row.at(0)), AsInt(row.at(1)), "", AsText(row.at(2))});
  }
  return keys;
}

std::vector<UploadChunk> MetadataTransaction::ListUploadChunks(const std::string& session_id) {
  std::vector<UploadChunk> chunks;
  for (auto& row : db_.Query("SELECT table_name, chunk_index, data, revision FROM upload_chunks "
                             "WHERE session_id = ? ORDER BY table_name, chunk_index",
                             {session_id})) {
    chunks.push_back({AsText(row.at(0)), AsInt(row.at(1)), TakeText(row.at(2)), AsText(row.at(3))});
  }
  return chunks;
}

std::optional<UploadChunk> MetadataTransaction::FindUploadChunk(const std::string& session_id,
                                                                const std::string& table,
                                                                int64_t index) {
  auto rows = db_.Query(
      "SELECT data, revision FROM upload_chunks "
      "WHERE session_id = ? AND table_name = ? AND chunk_index = ?",
      {session_id, table, index});
  if (rows.empty()) return std::nullopt;
  return UploadChunk{table, index, TakeText(rows.front().at(0)), AsText(rows.front().at(1))};
}

void MetadataTransaction::DeleteUploadChunks(const std::string& session_id) {
  db_.Execute("DELETE FROM upload_chunks WHERE session_id = ?", {session_id});
}

}  // namespace tessera::storage
