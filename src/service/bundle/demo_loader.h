// service/bundle/demo_loader.h
//
// The demo project "Tutorial": generates its warehouse deterministically and imports its bundle,
// pointing the project at that warehouse. Used by `tessera demo` and by the first start of
// `tessera serve`.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "engine/demo/data.h"
#include "engine/warehouse/warehouse.h"
#include "model/bundle/bundle.h"
#include "service/bundle/bundle_service.h"
#include "service/session/principal.h"
#include "storage/metadata_store.h"

namespace tessera::service::bundle {

struct DemoRequest {
  engine::demo::DemoOptions data;
  std::string warehouse_name = "demo";
  std::filesystem::path bundle_dir;
  engine::demo::DemoProgressCallback progress;  // optional: told what engine::GenerateDemoData logs
};

ImportSummary LoadDemo(storage::MetadataStore& store, engine::warehouse::Warehouse& warehouse,
                       const DemoRequest& request, const session::Principal& administrator);

// The cubes a freshly loaded demo project publishes before its dashboards and cube reports
// answer data: every cube of its semantic model, in a stable order.
std::vector<std::string> DemoCubeIds(storage::MetadataStore& store, const std::string& project_id);

// True when the storage service holds no project yet (a first start).
bool HasNoProject(storage::MetadataStore& store);

}  // namespace tessera::service::bundle
