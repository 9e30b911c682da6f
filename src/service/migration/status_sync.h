// service/migration/status_sync.h
//
// What happens on the target -- a validation, an import, an undo -- is watched on the source
// through a shared file: the target writes it to the migration's status file in the shared package
// location (mstr/shared/migrations/status/<packageId>/<importId>.json); the source merges the file
// into the record it shows.
//
// Contract:
//   - WriteValidationStatus and WriteImportStatus replace their part of the status file
//     ("validation", "importInfo") and keep the other; the file is replaced atomically
//     (storage::package::WriteFileAtomically). An I/O failure throws Error(kServiceUnavailable)
//     with the location's message.
//   - WithTargetStatus returns `record` with:
//     - the file's validation in place of its own when the record has a validation, the file
//       holds a finished one (validated, validation_failed), and the file's was begun no more than
//       five minutes -- a tolerance for the two servers' clocks -- before the record's
//       (mstrio-py asks the target before it marks the source validating, so the target may
//       finish first). A validation started again within five minutes of the previous one shows
//       the previous outcome until the new one is written;
//     - the target's import status, progress, message, undo request and undo storage when the
//       file's importInfo was updated later than the record's (the import request status stays
//       the source's own);
//     - when that status is `importing` or `undoing` but the file has not been touched for more
//       than `target_silence` (the target touches it while the job runs: TouchImportStatus), the
//       status `import_failed` or `undo_failed` with a message saying when the target last
//       reported: the target is down or cannot reach the location. A later report of the target
//       shows again as it comes.
//     A missing or unreadable file changes nothing.
//   - TouchImportStatus sets the status file's modification time to now (a sign of life of the
//     import or undo running on the target); a missing file is left missing, and a failure is
//     Error(kServiceUnavailable).
#pragma once

#include <chrono>

#include "service/migration/migration_record.h"
#include "storage/package/location.h"

namespace tessera::service::migration {

void WriteValidationStatus(const storage::package::PackageLocation& location, const MigrationId& id,
                           const Validation& validation);
void WriteImportStatus(const storage::package::PackageLocation& location,
                       const MigrationRecord& target_record);

// Certification travels both ways in the same file: each side writes the certification it sets
// (part "certification"); ReadCertificationStatus gives the file's, or nullopt when there is none
// or it is malformed.
void WriteCertificationStatus(const storage::package::PackageLocation& location,
                              const MigrationRecord& record);
std::optional<Certification> ReadCertificationStatus(
    const storage::package::PackageLocation& location, const MigrationId& id);

inline constexpr std::chrono::seconds kDefaultTargetSilence{120};

MigrationRecord WithTargetStatus(const storage::package::PackageLocation& location,
                                 MigrationRecord record,
                                 std::chrono::seconds target_silence = kDefaultTargetSilence);

void TouchImportStatus(const storage::package::PackageLocation& location, const MigrationId& id);

}  // namespace tessera::service::migration
