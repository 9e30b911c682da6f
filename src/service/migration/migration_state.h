// service/migration/migration_state.h
//
// The migration state machine (spec 04 §2.2) and its refusals (§2.3) as pure functions over a
// MigrationRecord. A transition either changes the record — setting the lastUpdatedDate of the
// parts it touched to `now` — or throws the Error of its §2.3 row, leaving the record as it was.
// Functions returning bool return whether anything changed: asking for the state a record is
// already in changes nothing, not even a date (row 14), and the caller need not store it.
// Check* functions only guard. Nothing here reads storage, runs a job or knows HTTP; the caller
// loads the record, applies one function and stores the result in the same transaction.
//
// Messages are the spec's where it gives one ("The package is not in status created").
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/time.h"
#include "service/migration/migration_record.h"

namespace tessera::service::migration {

// Source side ------------------------------------------------------------------------------------

// PATCH importInfo.importRequestStatus (T4–T7, rows 12–15). `approved` also locks the package.
bool ApplyImportRequestStatus(MigrationRecord& record, RequestStatus status, Timestamp now);

// PATCH packageInfo.name / importInfo{environment, project} (§1.10): until the import is
// approved (row 36). The same value again changes nothing and is always accepted (mstrio-py
// sends its whole packageInfo back). A configuration package takes no target project.
bool Rename(MigrationRecord& record, std::string_view name, Timestamp now);
bool Retarget(MigrationRecord& record, const std::optional<NamedRef>& environment,
              const std::optional<NamedRef>& project, Timestamp now);

// PATCH validation.status = validating (T17): the package must be created. Again while
// validating changes nothing; a finished validation may be started again.
bool StartValidation(MigrationRecord& record, Timestamp now);

// Edit (PUT …/packageInfo, T8) and certification (§1.10), row 36.
void CheckEditable(const MigrationRecord& record);
void CheckCertifiable(const MigrationRecord& record);
// The package is rebuilt: `creating`, storage and message cleared. Checks CheckEditable first.
void BeginRebuild(MigrationRecord& record, Timestamp now);
void Certify(MigrationRecord& record, const Certification& certification, Timestamp now);

// POST ?packageId= (T15): a package `created` or `locked` is imported again under a new import
// id. The new record is locked and approved at once (mstrio-py PUTs without PATCHing).
void CheckReusable(const MigrationRecord& source);
MigrationRecord ReuseRecord(const MigrationRecord& source, std::string new_import_id,
                            const NamedRef& target_environment, const NamedRef& target_project,
                            Timestamp now);

// Target side ------------------------------------------------------------------------------------

// PUT import: the record read on the source was approved (row 19) and not deleted (row 24).
void CheckImportable(const MigrationRecord& source_record);
// PUT import when this server already holds the target record (row 20).
void CheckNotYetImported(const MigrationRecord& existing_target);
// T9: the target record starts importing; importInfo.creationDate is reset to `now` (§1.3).
void BeginImport(MigrationRecord& record, const NamedRef& creator, const NamedRef& environment,
                 const NamedRef& target_project, Timestamp now);

// PATCH importInfo.undoRequestStatus (T12, T13, rows 16, 28–32). `project_header` is the
// X-MSTR-ProjectID header, if sent; `has_undo_package`: undoStorage is set and its file is
// still there. `approved` starts the undo: import status `undoing`.
bool ApplyUndoRequestStatus(MigrationRecord& record, RequestStatus status,
                            const std::optional<std::string>& project_header, bool has_undo_package,
                            Timestamp now);

// Either side ------------------------------------------------------------------------------------

// DELETE (row 35): refused while creating, importing, undoing or validating.
void CheckDeletable(const MigrationRecord& record);

// Job outcomes -----------------------------------------------------------------------------------

// T2 / T3: the package was built (created, 100, storage, existing) or not (create_failed, why).
void MarkCreated(MigrationRecord& record, StoredFile storage, Timestamp now);
void MarkCreateFailed(MigrationRecord& record, std::string message, Timestamp now);
// T10 / T11: no undo storage after keep_both or generateUndo=false (§5.1), nor after a failure.
void MarkImported(MigrationRecord& record, std::optional<StoredFile> undo_storage, Timestamp now);
void MarkImportFailed(MigrationRecord& record, std::string message, Timestamp now);
// T14: undo_success or undo_failed; undoStorage keeps its value (§5.3).
void MarkUndone(MigrationRecord& record, bool success, std::string message, Timestamp now);
// T17: validated or validation_failed.
void MarkValidated(MigrationRecord& record, bool success, std::string message, Timestamp now);
void MarkValidationEnded(Validation& validation, bool success, std::string message, Timestamp now);
// PUT …/validation on the target: the package of the sent record must be created (T17).
void CheckValidatable(const MigrationRecord& source_record);

}  // namespace tessera::service::migration
