// model/bundle/selector.h
//
// Dashboard selectors in bundles: chapter filters (`chapters[].filters`), in-canvas selectors
// (`pages[].selectors`) and visualization-as-filter (`visualizations[].selector`). The YAML uses
// the member names of the dashboard definition's JSON with references by name; the canonical JSON
// is that shape minus what is derived when the dashboard is read (names, summaries, element-id
// format):
//
//   key: W41                               "key": "W41"
//   name: Region                           "name": "Region"
//   selectorType: attribute_element_list   "selectorType": ...
//   source: Region                         "source": {"id": <attribute or metric id>}
//   targets: [W2, W3]                      "targets": [{"key": "W2"}, {"key": "W3"}]
//   availableObjectItems: [Revenue, Year]  "availableObjectItems": [{"id": ...}, ...]
//   currentSelection:                      "currentSelection": {
//     selectionStatus: included              "selectionStatus": "included",
//     elements: [1, 2]                       "elements": [{"id": "<source id>:1"}, ...],
//     expression: {operator, operands}       "expression": <model/bundle/qualification.h tree>,
//     objectItems: [Revenue]                 "objectItems": [{"id": ...}],
//     values: ["0.25"]                       "values": ["0.25"] }
//
// plus the flags displayStyle, hasAllOption, multiSelectionAllowed, synchronizedAcrossChapter,
// selectionRequired, isParameterBased, defaultDynamicSelection {status, quantity}, and for value
// parameters dataType, minValue and maxValue. Every member but key and selectorType is optional
// (an absent flag is false, an absent displayStyle the type's default); selectionStatus defaults to
// "included" when a selection is given, else "unfiltered".
//
// Checked per selector type: the source's kind (attribute for element lists and attribute
// qualifications, metric for metric qualifications, none otherwise); which selection members the
// type takes; object items among the available ones; value-parameter values of the parameter's
// data type and within its range. A visualization-as-filter has no key and no source; its
// selectorType, if written, is visualization_as_filter. Target keys are checked by the dashboard
// (model/bundle/dashboard.h), which knows its visualizations.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

#include "core/json.h"
#include "model/bundle/index.h"
#include "model/bundle/yaml.h"

namespace tessera::model::bundle {

enum class SelectorPlacement { kChapterFilter, kPageSelector, kVisualization };

Json SelectorFromYaml(const YAML::Node& node, SelectorPlacement placement, const YamlFields& fields,
                      const BundleIndex& index);

// Emits one selector as a YAML mapping.
void EmitSelector(YAML::Emitter& out, const Json& selector, const BundleIndex& index);

}  // namespace tessera::model::bundle
