// service/cube/rollup_grains.h
//
// The roll-ups a published cube keeps beside its dataset (engine/rollup_set.h), at these grains:
//   - the visible grain: every attribute that is not hidden (a cube keeps a hidden attribute only
//     for a count distinct, which makes its own grain as fine as that attribute);
//   - per visualization of the project's dashboards built on the cube: the visualization's
//     attributes and every attribute of the cube that a selector of its chapter filters on
//     (chapter filters, page selectors, and the attributes of visualizations used as filters), so
//     the visualization finds a roll-up however its selectors are set.
// Within the limits of engine::RollupOptions (a quarter of the rows each, a fifth of the memory
// together). A dashboard that cannot be read adds no grain, and roll-ups that cannot be built are
// none: they only make queries faster, and the base answers whatever they cannot.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/dataset.h"
#include "engine/rollup_set.h"
#include "storage/metadata_store.h"

namespace tessera::service::cube {

std::vector<std::vector<int>> RollupGrainsOf(storage::MetadataStore& store,
                                             const std::string& project_id,
                                             const std::string& cube_id,
                                             const engine::Dataset& rows);

// Never null, never throws (no roll-up when something fails).
std::shared_ptr<const engine::RollupSet> BuildCubeRollups(storage::MetadataStore& store,
                                                          const std::string& project_id,
                                                          const std::string& cube_id,
                                                          const engine::Dataset& rows);

}  // namespace tessera::service::cube
