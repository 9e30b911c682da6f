// storage/metadata_transaction.h
//
// The operations of the storage service inside one open transaction (MetadataStore::Write() and
// Read() hand one to their work), over one SqlConnection: the store's SQL, written once for
// SQLite and PostgreSQL. Orders that the contract promises are made in C++ (byte order of names,
// then ids), so both backends list the same objects in the same order whatever their collation.
// Database failures propagate as SqlError; the store turns them into tessera::Error. A
// transaction is used by one thread, inside the work it was handed to.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/object.h"
#include "storage/records.h"
#include "storage/sql_connection.h"

namespace tessera::storage {

struct ObjectFilter {
  std::vector<int> types;     // empty = any; matches ObjectRecord::type
  std::vector<int> subtypes;  // empty = any; an object passes if it matches types OR subtypes
                              // when both are given
};

class MetadataTransaction {
 public:
  explicit MetadataTransaction(SqlConnection& connection) : db_(connection) {}
  MetadataTransaction(const MetadataTransaction&) = delete;
  MetadataTransaction& operator=(const MetadataTransaction&) = delete;

  // Objects. PutObject inserts or replaces the row with the same (project_id, id). FindObjects
  // returns the objects found in the order of `ids` (unknown ids skipped, repeats once).
  // ListChildren and ListObjects order by type, then name, then id (byte order on every
  // backend). DeleteObject also drops the object's own dependency list and, for a project's
  // configuration-level object, the project; it returns whether the object existed.
  std::optional<model::ObjectRecord> FindObject(const std::string& project_id,
                                                const std::string& id);
  std::vector<model::ObjectRecord> FindObjects(const std::string& project_id,
                                               const std::vector<std::string>& ids);
  std::vector<model::ObjectRecord> ListChildren(const std::string& project_id,
                                                const std::string& folder_id);
  // The children of the folder whose name equals `name` ignoring ASCII case, without reading the
  // others; and whether the folder has any child at all.
  std::vector<model::ObjectRecord> FindChildrenNamed(const std::string& project_id,
                                                     const std::string& folder_id,
                                                     const std::string& name);
  bool HasChildren(const std::string& project_id, const std::string& folder_id);
  std::vector<model::ObjectRecord> ListObjects(const std::string& project_id,
                                               const ObjectFilter& filter);
  void PutObject(const model::ObjectRecord& object);
  bool DeleteObject(const std::string& project_id, const std::string& id);
  // Every object of a project without its definition or ACL, ordered by id: small enough to
  // list a project of a million objects.
  std::vector<ObjectKey> ListObjectKeys(const std::string& project_id);
  // The same a page at a time: at most `limit` keys whose ids come after `after_id` ("" for the
  // first page), in the database's order of ids; a short page is the last.
  std::vector<ObjectKey> ListObjectKeysAfter(const std::string& project_id,
                                             const std::string& after_id, int64_t limit);

  // Dependencies: `object_id` uses each of `used_ids` (replaces the object's previous list).
  void SetDependencies(const std::string& project_id, const std::string& object_id,
                       const std::vector<std::string>& used_ids);
  std::vector<std::string> ListUses(const std::string& project_id, const std::string& object_id);
  std::vector<std::string> ListUsedBy(const std::string& project_id, const std::string& object_id);
  // The references of `object_ids` to ids no object of the project has, ordered by object id
  // then used id.
  std::vector<DanglingUse> ListDanglingUses(const std::string& project_id,
                                            const std::vector<std::string>& object_ids);

  // Projects, ordered by name. PutProject also writes the project's object row. Throws
  // Error(kAlreadyExists) when another project has the same name.
  std::vector<ProjectRecord> ListProjects();
  std::optional<ProjectRecord> FindProject(const std::string& id);
  std::optional<ProjectRecord> FindProjectByName(const std::string& name);
  void PutProject(const ProjectRecord& project);

  // Sessions, keyed by token hash.
  void PutSession(const SessionRecord& session);
  std::optional<SessionRecord> FindSession(const std::string& token_hash);
  void TouchSession(const std::string& token_hash, Timestamp last_active);
  void DeleteSession(const std::string& token_hash);
  // Deletes every session of the user with the searches and instances they kept; returns how
  // many sessions.
  int DeleteSessionsOfUser(const std::string& user_id);
  // Removes sessions whose last_active + idle timeout is before `now`; returns how many.
  int DeleteExpiredSessions(Timestamp now);
  int64_t CountSessions();  // expired ones included until purged

  // Stored searches.
  void PutSearch(const SearchRecord& search);
  std::optional<SearchRecord> FindSearch(const std::string& id);
  void DeleteSearchesOfSession(const std::string& session_id);

  // Report, cube and dashboard instances. PutInstance inserts or replaces; ReviseInstance
  // replaces only while the stored revision is still `expected_revision` (compare and set) and
  // says whether it did; InstanceRevision reads the revision alone; TouchInstance moves its last
  // use; DeleteInstancesUnusedSince removes those last used before `before`.
  void PutInstance(const InstanceRecord& instance);
  bool ReviseInstance(const InstanceRecord& instance, int64_t expected_revision);
  std::optional<InstanceRecord> FindInstance(const std::string& id);
  std::optional<int64_t> InstanceRevision(const std::string& id);
  void TouchInstance(const std::string& id, Timestamp last_used);
  bool DeleteInstance(const std::string& id);
  void DeleteInstancesOfSession(const std::string& session_id);
  int DeleteInstancesUnusedSince(Timestamp before);

  // Published cubes, keyed by (project id, cube id). PutCubeSnapshot inserts or replaces;
  // ListCubeSnapshots orders by cube id; `for_update` locks the row as for migration records.
  void PutCubeSnapshot(const CubeSnapshotRecord& snapshot);
  std::optional<CubeSnapshotRecord> FindCubeSnapshot(const std::string& project_id,
                                                     const std::string& cube_id,
                                                     bool for_update = false);
  std::vector<CubeSnapshotRecord> ListCubeSnapshots(const std::string& project_id);
  bool DeleteCubeSnapshot(const std::string& project_id, const std::string& cube_id);

  // Migration records, keyed by (role, migration id). `for_update` locks the row until the
  // transaction ends, so a read-check-write sequence of concurrent requests is serialised.
  // ListMigrations orders by creation, newest first, then by id and role.
  void PutMigration(const MigrationRow& row);
  std::optional<MigrationRow> FindMigration(const std::string& role,
                                            const std::string& migration_id,
                                            bool for_update = false);
  std::vector<MigrationRow> ListMigrations();
  std::vector<MigrationRow> ListMigrationsOfPackage(const std::string& package_id);
  // DeleteMigration removes the record's content chunks with it.
  bool DeleteMigration(const std::string& role, const std::string& migration_id);

  // The content list of a package being created (tocView.content), keyed like its record, as
  // numbered chunks of JSON array text (chunk 1, 2, ...), so that no request or job need hold
  // more than a chunk of it. PutMigrationContent inserts or replaces a chunk.
  void PutMigrationContent(const std::string& role, const std::string& migration_id, int64_t chunk,
                           const std::string& items_json);
  std::optional<std::string> FindMigrationContent(const std::string& role,
                                                  const std::string& migration_id, int64_t chunk);
  void DeleteMigrationContent(const std::string& role, const std::string& migration_id);

  // Jobs. ReplaceLease moves a job's lease only if it is still exactly `expected_owner` until
  // `expected_expires` (compare and set): of several nodes taking over one abandoned job, one
  // wins. ListJobs orders by creation.
  void PutJob(const JobRecord& job);
  std::optional<JobRecord> FindJob(const std::string& id, bool for_update = false);
  std::vector<JobRecord> ListJobs(const std::string& state);
  bool ReplaceLease(const std::string& id, const std::string& expected_owner,
                    Timestamp expected_expires, const std::string& new_owner,
                    Timestamp new_expires);
  // How many jobs there are of each kind in each state: {(kind, state) -> count}.
  std::map<std::pair<std::string, std::string>, int64_t> CountJobs();

  // Server settings changed through the API (e.g. the storage location), by key.
  std::optional<Json> FindSetting(const std::string& key);
  void PutSetting(const std::string& key, const Json& value);

  // Shared file store metadata (uploaded packages); ListSharedFiles orders by creation then id.
  void PutSharedFile(const SharedFileRecord& file);
  std::optional<SharedFileRecord> FindSharedFile(const std::string& id);
  std::vector<SharedFileRecord> ListSharedFiles();
  bool DeleteSharedFile(const std::string& id);

  // Dataset upload sessions and their chunks. DeleteUploadSession and
  // DeleteUploadSessionsUnusedSince (every session not publishing whose last use came before
  // `before`) drop the sessions' chunks too; the latter also drops chunks whose session is gone,
  // which an embedded store's crash between its two files' commits can leave
  // (storage/sqlite_connection.h). PutUploadChunk replaces the chunk of the same
  // (table, index), revision included. Chunks list by table name, then index;
  // ListUploadChunkKeys leaves `data` empty. FindUploadChunk reads one chunk, `data` and all.
  void PutUploadSession(const UploadSessionRecord& session);
  std::optional<UploadSessionRecord> FindUploadSession(const std::string& id,
                                                       bool for_update = false);
  std::vector<UploadSessionRecord> ListUploadSessions(const std::string& project_id,
                                                      const std::string& dataset_id);
  bool DeleteUploadSession(const std::string& id);
  int DeleteUploadSessionsUnusedSince(Timestamp before);
  void PutUploadChunk(const std::string& session_id, const UploadChunk& chunk);
  std::vector<UploadChunk> ListUploadChunkKeys(const std::string& session_id);
  std::vector<UploadChunk> ListUploadChunks(const std::string& session_id);
  std::optional<UploadChunk> FindUploadChunk(const std::string& session_id,
                                             const std::string& table, int64_t index);
  void DeleteUploadChunks(const std::string& session_id);

  // A notice to every node, sent when this transaction commits (storage/change_notices.h).
  void Notify(const std::string& channel, const std::string& payload);

  // How many committed write transactions put or deleted an object (of any project), as the
  // storage service counts them for every node and process; never decreases. What is built
  // from objects and read in the same transaction as this number is current while it stays the
  // same.
  int64_t ObjectsGeneration();

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
