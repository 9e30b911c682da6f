// engine/push/pushed_semantic_model.h
//
// A pushed dataset (made through the push API) seen as a semantic model of its own, so its
// definitions and instances go through the same code as a modelled cube's
// (service/instance/dataset_definition_service.h, service/instance/instance_request.h). The model
// holds one cube, with the dataset's id and name, whose objects match what BuildPushedDataset
// (engine/push/pushed_dataset.h) publishes:
//
//   - per push attribute, an attribute with id PushedAttributeId, its forms named by category
//     (ID first), over a lookup table of its own whose columns carry the forms' types (FormType);
//   - per push metric, a simple metric with id PushedMetricId over a fact of its own: "sum", or
//     "max" for a metric over BOOL columns;
//   - the cube lists them in model order.
// The lookup tables and facts exist only to type the forms and metrics: nothing queries them (a
// pushed dataset has no warehouse).
#pragma once

#include <string>

#include "engine/push/push_model.h"
#include "model/semantic_model.h"

namespace tessera::engine::push {

model::SemanticModel PushedSemanticModel(const std::string& dataset_id,
                                         const std::string& dataset_name, const PushModel& model);

}  // namespace tessera::engine::push
