#include "service/bundle/demo_loader.h"

#include <spdlog/spdlog.h>

#include "service/project/project_model.h"

namespace tessera::service::bundle {

ImportSummary LoadDemo(storage::MetadataStore& store, engine::warehouse::Warehouse& warehouse,
                       const DemoRequest& request, const session::Principal& administrator) {
  // Check the bundle before spending time on the data: ReadBundle throws for a broken one.
  model::bundle::ReadBundle(request.bundle_dir);
  engine::demo::GenerateDemoData(warehouse, request.data,
                                 [&](const engine::demo::DemoProgress& progress) {
                                   spdlog::info("demo warehouse: {} {}/{} rows", progress.table,
                                                progress.rows_loaded, progress.rows_total);
                                   if (request.progress) request.progress(progress);
                                 });
  BundleService bundles(store);
  return bundles.Import(administrator, request.bundle_dir, request.warehouse_name);
}

std::vector<std::string> DemoCubeIds(storage::MetadataStore& store, const std::string& project_id) {
  const model::SemanticModel model = project::LoadSemanticModel(store, project_id);
  std::vector<std::string> ids;
  for (const auto& [id, cube] : model.cubes()) ids.push_back(id);
  return ids;
}

bool HasNoProject(storage::MetadataStore& store) {
  bool empty = false;
  store.Read([&](storage::MetadataTransaction& tx) { empty = tx.ListProjects().empty(); });
  return empty;
}

}  // namespace tessera::service::bundle
