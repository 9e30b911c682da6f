// model/bundle/definitions.h
//
// One object's type-specific keys in a bundle file, and its canonical definition
// (model/semantic.h), in both directions. The keys common to every object (name, id,
// description, folder) are the reader's and writer's business, not these functions'.
//
//   table      {columns: [{name, type}], physical_name?}  physical_name defaults to the name;
//              type is a name model::ParseDataType accepts, written back as DataTypeName
//   attribute  {table, parent?, forms: [{name, column}]}  the first form is the ID form
//   fact       {tables: [..], expression}
//   metric     {function, fact | attribute, format?} or {expression, format?}; expression
//              references are "[metric name]" or "[metric id]"
//   filter     {qualification}                            model/bundle/qualification.h
//   report     {source?, cube?, rows, columns, filter?}   source: warehouse (default) | cube
//   cube       {attributes, metrics, filter?}
//   dashboard  model/bundle/dashboard.h
//
// DefinitionFromYaml never throws: it records each problem at its line and returns the
// definition as far as it could be built.
#pragma once

#include <yaml-cpp/yaml.h>

#include "core/json.h"
#include "model/bundle/index.h"
#include "model/bundle/yaml.h"
#include "model/object.h"

namespace tessera::model::bundle {

Json DefinitionFromYaml(BundleKind kind, const YAML::Node& node, const YamlFields& fields,
                        const BundleIndex& index);

// Emits the type-specific keys of `record` into the mapping `out` is inside of.
void EmitDefinition(YAML::Emitter& out, BundleKind kind, const ObjectRecord& record,
                    const BundleIndex& index);

}  // namespace tessera::model::bundle
