// service/migration_status_sync.h
//
// A migration's validation runs on the target and is watched on the source (spec 04 §3.x, "status
// travels between environments through shared files"): the target writes the outcome to the
// migration's status file in the shared package location
// (mstr/shared/migrations/status/<packageId>/<importId>.json); the source merges it into the
// record it shows.
//
// Contract:
//   - WriteValidationStatus replaces the status file atomically (storage::WriteFileAtomically);
//     an I/O failure throws Error(kServiceUnavailable) with the location's message.
//   - WithTargetValidation returns `record` with the file's validation in place of its own when
//     the record has a validation, the file holds a finished one (validated, validation_failed),
//     and the file's was begun no more than five minutes -- the clock tolerance of spec 04 §2.3
//     row 37 -- before the record's (mstrio-py asks the target before it marks the source
//     validating, so the target may finish first). Otherwise, or when the file is missing or
//     unreadable, `record` is returned unchanged. A validation started again within five
//     minutes of the previous one shows the previous outcome until the new one is written.
#pragma once

#include "service/migration_record.h"
#include "storage/package_location.h"

namespace tessera::service {

void WriteValidationStatus(const storage::PackageLocation& location, const MigrationId& id,
                           const Validation& validation);

MigrationRecord WithTargetValidation(const storage::PackageLocation& location,
                                     MigrationRecord record);

}  // namespace tessera::service
