// service/migration/migration_requests.h
//
// What MigrationService is asked to do, as plain values: api/migration/migration_requests.h parses
// the request bodies into them, checking every field and naming the body's path of anything wrong,
// so a value here is well-formed; whether it may be done now is the service's to say.
#pragma once

#include <optional>
#include <string>

#include "core/json.h"
#include "model/package/kind.h"
#include "model/package/settings.h"
#include "service/migration/content_list.h"
#include "service/migration/migration_record.h"

namespace tessera::service::migration {

// A package to create (POST /api/migrations) or to rebuild (PUT .../packageInfo).
struct CreateRequest {
  model::package::PackageKind type = model::package::PackageKind::kProject;
  model::package::PackagePurpose purpose = model::package::PackagePurpose::kObjectMigration;
  std::string name;      // "" when not sent: the service names the package
  NamedRef environment;  // packageInfo.environment as sent; {} when absent
  model::package::PackageSettings settings;
  ContentList content;              // never empty for object migration; empty for project merge
  Json tree_view = Json::object();  // opaque UI state, kept verbatim
  NamedRef target_environment;      // importInfo.environment; {} when absent
  NamedRef target_project;          // importInfo.project; {} when absent
};

// PATCH /api/migrations/{id}: the changes a client may ask for. Every member is absent when not
// sent.
struct PatchRequest {
  std::optional<RequestStatus> import_request_status;
  std::optional<RequestStatus> undo_request_status;
  std::optional<NamedRef> target_environment;
  std::optional<NamedRef> target_project;
  std::optional<std::string> name;                    // never blank
  std::optional<ValidationStatus> validation_status;  // only kValidating
};

// POST /api/migrations for an uploaded package file (purpose migration_from_shared_file_store).
struct SharedFileImportRequest {
  std::string file_id;          // packageInfo.storage.sharedFileStore.files.id
  NamedRef target_environment;  // importInfo.environment; {} when absent
  NamedRef target_project;      // importInfo.project; {} when absent
};

}  // namespace tessera::service::migration
