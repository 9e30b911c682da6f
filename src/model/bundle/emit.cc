#include "model/bundle/emit.h"

#include "model/bundle/yaml.h"

namespace tessera::model::bundle {

void EmitText(YAML::Emitter& out, const std::string& text) {
  if (!PlainScalarToJson(text).is_string()) out << YAML::DoubleQuoted;
  out << text;
}

void EmitValueText(YAML::Emitter& out, const std::string& text) {
  if (PlainScalarToJson(text).is_null()) out << YAML::DoubleQuoted;
  out << text;
}

void EmitJson(YAML::Emitter& out, const Json& value) {
  if (value.is_object()) {
    out << YAML::BeginMap;
    for (const auto& [key, item] : value.items()) {
      out << YAML::Key;
      EmitText(out, key);
      out << YAML::Value;
      EmitJson(out, item);
    }
    out << YAML::EndMap;
  } else if (value.is_array()) {
    out << YAML::BeginSeq;
    for (const auto& item : value) EmitJson(out, item);
    out << YAML::EndSeq;
  } else if (value.is_string()) {
    EmitText(out, value.get<std::string>());
  } else if (value.is_null()) {
    out << YAML::Null;
  } else {
    out << value.dump();  // numbers and booleans, as JSON spells them
  }
}

void EmitField(YAML::Emitter& out, const std::string& key, const std::string& value) {
  if (value.empty()) return;
  out << YAML::Key << key << YAML::Value;
  EmitText(out, value);
}

void EmitNameList(YAML::Emitter& out, const std::string& key, const Json& ids,
                  const BundleIndex& index) {
  out << YAML::Key << key << YAML::Value << YAML::Flow << YAML::BeginSeq;
  for (const auto& id : ids)
    EmitText(out, id.is_string() ? index.NameOf(id.get<std::string>()) : id.dump());
  out << YAML::EndSeq;
}

}  // namespace tessera::model::bundle
