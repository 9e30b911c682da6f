#include "service/migration/migration_state.h"

#include <utility>

#include "core/error.h"
#include "core/strings.h"

namespace tessera::service::migration {

namespace {

constexpr std::string_view kSharedFileUnreachable =
    "The shared file cannot be accessed. It may be deleted or the storage location cannot be "
    "accessed.";

[[noreturn]] void Refuse(std::string message) {
  throw Error(ErrorCode::kInvalidInput, std::move(message));
}

bool IsConfiguration(const MigrationRecord& record) {
  return record.package_info.type == model::package::PackageKind::kConfiguration;
}

// A sent {id, name} names the stored one when the ids agree and the name is absent or equal
// (mstrio-py may send a project as {id} alone).
bool SameRef(const NamedRef& sent, const NamedRef& stored) {
  return sent.id == stored.id && (sent.name.empty() || sent.name == stored.name);
}

// The package name and the target can change until the import is approved.
void CheckNotApproved(const MigrationRecord& record, std::string_view what) {
  if (record.import_info.import_request_status == RequestStatus::kApproved) {
    Refuse("The " + std::string(what) + " can no longer change: the import was approved");
  }
}

// Configuration packages have no project; `{}` is the only target project they take.
void CheckTargetProjectFits(const MigrationRecord& record, const NamedRef& project) {
  if (IsConfiguration(record) && !project.empty()) {
    Refuse(
        "importInfo.project: a configuration package has no target project; send {} or "
        "leave it out");
  }
}

// Import request ----------------------------------------------------------------------------------

void RequestImport(MigrationRecord& record) {
  const PackageInfo& package = record.package_info;
  // An approval is final.
  if (record.import_info.import_request_status == RequestStatus::kApproved) {
    Refuse("The import request cannot go back from approved to requested");
  }
  // Only a built, undeleted package can be requested.
  if (package.status != PackageStatus::kCreated || package.deleted) {
    Refuse("The package is not in status created");
  }
  record.import_info.import_request_status = RequestStatus::kRequested;
}

void ApproveImport(MigrationRecord& record, Timestamp now) {
  // Approval follows a request.
  if (record.import_info.import_request_status != RequestStatus::kRequested) {
    Refuse("The import must be requested before it can be approved");
  }
  record.import_info.import_request_status = RequestStatus::kApproved;
  record.package_info.status = PackageStatus::kLocked;
  record.package_info.last_updated_date = now;
}

void RejectImport(MigrationRecord& record) {
  RequestStatus current = record.import_info.import_request_status;
  if (current != RequestStatus::kRequested) {
    Refuse("Only a requested import can be rejected; the import request is " +
           std::string(RequestStatusName(current)));
  }
  record.import_info.import_request_status = RequestStatus::kRejected;
}

// Undo request ------------------------------------------------------------------------------------

// Approving the undo of a project package names its target project in X-MSTR-ProjectID; that of
// a configuration package sends no such header.
void CheckUndoProjectHeader(const MigrationRecord& record,
                            const std::optional<std::string>& project_header) {
  bool has_header = project_header && !project_header->empty();
  if (IsConfiguration(record)) {
    if (has_header) {
      Refuse(
          "A configuration package is undone without a project; do not send the "
          "X-MSTR-ProjectID header");
    }
    return;
  }
  if (!has_header) {
    throw Error(ErrorCode::kMissingParameter,
                "X-MSTR-ProjectID header is required to approve the undo of a project package");
  }
  const std::string& target = record.import_info.project.id;
  if (!EqualsIgnoreCase(*project_header, target)) {
    Refuse("X-MSTR-ProjectID header: project " + Quoted(*project_header) +
           " is not the target project " + target + " of this migration");
  }
}

void CheckNotUndone(const MigrationRecord& record) {
  // An import is undone successfully at most once.
  if (record.import_info.status == ImportStatus::kUndoSuccess) {
    Refuse("The migration has already been undone; reuse the package to import it again");
  }
}

void CheckUndoPackage(bool has_undo_package) {
  // None after a keep_both rule or generateUndo=false, nor when its file is gone.
  if (!has_undo_package) Refuse("No undo package is available for this migration");
}

bool RequestUndo(MigrationRecord& record, bool has_undo_package) {
  ImportInfo& imp = record.import_info;
  CheckNotUndone(record);
  // Requested again changes nothing.
  if (imp.undo_request_status == RequestStatus::kRequested) return false;
  // Undo follows an import; after undo_failed a new cycle may start.
  if (imp.status != ImportStatus::kImported && imp.status != ImportStatus::kUndoFailed) {
    Refuse("Undo needs an imported migration; its status is " +
           std::string(ImportStatusName(imp.status)));
  }
  CheckUndoPackage(has_undo_package);
  imp.undo_request_status = RequestStatus::kRequested;
  return true;
}

bool ApproveUndo(MigrationRecord& record, const std::optional<std::string>& project_header,
                 bool has_undo_package) {
  ImportInfo& imp = record.import_info;
  CheckNotUndone(record);
  // Approved again while the undo runs changes nothing.
  if (imp.undo_request_status == RequestStatus::kApproved && imp.status == ImportStatus::kUndoing) {
    return false;
  }
  // Approval follows a request, also in a cycle after undo_failed.
  if (imp.undo_request_status != RequestStatus::kRequested) {
    Refuse("The undo must be requested before it can be approved");
  }
  CheckUndoProjectHeader(record, project_header);
  CheckUndoPackage(has_undo_package);
  imp.undo_request_status = RequestStatus::kApproved;
  imp.status = ImportStatus::kUndoing;  // the undo counts its own progress from 0
  imp.progress = 0;
  imp.message.clear();
  return true;
}

bool RejectUndo(MigrationRecord& record) {
  RequestStatus current = record.import_info.undo_request_status;
  if (current == RequestStatus::kRejected) return false;  // rejected again changes nothing
  // As for the import request, only a requested undo can be rejected.
  if (current != RequestStatus::kRequested) {
    Refuse("Only a requested undo can be rejected; the undo request is " +
           std::string(RequestStatusName(current)));
  }
  record.import_info.undo_request_status = RequestStatus::kRejected;
  return true;
}

}  // namespace

// Source side ------------------------------------------------------------------------------------

bool ApplyImportRequestStatus(MigrationRecord& record, RequestStatus status, Timestamp now) {
  RequestStatus current = record.import_info.import_request_status;
  // The same status again changes nothing, not even a date.
  if (status == current) return false;
  switch (status) {
    case RequestStatus::kRequested:
      RequestImport(record);
      break;
    case RequestStatus::kApproved:
      ApproveImport(record, now);
      break;
    case RequestStatus::kRejected:
      RejectImport(record);
      break;
    case RequestStatus::kPending:
      // A request never goes back to pending.
      Refuse("The import request cannot go back from " + std::string(RequestStatusName(current)) +
             " to pending");
    case RequestStatus::kUnknown:
      Refuse(
          "importInfo.importRequestStatus: 'unknown' cannot be requested; expected one of "
          "requested, approved, rejected");
  }
  record.import_info.last_updated_date = now;
  return true;
}

bool Rename(MigrationRecord& record, std::string_view name, Timestamp now) {
  if (record.package_info.name == name) return false;
  CheckNotApproved(record, "package name");
  record.package_info.name = std::string(name);
  record.package_info.last_updated_date = now;
  return true;
}

bool Retarget(MigrationRecord& record, const std::optional<NamedRef>& environment,
              const std::optional<NamedRef>& project, Timestamp now) {
  ImportInfo& imp = record.import_info;
  bool environment_changes = environment && !SameRef(*environment, imp.environment);
  bool project_changes = project && !SameRef(*project, imp.project);
  if (!environment_changes && !project_changes) return false;
  CheckNotApproved(record, "target environment and project");
  if (project_changes) CheckTargetProjectFits(record, *project);
  if (environment_changes) imp.environment = *environment;
  if (project_changes) imp.project = *project;
  imp.last_updated_date = now;
  return true;
}

bool StartValidation(MigrationRecord& record, Timestamp now) {
  if (record.validation && record.validation->status == ValidationStatus::kValidating) {
    return false;  // validating again changes nothing
  }
  PackageStatus status = record.package_info.status;
  if (status != PackageStatus::kCreated) {
    Refuse("Validation needs a package in status created; its status is " +
           std::string(PackageStatusName(status)));
  }
  record.validation = Validation{ValidationStatus::kValidating, 0, "", now, now};
  return true;
}

void CheckEditable(const MigrationRecord& record) {
  const PackageInfo& package = record.package_info;
  RequestStatus request = record.import_info.import_request_status;
  bool status_allows =
      package.status == PackageStatus::kCreated || package.status == PackageStatus::kCreateFailed;
  bool request_allows = request == RequestStatus::kPending || request == RequestStatus::kRejected;
  // Edited on the source only, while its import is not requested or approved.
  if (package.replicated || !status_allows || !request_allows) {
    Refuse(
        "A package can be edited on its source environment while its status is created or "
        "create_failed and its import is not requested or approved; its status is " +
        std::string(PackageStatusName(package.status)) + ", the import request is " +
        std::string(RequestStatusName(request)));
  }
}

void CheckCertifiable(const MigrationRecord& record) {
  PackageStatus status = record.package_info.status;
  if (status != PackageStatus::kCreated) {
    Refuse("A package can be certified only while its status is created; its status is " +
           std::string(PackageStatusName(status)));
  }
}

void BeginRebuild(MigrationRecord& record, Timestamp now) {
  CheckEditable(record);
  PackageInfo& package = record.package_info;
  package.status = PackageStatus::kCreating;
  package.progress = 0;
  package.message.clear();
  package.storage.reset();
  package.existing = false;
  package.last_updated_date = now;
}

void Certify(MigrationRecord& record, const Certification& certification, Timestamp now) {
  CheckCertifiable(record);
  record.package_info.certification = certification;
  record.package_info.last_updated_date = now;
}

void CheckReusable(const MigrationRecord& source) {
  const PackageInfo& package = source.package_info;
  bool built =
      package.status == PackageStatus::kCreated || package.status == PackageStatus::kLocked;
  // Only a built, undeleted package is imported again.
  if (!built || package.deleted) {
    Refuse("A package can be reused while its status is created or locked; its status is " +
           std::string(PackageStatusName(package.status)) +
           (package.deleted ? " and it was deleted" : ""));
  }
}

MigrationRecord ReuseRecord(const MigrationRecord& source, std::string new_import_id,
                            const NamedRef& target_environment, const NamedRef& target_project,
                            Timestamp now) {
  CheckReusable(source);
  CheckTargetProjectFits(source, target_project);
  MigrationRecord reused;
  reused.package_info = source.package_info;
  reused.package_info.status = PackageStatus::kLocked;
  reused.package_info.last_updated_date = now;
  ImportInfo& imp = reused.import_info;
  imp.id = std::move(new_import_id);
  imp.creation_date = now;
  imp.last_updated_date = now;
  imp.environment = target_environment;
  imp.project = target_project;
  imp.import_request_status = RequestStatus::kApproved;  // mstrio-py PUTs at once
  return reused;
}

// Target side ------------------------------------------------------------------------------------

void CheckImportable(const MigrationRecord& source_record) {
  const PackageInfo& package = source_record.package_info;
  // The source approved this import.
  if (package.status != PackageStatus::kLocked ||
      source_record.import_info.import_request_status != RequestStatus::kApproved) {
    Refuse("The import has not been approved on the source environment");
  }
  // A package deleted on its source cannot be read.
  if (package.deleted) Refuse(std::string(kSharedFileUnreachable));
}

void CheckNotYetImported(const MigrationRecord& existing_target) {
  // One import per import id; `reuse` makes a new one.
  if (existing_target.import_info.status != ImportStatus::kPending) {
    Refuse("Migration already imported; reuse the package to import again");
  }
}

void BeginImport(MigrationRecord& record, const NamedRef& creator, const NamedRef& environment,
                 const NamedRef& target_project, Timestamp now) {
  record.package_info.replicated = true;
  ImportInfo& imp = record.import_info;
  imp.creator = creator;
  imp.creation_date = now;  // reset to the time of the import PUT
  imp.last_updated_date = now;
  imp.environment = environment;
  imp.project = target_project;
  imp.status = ImportStatus::kImporting;
  imp.undo_request_status = RequestStatus::kPending;
  imp.progress = 0;
  imp.message.clear();
  imp.undo_storage.reset();
  imp.deleted = false;
}

bool ApplyUndoRequestStatus(MigrationRecord& record, RequestStatus status,
                            const std::optional<std::string>& project_header, bool has_undo_package,
                            Timestamp now) {
  ImportInfo& imp = record.import_info;
  // Undo happens where the import happened. The current value sent back (a whole-record body)
  // changes nothing.
  if (!record.package_info.replicated) {
    if (status == imp.undo_request_status) return false;
    Refuse("Undo must be requested on the target environment");
  }
  bool changed = false;
  switch (status) {
    case RequestStatus::kRequested:
      changed = RequestUndo(record, has_undo_package);
      break;
    case RequestStatus::kApproved:
      changed = ApproveUndo(record, project_header, has_undo_package);
      break;
    case RequestStatus::kRejected:
      changed = RejectUndo(record);
      break;
    case RequestStatus::kPending:
      if (imp.undo_request_status == RequestStatus::kPending) return false;  // no change
      // A request never goes back to pending.
      Refuse("The undo request cannot go back from " +
             std::string(RequestStatusName(imp.undo_request_status)) + " to pending");
    case RequestStatus::kUnknown:
      Refuse(
          "importInfo.undoRequestStatus: 'unknown' cannot be requested; expected one of "
          "requested, approved");
  }
  if (changed) imp.last_updated_date = now;
  return changed;
}

// Either side ------------------------------------------------------------------------------------

void CheckDeletable(const MigrationRecord& record) {
  ImportStatus imp = record.import_info.status;
  bool validating = record.validation && record.validation->status == ValidationStatus::kValidating;
  // A running job keeps its record and files.
  if (record.package_info.status == PackageStatus::kCreating || imp == ImportStatus::kImporting ||
      imp == ImportStatus::kUndoing || validating) {
    Refuse("Operation in progress");
  }
}

// Job outcomes -----------------------------------------------------------------------------------

void MarkCreated(MigrationRecord& record, StoredFile storage, Timestamp now) {
  PackageInfo& package = record.package_info;
  package.status = PackageStatus::kCreated;
  package.progress = 100;
  package.storage = std::move(storage);
  package.existing = true;
  package.message.clear();
  package.last_updated_date = now;
}

void MarkCreateFailed(MigrationRecord& record, std::string message, Timestamp now) {
  PackageInfo& package = record.package_info;
  package.status = PackageStatus::kCreateFailed;
  package.storage.reset();
  package.existing = false;
  package.message = std::move(message);
  package.last_updated_date = now;
}

void MarkImported(MigrationRecord& record, std::optional<StoredFile> undo_storage, Timestamp now) {
  ImportInfo& imp = record.import_info;
  imp.status = ImportStatus::kImported;
  imp.progress = 100;
  imp.undo_storage = std::move(undo_storage);  // absent: keep_both or generateUndo=false
  imp.message.clear();
  imp.last_updated_date = now;
}

void MarkImportFailed(MigrationRecord& record, std::string message, Timestamp now) {
  ImportInfo& imp = record.import_info;
  imp.status = ImportStatus::kImportFailed;
  imp.undo_storage.reset();
  imp.message = std::move(message);
  imp.last_updated_date = now;
}

void MarkUndone(MigrationRecord& record, bool success, std::string message, Timestamp now) {
  ImportInfo& imp = record.import_info;
  imp.status = success ? ImportStatus::kUndoSuccess : ImportStatus::kUndoFailed;
  if (success) imp.progress = 100;
  imp.message = std::move(message);  // undoStorage keeps its value
  imp.last_updated_date = now;
}

void MarkValidated(MigrationRecord& record, bool success, std::string message, Timestamp now) {
  if (!record.validation)
    record.validation = Validation{ValidationStatus::kValidating, 0, "", now, now};
  MarkValidationEnded(*record.validation, success, std::move(message), now);
}

void MarkValidationEnded(Validation& validation, bool success, std::string message, Timestamp now) {
  validation.status = success ? ValidationStatus::kValidated : ValidationStatus::kValidationFailed;
  if (success) validation.progress = 100;
  validation.message = std::move(message);
  validation.last_update_date = now;
}

void CheckValidatable(const MigrationRecord& source_record) {
  PackageStatus status = source_record.package_info.status;
  if (status != PackageStatus::kCreated) {
    Refuse("Validation needs a package in status created; its status is " +
           std::string(PackageStatusName(status)));
  }
}

}  // namespace tessera::service::migration
