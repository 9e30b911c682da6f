// service/bundle/bundle_service.h
//
// Loading project bundles (model/bundle/bundle.h) into the storage service and writing them back.
//
// Import reads and checks the whole bundle first (model::ReadBundle; a broken bundle throws
// model::BundleError and nothing is written), then in one storage transaction: creates the
// project under its bundle id when it does not exist, creates missing folders (deterministic
// ids from their paths), writes every object, and records each object's dependencies. An object
// whose name, description, folder and definition are unchanged keeps its version and dates; a
// changed one gets a new version id and modification time, keeping its creation time, owner and
// ACL. New objects inherit their folder's ACL and are owned by the importing user.
// With `prune`, the same transaction then deletes every object of a kind a bundle holds (tables,
// attributes, facts, metrics, filters, cubes, reports, dashboards: model::KindOf) that the
// project has and the bundle does not, with its cube snapshot record; objects of other kinds and
// folders stay. When an object that stays uses one to be deleted, the import is refused:
// Error(kInvalidInput) naming each such object and its users, and nothing is written.
// With `dry_run`, everything above runs and is counted, then the transaction rolls back: the
// summary says what the import would do and nothing is written.
// Export writes a project's semantic objects, dashboards and folders as a bundle, so that
// importing the export into another environment yields the same objects and ids.
// Both require Administer environment.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "service/project/warehouse_registry.h"
#include "service/session/principal.h"
#include "storage/metadata_store.h"

namespace tessera::service::bundle {

// One object an import creates, updates or deletes.
struct ImportedObject {
  std::string id;
  std::string kind;  // "report", "metric", ... (model::KindNoun)
  std::string name;
};

struct ImportSummary {
  std::string project_id;
  std::string project_name;
  int created = 0;
  int updated = 0;
  int unchanged = 0;
  int deleted = 0;  // with prune
  // The objects behind the counts but `unchanged`, in the order the import met them.
  std::vector<ImportedObject> created_objects;
  std::vector<ImportedObject> updated_objects;
  std::vector<ImportedObject> deleted_objects;
  bool written = true;  // false for a dry run
};

struct BundleImportOptions {
  std::string warehouse;  // replaces the bundle's warehouse connection name when not empty
  bool prune = false;
  bool dry_run = false;
};

class BundleService {
 public:
  // `warehouses`, when given, are the warehouses of this environment, and Import refuses a bundle
  // naming another. Without it (tools and tests that load bundles into a bare store) the
  // bundle's warehouse is taken as it is.
  explicit BundleService(storage::MetadataStore& store,
                         const project::WarehouseRegistry* warehouses = nullptr);

  // `warehouse` replaces the bundle's warehouse connection name when not empty. A warehouse the
  // environment does not have is Error(kInvalidInput) naming it and listing the configured ones,
  // thrown before anything is written.
  ImportSummary Import(const session::Principal& principal, const std::filesystem::path& directory,
                       const std::string& warehouse = "");
  ImportSummary Import(const session::Principal& principal, const std::filesystem::path& directory,
                       const BundleImportOptions& options);
  void Export(const session::Principal& principal, std::string_view project_id_or_name,
              const std::filesystem::path& directory);

 private:
  storage::MetadataStore& store_;
  const project::WarehouseRegistry* warehouses_;
};

}  // namespace tessera::service::bundle
