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
  std::vector<model::ObjectRecord> FindChildrenNamed(const std::string& project_id,
                                                     const std::string& folder_id,
                                                     const std::string& name) override;
  bool HasChildren(const std::string& project_id, const std::string& folder_id) override;
  std::vector<model::ObjectRecord> ListObjects(const std::string& project_id,
                                               const ObjectFilter& filter) override;
  void PutObject(const model::ObjectRecord& object) override;
  bool DeleteObject(const std::string& project_id, const std::string& id) override;
  std::vector<ObjectKey> ListObjectKeys(const std::string& project_id) override;
  std::vector<ObjectKey> ListObjectKeysAfter(const std::string& project_id,
                                             const std::string& after_id, int64_t limit) override;

  void SetDependencies(const std::string& project_id, const std::string& object_id,
                       const std::vector<std::string>& used_ids) override;
  std::vector<std::string> ListUses(const std::string& project_id,
                                    const std::string& object_id) override;
  std::vector<std::string> ListUsedBy(const std::string& project_id,
                                      const std::string& object_id) override;
  std::vector<DanglingUse> ListDanglingUses(const std::string& project_id,
                                            const std::vector<std::string>& object_ids) override;

  std::vector<ProjectRecord> ListProjects() override;
  std::optional<ProjectRecord> FindProject(const std::string& id) override;
  std::optional<ProjectRecord> FindProjectByName(const std::string& name) override;
  void PutProject(const ProjectRecord& project) override;

  void PutSession(const SessionRecord& session) override;
  std::optional<SessionRecord> FindSession(const std::string& token_hash) override;
  void TouchSession(const std::string& token_hash, Timestamp last_active) override;
  void DeleteSession(const std::string& token_hash) override;
  int DeleteSessionsOfUser(const std::string& user_id) override;
  int DeleteExpiredSessions(Timestamp now) override;
  int64_t CountSessions() override;

  void PutSearch(const SearchRecord& search) override;
  std::optional<SearchRecord> FindSearch(const std::string& id) override;
  void DeleteSearchesOfSession(const std::string& session_id) override;

  void PutCubeSnapshot(const CubeSnapshotRecord& snapshot) override;
  std::optional<CubeSnapshotRecord> FindCubeSnapshot(const std::string& project_id,
                                                     const std::string& cube_id,
                                                     bool for_update) override;
  std::vector<CubeSnapshotRecord> ListCubeSnapshots(const std::string& project_id) override;
  bool DeleteCubeSnapshot(const std::string& project_id, const std::string& cube_id) override;

  void PutMigration(const MigrationRow& row) override;
  std::optional<MigrationRow> FindMigration(const std::string& role,
                                            const std::string& migration_id,
                                            bool for_update) override;
  std::vector<MigrationRow> ListMigrations() override;
  std::vector<MigrationRow> ListMigrationsOfPackage(const std::string& package_id) override;
  bool DeleteMigration(const std::string& role, const std::string& migration_id) override;
  void PutMigrationContent(const std::string& role, const std::string& migration_id, int64_t chunk,
                           const std::string& items_json) override;
  std::optional<std::string> FindMigrationContent(const std::string& role,
                                                  const std::string& migration_id,
                                                  int64_t chunk) override;
  void DeleteMigrationContent(const std::string& role, const std::string& migration_id) override;

  void PutJob(const JobRecord& job) override;
  std::optional<JobRecord> FindJob(const std::string& id, bool for_update) override;
  std::vector<JobRecord> ListJobs(const std::string& state) override;
  bool ReplaceLease(const std::string& id, const std::string& expected_owner,
                    Timestamp expected_expires, const std::string& new_owner,
                    Timestamp new_expires) override;
  std::map<std::pair<std::string, std::string>, int64_t> CountJobs() override;

  std::optional<Json> FindSetting(const std::string& key) override;
  void PutSetting(const std::string& key, const Json& value) override;

  void PutSharedFile(const SharedFileRecord& file) override;
  std::optional<SharedFileRecord> FindSharedFile(const std::string& id) override;
  std::vector<SharedFileRecord> ListSharedFiles() override;
  bool DeleteSharedFile(const std::string& id) override;

  void PutInstance(const InstanceRecord& instance) override;
  bool ReviseInstance(const InstanceRecord& instance, int64_t expected_revision) override;
  std::optional<InstanceRecord> FindInstance(const std::string& id) override;
  std::optional<int64_t> InstanceRevision(const std::string& id) override;
  void TouchInstance(const std::string& id, Timestamp last_used) override;
  bool DeleteInstance(const std::string& id) override;
  void DeleteInstancesOfSession(const std::string& session_id) override;
  int DeleteInstancesUnusedSince(Timestamp before) override;

  void PutUploadSession(const UploadSessionRecord& session) override;
  std::optional<UploadSessionRecord> FindUploadSession(const std::string& id,
                                                       bool for_update) override;
  std::vector<UploadSessionRecord> ListUploadSessions(const std::string& project_id,
                                                      const std::string& dataset_id) override;
  bool DeleteUploadSession(const std::string& id) override;
  int DeleteUploadSessionsUnusedSince(Timestamp before) override;
  void PutUploadChunk(const std::string& session_id, const UploadChunk& chunk) override;
  std::vector<UploadChunk> ListUploadChunkKeys(const std::string& session_id) override;
  std::vector<UploadChunk> ListUploadChunks(const std::string& session_id) override;
  std::optional<UploadChunk> FindUploadChunk(const std::string& session_id,
                                             const std::string& table, int64_t index) override;
  void DeleteUploadChunks(const std::string& session_id) override;

  void Notify(const std::string& channel, const std::string& payload) override;

  int64_t ObjectsGeneration() override;

  // Whether this transaction put a project, or put or deleted an object outside every project
  // (storage/metadata_store.h, kDirectoryNoticeChannel).
  bool changed_directory() const { return changed_directory_; }
  // Whether this transaction put or deleted an object; CountObjectChange() then counts it in
  // ObjectsGeneration() (call it once, last, inside the transaction).
  bool changed_objects() const { return changed_objects_; }
  void CountObjectChange();

 private:
  std::vector<model::ObjectRecord> SelectObjects(const std::string& where, const SqlParams& params);
  std::vector<ProjectRecord> SelectProjects(const std::string& where, const SqlParams& params);
  std::vector<MigrationRow> SelectMigrations(const std::string& where, const SqlParams& params);
  std::vector<JobRecord> SelectJobs(const std::string& where, const SqlParams& params);
  std::vector<UploadSessionRecord> SelectUploadSessions(const std::string& where,
                                                        const SqlParams& params);
  std::vector<SharedFileRecord> SelectSharedFiles(const std::string& where,
                                                  const SqlParams& params);
  std::string LockClause() const;  // " FOR UPDATE" where the backend has row locks

  SqlConnection& db_;
  bool changed_directory_ = false;
  bool changed_objects_ = false;
};

}  // namespace tessera::storage
