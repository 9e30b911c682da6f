// model/bundle/emit.h
//
// Writing bundle YAML with yaml-cpp's Emitter so that reading it back (model/bundle/yaml.h)
// yields the same values: text that a plain scalar would turn into a boolean, null or number
// ("true", "2024", "") is quoted; JSON numbers, booleans and null are written plain.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "core/json.h"
#include "model/bundle/index.h"

namespace tessera::model::bundle {

void EmitText(YAML::Emitter& out, const std::string& text);
// For values read back as text whatever they look like (element and constant values): quoted
// only where a plain scalar would read as null.
void EmitValueText(YAML::Emitter& out, const std::string& text);
void EmitJson(YAML::Emitter& out, const Json& value);

// `key: value` inside a map; EmitField skips an empty `value`.
void EmitField(YAML::Emitter& out, const std::string& key, const std::string& value);
// `key: [name, ...]` with each id written as its object's name.
void EmitNameList(YAML::Emitter& out, const std::string& key, const Json& ids,
                  const BundleIndex& index);

}  // namespace tessera::model::bundle
