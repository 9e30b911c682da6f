#include "model/bundle_dashboard.h"

#include <algorithm>
#include <array>
#include <vector>

#include "model/bundle_emit.h"

namespace tessera::model {
namespace {

using Nodes = std::vector<YAML::Node>;

constexpr std::array<std::string_view, 4> kObjectKeys = {"name", "id", "description", "folder"};

bool IsObjectKey(std::string_view key) {
  return std::find(kObjectKeys.begin(), kObjectKeys.end(), key) != kObjectKeys.end();
}

std::vector<BundleKind> ReferenceKinds(std::string_view key) {
  if (key == "dataset" || key == "datasets") return {BundleKind::kReport, BundleKind::kCube};
  if (key == "attributes") return {BundleKind::kAttribute};
  if (key == "metrics") return {BundleKind::kMetric};
  return {};
}

std::string Expected(const std::vector<BundleKind>& kinds) {
  return kinds.size() == 1 ? KindWithArticle(kinds.front()) : "a report or cube";
}

bool IsReferenceValue(const YAML::Node& node) {
  if (node.IsScalar()) return true;
  if (!node.IsSequence()) return false;
  for (const auto& item : node) {
    if (!item.IsScalar()) return false;
  }
  return true;
}

bool IsReferenceValue(const Json& value) {
  if (value.is_string()) return true;
  if (!value.is_array()) return false;
  for (const auto& item : value) {
    if (!item.is_string()) return false;
  }
  return true;
}

class DashboardReader {
 public:
  DashboardReader(const YamlFields& fields, const BundleIndex& index)
      : fields_(fields), index_(index) {}

  Json Definition(const YAML::Node& node) const {
    CheckStructure(node);
    Json definition = Json::object();
    for (const auto& entry : node) {
      const std::string key = entry.first.as<std::string>();
      if (!IsObjectKey(key)) definition[key] = Value(key, entry.second);
    }
    definition["isDashboard"] = true;
    return definition;
  }

 private:
  Json Value(const std::string& key, const YAML::Node& node) const {
    const std::vector<BundleKind> kinds = ReferenceKinds(key);
    if (!kinds.empty() && IsReferenceValue(node)) return References(kinds, node);
    if (!node.IsMap() && !node.IsSequence()) return YamlToJson(node);
    if (node.IsSequence()) {
      Json array = Json::array();
      for (const auto& item : node) array.push_back(Value("", item));
      return array;
    }
    Json object = Json::object();
    for (const auto& entry : node) {
      const std::string item_key = entry.first.as<std::string>();
      object[item_key] = Value(item_key, entry.second);
    }
    return object;
  }

  Json References(const std::vector<BundleKind>& kinds, const YAML::Node& node) const {
    if (node.IsScalar()) return Reference(kinds, node);
    Json ids = Json::array();
    for (const auto& item : node) ids.push_back(Reference(kinds, item));
    return ids;
  }

  std::string Reference(const std::vector<BundleKind>& kinds, const YAML::Node& node) const {
    const std::string& text = node.Scalar();
    std::optional<std::string> id = index_.Resolve(kinds, text);
    if (!id) fields_.Problem(node, "'" + text + "' is not " + Expected(kinds) + " of this bundle");
    return id.value_or(text);
  }

  void CheckStructure(const YAML::Node& node) const {
    fields_.Bool(node, "parallelRendering");
    for (const auto& chapter : fields_.Sequence(node, "chapters", true).value_or(Nodes{})) {
      if (!fields_.ExpectMap(chapter, "a chapter {key, name, pages}")) continue;
      for (const auto& page : fields_.Sequence(chapter, "pages", true).value_or(Nodes{})) {
        if (fields_.ExpectMap(page, "a page {key, name, visualizations}")) {
          fields_.Sequence(page, "visualizations", false);
        }
      }
    }
  }
  const YamlFields& fields_;
  const BundleIndex& index_;
};

void EmitWithNames(YAML::Emitter& out, const std::string& key, const Json& value,
                   const BundleIndex& index) {
  if (!ReferenceKinds(key).empty() && IsReferenceValue(value)) {
    if (value.is_string()) return EmitText(out, index.NameOf(value.get<std::string>()));
    out << YAML::Flow << YAML::BeginSeq;
    for (const auto& id : value) EmitText(out, index.NameOf(id.get<std::string>()));
    out << YAML::EndSeq;
  } else if (value.is_object()) {
    out << YAML::BeginMap;
    for (const auto& [item_key, item] : value.items()) {
      out << YAML::Key;
      EmitText(out, item_key);
      out << YAML::Value;
      EmitWithNames(out, item_key, item, index);
    }
    out << YAML::EndMap;
  } else if (value.is_array()) {
    out << YAML::BeginSeq;
    for (const auto& item : value) EmitWithNames(out, "", item, index);
    out << YAML::EndSeq;
  } else {
    EmitJson(out, value);
  }
}

}  // namespace

Json DashboardFromYaml(const YAML::Node& node, const YamlFields& fields, const BundleIndex& index) {
  return DashboardReader(fields, index).Definition(node);
}

void EmitDashboard(YAML::Emitter& out, const Json& definition, const BundleIndex& index) {
  for (const auto& [key, value] : definition.items()) {
    if (key == "isDashboard") continue;
    out << YAML::Key;
    EmitText(out, key);
    out << YAML::Value;
    EmitWithNames(out, key, value, index);
  }
}

}  // namespace tessera::model
