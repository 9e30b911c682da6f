// model/bundle/qualification.h
//
// Filter qualifications in bundles: a qualification tree ({operator, operands}) written in YAML
// with names, and its canonical JSON with ids (model/semantic.h). Bundle operands and their
// canonical forms:
//
//   {type: attribute, name | id}                     {"type":"attribute","id":<id>}
//   {type: metric, name | id}                        {"type":"metric","id":<id>}
//   {type: form, attribute: {name | id},             {"type":"form","attribute":{"id":<id>},
//    form: {name}}                                    "form":{"name":"DESC"}}
//   {type: elements, values: [2024, ...]}            {"type":"elements",
//                                                     "elements":[{"id":"<attribute id>:2024"}]}
//   {type: constant, dataType, value}                the same, value as a string
//   {type: constants, dataType, values: [...]}       the same, values as strings
//   {type: parameter, key: W12}                      {"type":"parameter","key":"W12"}: a
//                                                    dashboard's value parameter (dashboards only)
//
// Element values are ID-form values of the attribute that is the operator's first operand.
// Operators are those of model/qualification_operators.h, by name only (not by symbol); operand
// counts are checked as that table gives them (And/Or take at least two conditions, Not one;
// Between three operands, IsNull one, the others two). Problems are recorded at the offending
// line.
#pragma once

#include <yaml-cpp/yaml.h>

#include "core/json.h"
#include "model/bundle/index.h"
#include "model/bundle/yaml.h"

namespace tessera::model::bundle {

Json QualificationFromYaml(const YAML::Node& node, const YamlFields& fields,
                           const BundleIndex& index);

void EmitQualification(YAML::Emitter& out, const Json& tree, const BundleIndex& index);

}  // namespace tessera::model::bundle
