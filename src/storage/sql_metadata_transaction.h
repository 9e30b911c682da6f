// storage/sql_metadata_transaction.h
//
// MetadataTransaction over one SqlConnection inside an open transaction: the store's SQL, written
// once for SQLite and PostgreSQL. Orders that the contract promises are made in C++ (byte order
// of names, then ids), so both backends list the same objects in the same order whatever their
// collation. Database failures propagate as SqlError; the store turns them into tessera::Error.
#pragma once

#include "storage/metadata_store.h"
#include "storage/sql_connection.h"

namespace tessera::storage {

class SqlMetadataTransaction : public MetadataTransaction {
 public:
  explicit SqlMetadataTransaction(SqlConnection& connection) : db_(connection) {}

  std::optional<model::ObjectRecord> FindObject(const std::string& project_id,
                                                const std::string& id) override;
  std::vector<model::ObjectRecord> FindObjects(const std::string& project_id,
                                               const std::vector<std::string>& ids) override;
  std::vector<model::ObjectRecord> ListChildren(const std::string& project_id,
                                                const std::string& folder_id) override;
  std::vector<model::ObjectRecord> ListObjects(const std::string& project_id,
                                               const ObjectFilter& filter) override;
  void PutObject(const model::ObjectRecord& object) override;
  bool DeleteObject(const std::string& project_id, const std::string& id) override;

  void SetDependencies(const std::string& project_id, const std::string& object_id,
                       const std::vector<std::string>& used_ids) override;
  std::vector<std::string> ListUses(const std::string& project_id,
                                    const std::string& object_id) override;
  std::vector<std::string> ListUsedBy(const std::string& project_id,
                                      const std::string& object_id) override;

  std::vector<ProjectRecord> ListProjects() override;
  std::optional<ProjectRecord> FindProject(const std::string& id) override;
  std::optional<ProjectRecord> FindProjectByName(const std::string& name) override;
  void PutProject(const ProjectRecord& project) override;

  void PutSession(const SessionRecord& session) override;
  std::optional<SessionRecord> FindSession(const std::string& token_hash) override;
  void TouchSession(const std::string& token_hash, Timestamp last_active) override;
  void DeleteSession(const std::string& token_hash) override;
  int DeleteExpiredSessions(Timestamp now) override;

  void PutSearch(const SearchRecord& search) override;
  std::optional<SearchRecord> FindSearch(const std::string& id) override;
  void DeleteSearchesOfSession(const std::string& session_id) override;

  void PutCubeSnapshot(const CubeSnapshotRecord& snapshot) override;
  std::optional<CubeSnapshotRecord> FindCubeSnapshot(const std::string& project_id,
                                                     const std::string& cube_id) override;
  std::vector<CubeSnapshotRecord> ListCubeSnapshots(const std::string& project_id) override;
  bool DeleteCubeSnapshot(const std::string& project_id, const std::string& cube_id) override;

 private:
  std::vector<model::ObjectRecord> SelectObjects(const std::string& where, const SqlParams& params);
  std::vector<ProjectRecord> SelectProjects(const std::string& where, const SqlParams& params);

  SqlConnection& db_;
};

}  // namespace tessera::storage
