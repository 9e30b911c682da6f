#include "service/demo_loader.h"

#include <spdlog/spdlog.h>

namespace tessera::service {

ImportSummary LoadDemo(storage::MetadataStore& store, engine::Warehouse& warehouse,
                       const DemoRequest& request, const Principal& administrator) {
  // Check the bundle before spending time on the data: ReadBundle throws for a broken one.
  model::ReadBundle(request.bundle_dir);
  engine::GenerateDemoData(warehouse, request.data, [](const engine::DemoProgress& progress) {
    spdlog::info("demo warehouse: {} {}/{} rows", progress.table, progress.rows_loaded,
                 progress.rows_total);
  });
  BundleService bundles(store);
  return bundles.Import(administrator, request.bundle_dir, request.warehouse_name);
}

bool HasNoProject(storage::MetadataStore& store) {
  bool empty = false;
  store.Read([&](storage::MetadataTransaction& tx) { empty = tx.ListProjects().empty(); });
  return empty;
}

}  // namespace tessera::service
