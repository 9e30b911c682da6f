// service/bundle_service.h
//
// Loading project bundles into the storage service and writing them back (spec 05 §3).
//
// Import reads and checks the whole bundle first (model::ReadBundle; a broken bundle throws
// model::BundleError and nothing is written), then in one storage transaction: creates the
// project under its bundle id when it does not exist, creates missing folders (deterministic
// ids from their paths), writes every object, and records each object's dependencies. An object
// whose name, description, folder and definition are unchanged keeps its version and dates; a
// changed one gets a new version id and modification time, keeping its creation time, owner and
// ACL. New objects inherit their folder's ACL and are owned by the importing user.
// Export writes a project's semantic objects, dashboards and folders as a bundle, so that
// importing the export into another environment yields the same objects and ids.
// Both require Administer environment.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "service/principal.h"
#include "service/warehouse_registry.h"
#include "storage/metadata_store.h"

namespace tessera::service {

struct ImportSummary {
  std::string project_id;
  std::string project_name;
  int created = 0;
  int updated = 0;
  int unchanged = 0;
};

class BundleService {
 public:
  // `warehouses`, when given, are the warehouses of this environment, and Import refuses a bundle
  // naming another. Without it (tools and tests that load bundles into a bare store) the
  // bundle's warehouse is taken as it is.
  explicit BundleService(storage::MetadataStore& store,
                         const WarehouseRegistry* warehouses = nullptr);

  // `warehouse` replaces the bundle's warehouse connection name when not empty. A warehouse the
  // environment does not have is Error(kInvalidInput) naming it and listing the configured ones,
  // thrown before anything is written.
  ImportSummary Import(const Principal& principal, const std::filesystem::path& directory,
                       const std::string& warehouse = "");
  void Export(const Principal& principal, std::string_view project_id_or_name,
              const std::filesystem::path& directory);

 private:
  storage::MetadataStore& store_;
  const WarehouseRegistry* warehouses_;
};

}  // namespace tessera::service
