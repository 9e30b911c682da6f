#include "service/cube/rollup_grains.h"

#include <exception>

#include "core/error.h"
#include "core/strings.h"
#include "model/dashboard.h"
#include "model/object_types.h"

namespace tessera::service::cube {
namespace {

std::vector<model::Dashboard> DashboardsOf(storage::MetadataStore& store,
                                           const std::string& project_id) {
  std::vector<model::ObjectRecord> records;
  store.Read([&](storage::MetadataTransaction& tx) {
    records = tx.ListObjects(project_id, {{model::kTypeDocumentDefinition}, {}});
  });
  std::vector<model::Dashboard> dashboards;
  for (const auto& record : records) {
    if (record.subtype != model::kSubtypeDashboard) continue;
    try {
      dashboards.push_back(model::ParseDashboard(record));
    } catch (const Error&) {
      // An invalid dashboard renders nothing, so it needs no roll-up.
    }
  }
  return dashboards;
}

void AddAttribute(const engine::Dataset& rows, const std::string& attribute_id,
                  std::vector<int>& grain) {
  const int index = rows.AttributeIndex(attribute_id);
  if (index >= 0) grain.push_back(index);
}

// The attributes the selectors of a chapter can filter a visualization of it on.
void AddSelectorAttributes(const model::Dashboard& dashboard, const std::string& chapter_key,
                           const engine::Dataset& rows, std::vector<int>& grain) {
  for (const model::Selector* selector : dashboard.SelectorsOfChapter(chapter_key)) {
    if (selector->source_id) AddAttribute(rows, *selector->source_id, grain);
    if (selector->place != model::SelectorPlace::kVisualization) continue;
    if (const model::Visualization* source = dashboard.FindVisualization(selector->key)) {
      for (const auto& id : source->attribute_ids) AddAttribute(rows, id, grain);
    }
  }
}

}  // namespace

std::vector<std::vector<int>> RollupGrainsOf(storage::MetadataStore& store,
                                             const std::string& project_id,
                                             const std::string& cube_id,
                                             const engine::Dataset& rows) {
  std::vector<std::vector<int>> grains{engine::VisibleGrain(rows)};
  for (const model::Dashboard& dashboard : DashboardsOf(store, project_id)) {
    for (const model::Chapter& chapter : dashboard.chapters) {
      for (const model::Page& page : chapter.pages) {
        for (const model::Visualization& visualization : page.visualizations) {
          if (!EqualsIgnoreCase(visualization.dataset_id, cube_id)) continue;
          std::vector<int> grain;
          for (const auto& id : visualization.attribute_ids) AddAttribute(rows, id, grain);
          AddSelectorAttributes(dashboard, chapter.key, rows, grain);
          grains.push_back(std::move(grain));
        }
      }
    }
  }
  return grains;
}

std::shared_ptr<const engine::RollupSet> BuildCubeRollups(storage::MetadataStore& store,
                                                          const std::string& project_id,
                                                          const std::string& cube_id,
                                                          const engine::Dataset& rows) {
  try {
    return std::make_shared<const engine::RollupSet>(
        engine::RollupSet::Build(rows, RollupGrainsOf(store, project_id, cube_id, rows)));
  } catch (const std::exception&) {
    return std::make_shared<const engine::RollupSet>();
  }
}

}  // namespace tessera::service::cube
