// storage/metadata_store.h
//
// The storage service: one relational schema, versioned by a schema_version table, on SQLite
// ("sqlite:///abs/path/metadata.db") or PostgreSQL ("postgresql://...").
//
// Contract:
//   - Open() never fails because the database is down: it returns a store whose calls fail until
//     the database can be used. A URL that names no supported backend also yields such a store.
//   - Every call that cannot use the database -- unreachable, stopped mid-run, schema older or
//     newer than kSchemaVersion, configuration missing or invalid -- throws
//     Error(kStorageUnavailable, kStorageUnavailableMessage). The reason is logged, not shown.
//   - The store recovers by itself: a broken connection is discarded and the next call connects
//     again (at most one attempt per retry interval while the database stays down).
//   - A database with no Tessera tables is initialised at the current schema version; one at an
//     older version this binary knows how to upgrade is upgraded in place (storage/schema.h).
//   - Write() runs its work in one transaction: committed when the work returns, rolled back when
//     it throws (the exception propagates unchanged). Read() runs read-only work the same way.
//   - Safe to use from many threads; each transaction holds one pooled connection.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/pool_usage.h"
#include "model/object.h"
#include "storage/change_notices.h"
#include "storage/records.h"

namespace tessera::storage {

inline constexpr int kSchemaVersion = 9;

struct ObjectFilter {
  std::vector<int> types;     // empty = any; matches ObjectRecord::type
  std::vector<int> subtypes;  // empty = any; an object passes if it matches types OR subtypes
                              // when both are given
};

// The operations available inside one transaction.
class MetadataTransaction {
 public:
  virtual ~MetadataTransaction() = default;

  // Objects. PutObject inserts or replaces the row with the same (project_id, id). FindObjects
  // returns the objects found in the order of `ids` (unknown ids skipped, repeats once).
  // ListChildren and ListObjects order by type, then name, then id (byte order on every
  // backend). DeleteObject also drops the object's own dependency list and, for a project's
  // configuration-level object, the project; it returns whether the object existed.
  virtual std::optional<model::ObjectRecord> FindObject(const std::string& project_id,
                                                        const std::string& id) = 0;
  virtual std::vector<model::ObjectRecord> FindObjects(const std::string& project_id,
                                                       const std::vector<std::string>& ids) = 0;
  virtual std::vector<model::ObjectRecord> ListChildren(const std::string& project_id,
                                                        const std::string& folder_id) = 0;
  // The children of the folder whose name equals `name` ignoring ASCII case, without reading the
  // others; and whether the folder has any child at all.
  virtual std::vector<model::ObjectRecord> FindChildrenNamed(const std::string& project_id,
                                                             const std::string& folder_id,
                                                             const std::string& name) = 0;
  virtual bool HasChildren(const std::string& project_id, const std::string& folder_id) = 0;
  virtual std::vector<model::ObjectRecord> ListObjects(const std::string& project_id,
                                                       const ObjectFilter& filter) = 0;
  virtual void PutObject(const model::ObjectRecord& object) = 0;
  virtual bool DeleteObject(const std::string& project_id, const std::string& id) = 0;
  // Every object of a project without its definition or ACL, ordered by id: small enough to
  // list a project of a million objects.
  virtual std::vector<ObjectKey> ListObjectKeys(const std::string& project_id) = 0;
  // The same a page at a time: at most `limit` keys whose ids come after `after_id` ("" for the
  // first page), in the database's order of ids; a short page is the last.
  virtual std::vector<ObjectKey> ListObjectKeysAfter(const std::string& project_id,
                                                     const std::string& after_id,
                                                     int64_t limit) = 0;

  // Dependencies: `object_id` uses each of `used_ids` (replaces the object's previous list).
  virtual void SetDependencies(const std::string& project_id, const std::string& object_id,
                               const std::vector<std::string>& used_ids) = 0;
  virtual std::vector<std::string> ListUses(const std::string& project_id,
                                            const std::string& object_id) = 0;
  virtual std::vector<std::string> ListUsedBy(const std::string& project_id,
                                              const std::string& object_id) = 0;
  // The references of `object_ids` to ids no object of the project has, ordered by object id
  // then used id.
  virtual std::vector<DanglingUse> ListDanglingUses(const std::string& project_id,
                                                    const std::vector<std::string>& object_ids) = 0;

  // Projects, ordered by name. PutProject also writes the project's object row. Throws
  // Error(kAlreadyExists) when another project has the same name.
  virtual std::vector<ProjectRecord> ListProjects() = 0;
  virtual std::optional<ProjectRecord> FindProject(const std::string& id) = 0;
  virtual std::optional<ProjectRecord> FindProjectByName(const std::string& name) = 0;
  virtual void PutProject(const ProjectRecord& project) = 0;

  // Sessions, keyed by token hash.
  virtual void PutSession(const SessionRecord& session) = 0;
  virtual std::optional<SessionRecord> FindSession(const std::string& token_hash) = 0;
  virtual void TouchSession(const std::string& token_hash, Timestamp last_active) = 0;
  virtual void DeleteSession(const std::string& token_hash) = 0;
  // Deletes every session of the user with the searches and instances they kept; returns how
  // many sessions.
  virtual int DeleteSessionsOfUser(const std::string& user_id) = 0;
  // Removes sessions whose last_active + idle timeout is before `now`; returns how many.
  virtual int DeleteExpiredSessions(Timestamp now) = 0;
  virtual int64_t CountSessions() = 0;  // expired ones included until purged

  // Stored searches.
  virtual void PutSearch(const SearchRecord& search) = 0;
  virtual std::optional<SearchRecord> FindSearch(const std::string& id) = 0;
  virtual void DeleteSearchesOfSession(const std::string& session_id) = 0;

  // Report, cube and dashboard instances. PutInstance inserts or replaces; ReviseInstance
  // replaces only while the stored revision is still `expected_revision` (compare and set) and
  // says whether it did; InstanceRevision reads the revision alone; TouchInstance moves its last
  // use; DeleteInstancesUnusedSince removes those last used before `before`.
  virtual void PutInstance(const InstanceRecord& instance) = 0;
  virtual bool ReviseInstance(const InstanceRecord& instance, int64_t expected_revision) = 0;
  virtual std::optional<InstanceRecord> FindInstance(const std::string& id) = 0;
  virtual std::optional<int64_t> InstanceRevision(const std::string& id) = 0;
  virtual void TouchInstance(const std::string& id, Timestamp last_used) = 0;
  virtual bool DeleteInstance(const std::string& id) = 0;
  virtual void DeleteInstancesOfSession(const std::string& session_id) = 0;
  virtual int DeleteInstancesUnusedSince(Timestamp before) = 0;

  // Published cubes, keyed by (project id, cube id). PutCubeSnapshot inserts or replaces;
  // ListCubeSnapshots orders by cube id; `for_update` locks the row as for migration records.
  virtual void PutCubeSnapshot(const CubeSnapshotRecord& snapshot) = 0;
  virtual std::optional<CubeSnapshotRecord> FindCubeSnapshot(const std::string& project_id,
                                                             const std::string& cube_id,
                                                             bool for_update = false) = 0;
  virtual std::vector<CubeSnapshotRecord> ListCubeSnapshots(const std::string& project_id) = 0;
  virtual bool DeleteCubeSnapshot(const std::string& project_id, const std::string& cube_id) = 0;

  // Migration records, keyed by (role, migration id). `for_update` locks the row until the
  // transaction ends, so a read-check-write sequence of concurrent requests is serialised.
  // ListMigrations orders by creation, newest first, then by id and role.
  virtual void PutMigration(const MigrationRow& row) = 0;
  virtual std::optional<MigrationRow> FindMigration(const std::string& role,
                                                    const std::string& migration_id,
                                                    bool for_update = false) = 0;
  virtual std::vector<MigrationRow> ListMigrations() = 0;
  virtual std::vector<MigrationRow> ListMigrationsOfPackage(const std::string& package_id) = 0;
  // DeleteMigration removes the record's content chunks with it.
  virtual bool DeleteMigration(const std::string& role, const std::string& migration_id) = 0;

  // The content list of a package being created (tocView.content), keyed like its record, as
  // numbered chunks of JSON array text (chunk 1, 2, ...), so that no request or job need hold
  // more than a chunk of it. PutMigrationContent inserts or replaces a chunk.
  virtual void PutMigrationContent(const std::string& role, const std::string& migration_id,
                                   int64_t chunk, const std::string& items_json) = 0;
  virtual std::optional<std::string> FindMigrationContent(const std::string& role,
                                                          const std::string& migration_id,
                                                          int64_t chunk) = 0;
  virtual void DeleteMigrationContent(const std::string& role, const std::string& migration_id) = 0;

  // Jobs. ReplaceLease moves a job's lease only if it is still exactly `expected_owner` until
  // `expected_expires` (compare and set): of several nodes taking over one abandoned job, one
  // wins. ListJobs orders by creation.
  virtual void PutJob(const JobRecord& job) = 0;
  virtual std::optional<JobRecord> FindJob(const std::string& id, bool for_update = false) = 0;
  virtual std::vector<JobRecord> ListJobs(const std::string& state) = 0;
  virtual bool ReplaceLease(const std::string& id, const std::string& expected_owner,
                            Timestamp expected_expires, const std::string& new_owner,
                            Timestamp new_expires) = 0;
  // How many jobs there are of each kind in each state: {(kind, state) -> count}.
  virtual std::map<std::pair<std::string, std::string>, int64_t> CountJobs() = 0;

  // Server settings changed through the API (e.g. the storage location), by key.
  virtual std::optional<Json> FindSetting(const std::string& key) = 0;
  virtual void PutSetting(const std::string& key, const Json& value) = 0;

  // Shared file store metadata (uploaded packages); ListSharedFiles orders by creation then id.
  virtual void PutSharedFile(const SharedFileRecord& file) = 0;
  virtual std::optional<SharedFileRecord> FindSharedFile(const std::string& id) = 0;
  virtual std::vector<SharedFileRecord> ListSharedFiles() = 0;
  virtual bool DeleteSharedFile(const std::string& id) = 0;

  // Dataset upload sessions and their chunks. DeleteUploadSession and
  // DeleteUploadSessionsUnusedSince (every session not publishing whose last use came before
  // `before`) drop the sessions' chunks too; the latter also drops chunks whose session is gone,
  // which an embedded store's crash between its two files' commits can leave
  // (storage/sqlite_connection.h). PutUploadChunk replaces the chunk of the same
  // (table, index), revision included. Chunks list by table name, then index;
  // ListUploadChunkKeys leaves `data` empty. FindUploadChunk reads one chunk, `data` and all.
  virtual void PutUploadSession(const UploadSessionRecord& session) = 0;
  virtual std::optional<UploadSessionRecord> FindUploadSession(const std::string& id,
                                                               bool for_update = false) = 0;
  virtual std::vector<UploadSessionRecord> ListUploadSessions(const std::string& project_id,
                                                              const std::string& dataset_id) = 0;
  virtual bool DeleteUploadSession(const std::string& id) = 0;
  virtual int DeleteUploadSessionsUnusedSince(Timestamp before) = 0;
  virtual void PutUploadChunk(const std::string& session_id, const UploadChunk& chunk) = 0;
  virtual std::vector<UploadChunk> ListUploadChunkKeys(const std::string& session_id) = 0;
  virtual std::vector<UploadChunk> ListUploadChunks(const std::string& session_id) = 0;
  virtual std::optional<UploadChunk> FindUploadChunk(const std::string& session_id,
                                                     const std::string& table, int64_t index) = 0;
  virtual void DeleteUploadChunks(const std::string& session_id) = 0;

  // A notice to every node, sent when this transaction commits (storage/change_notices.h).
  virtual void Notify(const std::string& channel, const std::string& payload) = 0;

  // How many committed write transactions put or deleted an object (of any project), as the
  // storage service counts them for every node and process; never decreases. What is built
  // from objects and read in the same transaction as this number is current while it stays the
  // same.
  virtual int64_t ObjectsGeneration() = 0;
};

struct StoreOptions {
  std::string url;
  int max_connections = 8;
  std::chrono::milliseconds retry_interval{250};
  std::chrono::milliseconds busy_timeout{5000};  // SQLite lock wait
};

// The directory: projects and the objects outside every project (users, groups, the projects'
// object rows, with their ACLs and owners). A write transaction that puts a project, or puts or
// deletes an object outside every project, sends a notice on this channel (empty payload) when it
// commits, and counts in DirectoryGeneration().
inline constexpr char kDirectoryNoticeChannel[] = "tessera_directory";

class MetadataStore {
 public:
  static std::unique_ptr<MetadataStore> Open(const StoreOptions& options);
  virtual ~MetadataStore() = default;

  virtual void Write(const std::function<void(MetadataTransaction&)>& work) = 0;
  virtual void Read(const std::function<void(MetadataTransaction&)>& work) = 0;

  // True when a call made now would reach a usable database (tries to connect if needed).
  virtual bool IsAvailable() = 0;
  virtual std::string backend_name() const = 0;  // "sqlite", "postgresql" or "invalid"
  virtual PoolUsage pool_usage() = 0;

  // Hears the notices sent on `channels` (storage/change_notices.h); null when the backend has
  // none.
  virtual std::unique_ptr<NoticeSubscription> Subscribe(std::vector<std::string> channels,
                                                        NoticeHandler handler) = 0;

  // How many write transactions that changed the directory (see kDirectoryNoticeChannel) this
  // store object has committed; never decreases. What a node keeps of the directory is current
  // with its own writes while this number stays the same.
  virtual uint64_t DirectoryGeneration() const = 0;
};

}  // namespace tessera::storage
