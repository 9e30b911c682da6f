// service/migration/migration_service_internal.h
//
// What the files that define MigrationService (migration_service.cc, migration_creation.cc,
// migration_import.cc, migration_files.cc) share: the roles and job kinds of its records, the
// record as loaded, and small helpers. Defined in migration_service.cc; for those files only.
#pragma once

#include <cstdint>
#include <string>

#include "core/error.h"
#include "service/migration/migration_service.h"

namespace tessera::service::migration {

// A record's role: the source's record of a package it creates, or the target's of an import.
inline constexpr char kSource[] = "source";
inline constexpr char kTarget[] = "target";

// The job kinds this service runs (RegisterJobs).
inline constexpr char kCreateJob[] = "create_package";
inline constexpr char kImportJob[] = "import_package";
inline constexpr char kUndoJob[] = "undo_package";
inline constexpr char kValidateJob[] = "validate_package";

// A stored record with its row's role, project and internal data (the running job's id, the
// content count while a package is built, whether an import makes an undo package, ...).
struct MigrationService::Loaded {
  std::string role;
  MigrationRecord record;
  std::string project_id;
  Json internal;
};

NamedRef Caller(const session::Principal& principal);

// Each side's work needs its package privilege (Create package on the source, Apply package on
// the target) and Bypass all object security, in `project_id`.
void RequirePackagePrivileges(const session::Principal& principal, model::Privilege privilege,
                              const std::string& project_id);

Error MigrationNotFound(const MigrationId& id);

// Projects duplicated from one another share a schema: the schemaId of the project's definition,
// or the project's own id for one that is not a copy.
std::string SchemaIdOf(const storage::ProjectRecord& project);

// The project `id`; Error(kInvalidInput) when it does not exist.
storage::ProjectRecord RequireProject(storage::MetadataTransaction& tx, const std::string& id);

// The content list of a package being created is stored in chunks beside its record (the
// package file keeps it once built); the record's internal data counts its items.
inline constexpr char kContentCount[] = "contentCount";
int64_t StoredContentCount(const Json& internal);
// Chunk `sequence` (from 1) of the stored content list of the source record `key`.
std::string StoredContentChunk(storage::MetadataTransaction& tx, const std::string& key,
                               int64_t sequence);

// A new job of `kind` for the record of `id` in `role`, run one at a time with the other jobs of
// `serial_key`.
storage::JobRecord JobFor(JobRunner& jobs, const char* kind, const char* role,
                          const MigrationId& id, const std::string& serial_key);

}  // namespace tessera::service::migration
