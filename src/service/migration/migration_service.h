// service/migration/migration_service.h
//
// Migrations: package creation on the source, the import request and its approval, import and
// undo on the target, deletion on each side -- over the storage service (records, jobs) and the
// storage location (package files). The member functions are defined by concern:
// migration_service.cc (construction, records, reads, job bookkeeping), migration_creation.cc
// (creating, reusing, rebuilding and certifying a package), migration_import.cc (import and undo
// requests, validation, import and undo) and migration_files.cc (package files: deletion,
// download, the import of an uploaded file).
//
// Contract:
//   - Every change of a record is stored before the call returns: a call that returns a record
//     has committed it, in the same transaction as the job it started, if any.
//   - Package creation, import and undo run as persisted jobs (service/job_runner.h). A job's
//     outcome and its record's new state commit together; a job that fails or is interrupted
//     (node stopped or restarted) leaves its record create_failed, import_failed or undo_failed
//     with a message. An import or undo is one storage transaction: a failed one changes nothing.
//   - A server keeps a "source" record for the packages it creates and a "target" record for the
//     imports it runs; between two projects of one server both exist, and reads show the target's.
//   - A creation, import or undo shows its progress to reads on the node that runs it (elsewhere
//     it shows the progress stored when it started, until it ends).
//   - Validation runs on the target and is started on the source: the client asks the target to
//     validate, then marks the source's record validating. The target shares validations,
//     imports and undos through the migration's status file, and the source's reads show them
//     (service/migration/status_sync.h).
//   - Privileges: creating and requesting need Create package and Bypass all object security on
//     the source project; importing and undoing need Apply package and Bypass on the target
//     project; configuration packages need them for every project. Reading needs Create or Apply
//     package anywhere. Each missing privilege is Error(kInsufficientPrivileges) naming it.
//   - A call the record's state does not allow is refused as service/migration/migration_state.h
//     says; a refused call changes nothing.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "service/job_runner.h"
#include "service/migration/migration_record.h"
#include "service/migration/migration_requests.h"
#include "service/migration/status_sync.h"
#include "service/migration/storage_location_service.h"
#include "service/migration/streamed_content.h"
#include "service/session/principal.h"
#include "storage/metadata_store.h"
#include "storage/package/manifest.h"

namespace tessera::service::migration {

struct MigrationServiceOptions {
  NamedRef environment;  // this server: its URL (the environment id) and name
  std::string platform_version;
  int64_t max_package_bytes = int64_t{1} << 31;
  // Where package creation, import and undo keep what they track per object on disk
  // (storage::ScratchTable); empty: the system's temporary directory.
  std::filesystem::path scratch_dir;
  // Fault injection for tests of interrupted work; unset in production. Each runs inside its job
  // right before the outcome is committed: the package file is written but not yet recorded; the
  // import's transaction is open with every change applied.
  std::function<void()> before_creation_commit;
  std::function<void()> before_import_commit;
  // How long the source waits for a sign of life from the target of a running import or undo
  // before it shows it failed (service/migration/status_sync.h).
  std::chrono::seconds target_silence = kDefaultTargetSilence;
};

struct MigrationPage {
  int64_t total = 0;
  std::vector<MigrationRecord> records;
};

class MigrationService {
 public:
  MigrationService(storage::MetadataStore& store, JobRunner& jobs, StorageLocationService& location,
                   MigrationServiceOptions options);

  // Where requests and jobs keep what grows with a package (storage::ScratchTable).
  const std::filesystem::path& scratch_dir() const { return options_.scratch_dir; }

  // Registers the job kinds this service runs; before jobs start or are recovered.
  void RegisterJobs();

  // POST /api/migrations. `project_id`: the project header, resolved: required for project and
  // project_security packages (else Error(kMissingParameter)), refused for configuration
  // packages (Error(kInvalidInput)).
  MigrationRecord Create(const session::Principal& principal,
                         const std::optional<std::string>& project_id,
                         const CreateRequest& request);
  // POST /api/migrations?packageId=: a new import of a created or locked package, with a new
  // import id, approved at once (mstrio-py imports it without requesting).
  MigrationRecord Reuse(const session::Principal& principal, const std::string& package_id,
                        const NamedRef& target_environment, const NamedRef& target_project);

  // `with_content`: tocView.content too. Once a package is built, its content list is kept only
  // in the package file's manifest (a record rewritten on every state change stays small), and
  // is read from there; a package file that cannot be read shows an empty list.
  MigrationRecord Get(const session::Principal& principal, const MigrationId& id,
                      bool with_content = true);
  // Newest first; `purposes` empty = object migrations only.
  MigrationPage List(const session::Principal& principal,
                     const std::vector<model::package::PackagePurpose>& purposes, int64_t offset,
                     int64_t limit);

  // The content list Get(..., with_content=true) would show, as JSON array text, built one chunk
  // at a time for a showContent=all or tocview response (a long list is never a document).
  std::string ContentListText(const session::Principal& principal, const MigrationId& id);

  // PATCH /api/migrations/{id}: the import request, rename and retarget on the source; the undo
  // request on the target. `project_id`: the resolved project header, if sent.
  MigrationRecord Patch(const session::Principal& principal, const MigrationId& id,
                        const PatchRequest& request, const std::optional<std::string>& project_id);

  // PUT /api/migrations/{id}: `record` is the source's record read with showContent=all, as the
  // client sent it: api/migration/migration_requests.h checked that it is the migration of the path
  // and marked replicated. `streamed`: what its tocView.content held when the list was read item by
  // item (the record then holds an empty list).
  MigrationRecord Import(const session::Principal& principal, const MigrationRecord& record,
                         const std::optional<std::string>& project_id, bool generate_undo,
                         const std::optional<ContentDigest>& streamed = std::nullopt);

  // PUT /api/migrations/{id}/validation (target): a dry run of the import of `record` (the
  // source's record read with showContent=all) into the target project, as a job; nothing is
  // stored but the job. The outcome goes to the migration's status file, where the source
  // reads it (service/migration/status_sync.h). Checks and refusals are the import's, except
  // that the package need only be created and the record need not be replicated.
  void Validate(const session::Principal& principal, const MigrationRecord& record,
                const std::optional<std::string>& project_id);

  // PUT /api/migrations/{id}/packageInfo, on the source, while the package is created or
  // create_failed and its import request is pending or rejected: the package is rebuilt from
  // `request` as a creation job, keeping its package and import ids; its type and purpose cannot
  // change. The previous package file is removed once the edit is stored.
  MigrationRecord Edit(const session::Principal& principal, const MigrationId& id,
                       const CreateRequest& request);

  // What a certification of `id` checks before its body is read: the migration exists on this
  // server (else Error(kNotFound)) and the caller has its side's package privileges. Certify and
  // SyncCertification check the same first.
  void RequireCertifier(const session::Principal& principal, const MigrationId& id);
  // PATCH /api/migrations/{id}/packageInfo/certification: sets `change` on this server's record
  // (only while created; the operator defaults to the caller, the date to now) and shares it
  // through the status file.
  void Certify(const session::Principal& principal, const MigrationId& id,
               const CertificationChange& change);
  // The same with ?autoSync=true: takes the status file's certification when it is newer than
  // the record's.
  void SyncCertification(const session::Principal& principal, const MigrationId& id);

  // DELETE /api/migrations?packageId=: this server's records of the package and their files.
  void Delete(const session::Principal& principal, const std::string& package_id);

  // POST /api/migrations with packageInfo.purpose migration_from_shared_file_store, on a target
  // that cannot see the source's location: a target record for the uploaded file `request` names
  // (service/migration/shared_file_service.h), described by its manifest, approved and imported
  // at once with an undo package -- the import's checks and refusals apply.
  MigrationRecord ImportSharedFile(const session::Principal& principal,
                                   const std::optional<std::string>& project_id,
                                   const SharedFileImportRequest& request);

  // GET /api/migrations/packages/{id}/binary: a created package's file on this server, and the
  // name to download it under ("<package name>.mmp", unsafe characters replaced by '_').
  struct PackageDownload {
    std::filesystem::path file;
    std::string file_name;
  };
  PackageDownload Download(const session::Principal& principal, const std::string& package_id);

 private:
  struct Loaded;

  Loaded Load(storage::MetadataTransaction& tx, const MigrationId& id, bool for_update);
  // The record of `id`, once the caller is found to hold its side's package privileges (Create
  // package on the source, Apply package on the target, and Bypass).
  Loaded LoadForCertifier(storage::MetadataTransaction& tx, const session::Principal& principal,
                          const MigrationId& id, bool for_update);
  void Store(storage::MetadataTransaction& tx, const std::string& role,
             const MigrationRecord& record, const std::string& project_id, const Json& internal);
  // Loads the record of `id` for update, applies `change` to it and stores it as the target's:
  // the outcome an import or an undo writes in the transaction that commits its objects.
  // Returns the record stored.
  MigrationRecord ChangeTargetRecord(storage::MetadataTransaction& tx, const MigrationId& id,
                                     const std::function<void(MigrationRecord&)>& change);
  std::string ResolveTargetProject(const MigrationRecord& record,
                                   const std::optional<std::string>& header);
  storage::package::PackageManifest CheckPackageFile(const MigrationRecord& record);
  void CheckSchemaLineage(const storage::package::PackageManifest& manifest,
                          const storage::ProjectRecord& target);
  void CheckNoMigrationRunningOn(storage::MetadataTransaction& tx, const std::string& project_id);
  void RunCreation(JobContext& context);
  void RunImport(JobContext& context);
  void RunUndo(JobContext& context);
  void RunValidation(JobContext& context);
  void FailJob(storage::MetadataTransaction& tx, const storage::JobRecord& job,
               const std::string& reason);
  // Removes the package or undo file a failed job may have left (written, or partly written by a
  // killed process, but never recorded).
  void RemoveUncommittedFile(const std::string& relative_path);
  void RemoveUncommittedUndo(const std::string& relative_path);
  // Shares a target record's import status with the source (service/migration/status_sync.h);
  // a failure is logged, never thrown.
  void PublishTargetStatus(const MigrationRecord& record);
  // Tracks the progress of a running creation, import or undo until the returned guard is
  // destroyed; ShowRunningProgress puts it in a record read meanwhile.
  std::shared_ptr<void> TrackRunning(const MigrationId& id, std::function<void(int)>& on_progress);
  void ShowRunningProgress(MigrationRecord& record);
  void ShowContentFromPackage(MigrationRecord& record);
  // The record with what the target wrote to the shared status file, or as it is when the
  // location cannot be read.
  MigrationRecord WithTargetStatusIfReadable(MigrationRecord record) const;

  storage::MetadataStore& store_;
  JobRunner& jobs_;
  StorageLocationService& location_;
  MigrationServiceOptions options_;
  // The progress of the creations, imports and undos this node runs, by migration id: kept
  // here rather than written to their records (an import's transaction holds its record, and a
  // record with a long content list is costly to rewrite), and shown by Get.
  std::mutex running_mutex_;
  std::map<std::string, int> running_progress_;
};

}  // namespace tessera::service::migration
