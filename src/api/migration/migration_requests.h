// api/migration/migration_requests.h
//
// The request bodies of the migration routes (api/migration/migration_routes.cc), parsed into the
// plain values the migration services take (service/migration/migration_requests.h and the
// services' own headers). Every parser reads a body that is a JSON object and throws Error naming
// the field path of what is wrong ("packageInfo.tocView.content[1].action: 'merge' is not a
// conflict rule; ..."): kInvalidInput for a wrong value or type, kMissingField for an absent
// required field. null counts as absent (mstrio-py drops None values). What a parsed value may do
// -- the record's state, the caller's privileges, the server's limits -- is the service's to check.
#pragma once

#include <optional>

#include "core/json.h"
#include "service/migration/content_list.h"
#include "service/migration/migration_record.h"
#include "service/migration/migration_requests.h"
#include "service/migration/shared_file_service.h"
#include "service/migration/storage_location_service.h"

namespace tessera::api::migration {

// POST /api/migrations: {packageInfo{type, purpose?, name, environment?, tocView{settings?,
// content}, treeView?}, importInfo?{environment?, project?}}, as mstrio-py and the public
// samples send it. An object migration names at least one object (else kMissingField); a project
// merge copies the whole project, is of type project and takes no content (an empty list is
// tolerated). `streamed`: the items of packageInfo.tocView.content when they were read item by
// item (service::migration::StreamedContent) and the body holds an empty array in their place.
service::migration::CreateRequest ParseCreateBody(
    const Json& body, std::optional<service::migration::ContentList> streamed = std::nullopt);

// PUT /api/migrations/{id}/packageInfo: {type, name, tocView, treeView}, or the same under
// "packageInfo", read as ParseCreateBody reads the package.
service::migration::CreateRequest ParseEditBody(const Json& body);

// PATCH /api/migrations/{id}. Only the keys a client may change are read; the read-only keys of a
// whole-record body (mstrio-py's trigger_validation sends its whole packageInfo) are ignored.
// packageInfo.name must not be blank; validation.status can only be "validating" (the server
// sets the outcome).
service::migration::PatchRequest ParsePatchBody(const Json& body);

// PUT /api/migrations/{id} (import): the source's record read with showContent=all, with
// packageInfo.replicated true (the client marks the copy it carries to the target), whose id is
// the path's and which carries packageInfo.tocView (else kMissingField). Returns the record as
// sent, normalised.
service::migration::MigrationRecord ParseImportBody(const Json& body,
                                                    const service::migration::MigrationId& path_id);
// PUT /api/migrations/{id}/validation: the same, except that replicated is not required
// (mstrio-py's trigger_validation sends the record as the source returned it).
service::migration::MigrationRecord ParseValidationBody(
    const Json& body, const service::migration::MigrationId& path_id);

// PATCH …/packageInfo/certification: `{status, operator?, lastUpdatedDate?}` (mstrio-py) or
// `{packageInfo: {certification: {...}}}` (the documentation's form).
service::migration::CertificationChange ParseCertificationBody(const Json& body);

// POST /api/migrations?packageId= (a reuse): where the new import goes, importInfo.environment
// and importInfo.project; each {} when absent or not an object.
struct ReuseTarget {
  service::migration::NamedRef environment;
  service::migration::NamedRef project;
};
ReuseTarget ParseReuseBody(const Json& body);

// Whether a POST /api/migrations body imports an uploaded file: packageInfo.purpose is
// migration_from_shared_file_store.
bool IsSharedFileImport(const Json& body);
// That body: packageInfo.storage.sharedFileStore.files.id names the file (else kMissingField);
// importInfo.environment and importInfo.project, as for a reuse.
service::migration::SharedFileImportRequest ParseSharedFileImportBody(const Json& body);

// POST .../sharedFileStore/files: {type: "migrations.packages", name?, extension?: "mmp", size,
// sha256 (64 hexadecimal digits), environment?{id, name}, extraInfo{packageType,
// packagePurpose}}.
service::migration::SharedFileDescription ParseSharedFileBody(const Json& body);

// PATCH /api/mstrServices/library/storage and POST .../storage/validation:
// {sharedFileStore: {type: "file_system", location: "<absolute directory>", alias?}} or
// {sharedFileStore: {type: "unset"}}; other types are not supported by this server.
service::migration::StorageLocationRequest ParseStorageLocationBody(const Json& body);

}  // namespace tessera::api::migration
