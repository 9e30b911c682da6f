// model/bundle/dashboard.h
//
// Dashboards in bundles: one file per dashboard holding the dashboard definition as YAML (chapters
// -> pages -> visualizations, selectors, properties such as parallelRendering). The canonical
// definition is that YAML as JSON (plain scalars typed as YAML reads them), minus the object keys
// name, id, description and folder, plus "isDashboard": true. Wherever these keys appear with a
// scalar or a list of scalars as value, the value is a reference or a list of references, resolved
// to ids (and written back as names):
//
//   dataset, datasets   a report or cube
//   attributes          attributes
//   metrics             metrics
//
// (the keys model::UsedObjectIds looks in; a mapping under them is kept as written). Selectors sit
// under `chapters[].filters`, `pages[].selectors` and `visualizations[].selector`, in the form of
// model/bundle/selector.h. A visualization's `metricLimit` is a qualification on its aggregated
// rows (model/bundle/qualification.h) whose constants may be {type: parameter, key} naming a value
// parameter of the dashboard. Checked: `chapters` is a list of mappings, each with a `pages` list
// of mappings; `visualizations`, where present, is a list; `parallelRendering`, where present, is
// true or false; keys of chapters, pages, visualizations and selectors are unique in the dashboard;
// a selector's targets are visualizations of its chapter.
#pragma once

#include <yaml-cpp/yaml.h>

#include "core/json.h"
#include "model/bundle/index.h"
#include "model/bundle/yaml.h"

namespace tessera::model::bundle {

Json DashboardFromYaml(const YAML::Node& node, const YamlFields& fields, const BundleIndex& index);

// Emits the dashboard's keys into the mapping `out` is inside of.
void EmitDashboard(YAML::Emitter& out, const Json& definition, const BundleIndex& index);

}  // namespace tessera::model::bundle
