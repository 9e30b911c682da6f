#include "model/bundle/dashboard.h"

#include <algorithm>
#include <array>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "model/bundle/emit.h"
#include "model/bundle/qualification.h"
#include "model/bundle/selector.h"

namespace tessera::model::bundle {
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

// The keys under which selectors sit, and where each puts them.
std::optional<SelectorPlacement> SelectorKey(std::string_view key) {
  if (key == "filters") return SelectorPlacement::kChapterFilter;
  if (key == "selectors") return SelectorPlacement::kPageSelector;
  if (key == "selector") return SelectorPlacement::kVisualization;
  return std::nullopt;
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

// A visualization's metric limit: a qualification on its aggregated rows, whose constants may be a
// value parameter of the dashboard.
constexpr const char* kMetricLimitKey = "metricLimit";

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
    if (const auto placement = SelectorKey(key)) return Selectors(*placement, node);
    if (key == kMetricLimitKey) return QualificationFromYaml(node, fields_, index_);
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

  Json Selectors(SelectorPlacement placement, const YAML::Node& node) const {
    if (placement == SelectorPlacement::kVisualization) {
      return SelectorFromYaml(node, placement, fields_, index_);
    }
    Json selectors = Json::array();
    if (!node.IsSequence()) {
      if (!node.IsNull()) fields_.Problem(node, "expected a list of selectors");
      return selectors;
    }
    for (const auto& item : node) {
      selectors.push_back(SelectorFromYaml(item, placement, fields_, index_));
    }
    return selectors;
  }

  void CheckStructure(const YAML::Node& node) const {
    fields_.Bool(node, "parallelRendering");
    std::set<std::string> keys;
    for (const auto& chapter : fields_.Sequence(node, "chapters", true).value_or(Nodes{})) {
      if (!fields_.ExpectMap(chapter, "a chapter {key, name, pages}")) continue;
      CheckChapter(chapter, keys);
    }
  }

  // Keys are unique within the dashboard; targets name visualizations of the same chapter.
  void CheckChapter(const YAML::Node& chapter, std::set<std::string>& keys) const {
    std::set<std::string> visualizations;
    std::vector<YAML::Node> selectors = Listed(chapter, "filters");
    CheckKey(chapter, keys);
    for (const auto& page : fields_.Sequence(chapter, "pages", true).value_or(Nodes{})) {
      if (!fields_.ExpectMap(page, "a page {key, name, visualizations}")) continue;
      CheckKey(page, keys);
      for (const auto& selector : Listed(page, "selectors")) selectors.push_back(selector);
      for (const auto& visualization :
           fields_.Sequence(page, "visualizations", false).value_or(Nodes{})) {
        if (!visualization.IsMap()) continue;
        CheckKey(visualization, keys);
        const YAML::Node key = visualization["key"];
        if (key.IsDefined() && key.IsScalar()) visualizations.insert(key.Scalar());
        const YAML::Node selector = visualization["selector"];
        if (selector.IsDefined() && selector.IsMap()) selectors.push_back(selector);
      }
    }
    for (const auto& selector : selectors) {
      CheckKey(selector, keys);
      CheckTargets(selector, visualizations);
    }
  }

  static std::vector<YAML::Node> Listed(const YAML::Node& map, const char* key) {
    std::vector<YAML::Node> items;
    const YAML::Node list = map[key];
    if (!list.IsDefined() || !list.IsSequence()) return items;
    for (const auto& item : list) {
      if (item.IsMap()) items.push_back(item);
    }
    return items;
  }

  void CheckKey(const YAML::Node& unit, std::set<std::string>& keys) const {
    const YAML::Node key = unit["key"];
    if (!key.IsDefined() || !key.IsScalar()) return;
    if (!keys.insert(key.Scalar()).second) {
      fields_.Problem(key, "key '" + key.Scalar() + "' is used twice in this dashboard");
    }
  }

  void CheckTargets(const YAML::Node& selector, const std::set<std::string>& visualizations) const {
    const YAML::Node targets = selector["targets"];
    if (!targets.IsDefined() || !targets.IsSequence()) return;
    for (const auto& target : targets) {
      if (target.IsScalar() && !visualizations.contains(target.Scalar())) {
        fields_.Problem(target,
                        "target '" + target.Scalar() + "' is not a visualization of this chapter");
      }
    }
  }
  const YamlFields& fields_;
  const BundleIndex& index_;
};

void EmitWithNames(YAML::Emitter& out, const std::string& key, const Json& value,
                   const BundleIndex& index) {
  if (SelectorKey(key) && value.is_object()) return EmitSelector(out, value, index);
  if (key == kMetricLimitKey && value.is_object()) return EmitQualification(out, value, index);
  if (SelectorKey(key) && value.is_array()) {
    out << YAML::BeginSeq;
    for (const auto& selector : value) EmitSelector(out, selector, index);
    out << YAML::EndSeq;
    return;
  }
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

}  // namespace tessera::model::bundle
