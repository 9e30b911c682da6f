// service/migration/migration_state.h
//
// The migration state machine and its refusals as pure functions over a MigrationRecord. A
// transition either changes the record — setting the lastUpdatedDate of the parts it touched to
// `now` — or throws an Error saying why it is refused (kInvalidInput; kMissingParameter for a
// missing X-MSTR-ProjectID header), leaving the record as it was.
// Functions returning bool return whether anything changed: asking for the state a record is
// already in changes nothing, not even a date, and the caller need not store it.
// Check* functions only guard. Nothing here reads storage, runs a job or knows HTTP; the caller
// loads the record, applies one function and stores the result in the same transaction.
//
// Where the interface prescribes a message, it is used word for word ("The package is not in
// status created").
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/time.h"
#include "service/migration/migration_record.h"

namespace tessera::service::migration {

// Source side ------------------------------------------------------------------------------------

// PATCH importInfo.importRequestStatus. `requested` needs a created, undeleted package and an
// import not yet approved; `approved` and `rejected` need `requested`, and `approved` also locks
// the package. An approval is final, and no request goes back to `pending`.
bool ApplyImportRequestStatus(MigrationRecord& record, RequestStatus status, Timestamp now);

// PATCH packageInfo.name / importInfo{environment, project}: until the import is approved. The
// same value again changes nothing and is always accepted (mstrio-py sends its whole packageInfo
// back). A configuration package takes no target project.
bool Rename(MigrationRecord& record, std::string_view name, Timestamp now);
bool Retarget(MigrationRecord& record, const std::optional<NamedRef>& environment,
              const std::optional<NamedRef>& project, Timestamp now);

// PATCH validation.status = validating: the package must be created. Again while validating
// changes nothing; a finished validation may be started again.
bool StartValidation(MigrationRecord& record, Timestamp now);

// Edit (PUT …/packageInfo): on the source only, while the package is created or create_failed
// and its import request is pending or rejected. Certification: while the package is created.
void CheckEditable(const MigrationRecord& record);
void CheckCertifiable(const MigrationRecord& record);
// The package is rebuilt: `creating`, storage and message cleared. Checks CheckEditable first.
void BeginRebuild(MigrationRecord& record, Timestamp now);
void Certify(MigrationRecord& record, const Certification& certification, Timestamp now);

// POST ?packageId=: a package `created` or `locked` is imported again under a new import id.
// The new record is locked and approved at once (mstrio-py PUTs without PATCHing).
void CheckReusable(const MigrationRecord& source);
MigrationRecord ReuseRecord(const MigrationRecord& source, std::string new_import_id,
                            const NamedRef& target_environment, const NamedRef& target_project,
                            Timestamp now);

// Target side ------------------------------------------------------------------------------------

// PUT import: the record read on the source must be locked with its import approved, and its
// package not deleted.
void CheckImportable(const MigrationRecord& source_record);
// PUT import when this server already holds the target record: refused unless that record's
// import is still pending (one import per import id; reusing the package makes a new one).
void CheckNotYetImported(const MigrationRecord& existing_target);
// The target record is marked replicated and starts importing with the given creator,
// environment and target project; importInfo.creationDate is reset to `now`, and the undo
// request, progress, message and undo storage start over.
void BeginImport(MigrationRecord& record, const NamedRef& creator, const NamedRef& environment,
                 const NamedRef& target_project, Timestamp now);

// PATCH importInfo.undoRequestStatus, on the target only: on the source the current value
// changes nothing and any other is refused. `requested` needs an import that is imported or
// undo_failed, and an undo package; `approved` needs `requested` and starts the undo (import
// status `undoing`, progress 0); `rejected` needs `requested`; nothing goes back to `pending`.
// After a successful undo, requesting or approving another is refused. `project_header` is the
// X-MSTR-ProjectID header, if sent: approving the undo of a project package needs it, naming the
// target project; a configuration package takes none. `has_undo_package`: undoStorage is set and
// its file is still there.
bool ApplyUndoRequestStatus(MigrationRecord& record, RequestStatus status,
                            const std::optional<std::string>& project_header, bool has_undo_package,
                            Timestamp now);

// Either side ------------------------------------------------------------------------------------

// DELETE: refused while creating, importing, undoing or validating (a running job keeps its
// record and files).
void CheckDeletable(const MigrationRecord& record);

// Job outcomes -----------------------------------------------------------------------------------

// The package job ended: built (created, 100, storage, existing) or not (create_failed, why).
void MarkCreated(MigrationRecord& record, StoredFile storage, Timestamp now);
void MarkCreateFailed(MigrationRecord& record, std::string message, Timestamp now);
// The import job ended: imported, with undo storage unless none was written (a keep_both rule or
// generateUndo=false), or import_failed, without.
void MarkImported(MigrationRecord& record, std::optional<StoredFile> undo_storage, Timestamp now);
void MarkImportFailed(MigrationRecord& record, std::string message, Timestamp now);
// The undo job ended: undo_success or undo_failed; undoStorage keeps its value either way.
void MarkUndone(MigrationRecord& record, bool success, std::string message, Timestamp now);
// The validation ended: validated or validation_failed.
void MarkValidated(MigrationRecord& record, bool success, std::string message, Timestamp now);
void MarkValidationEnded(Validation& validation, bool success, std::string message, Timestamp now);
// PUT …/validation on the target: the package of the sent record must be created.
void CheckValidatable(const MigrationRecord& source_record);

}  // namespace tessera::service::migration
