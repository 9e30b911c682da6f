#include "model/bundle/selector.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <optional>
#include <regex>
#include <string_view>
#include <vector>

#include "core/strings.h"
#include "model/bundle/emit.h"
#include "model/bundle/qualification.h"

namespace tessera::model::bundle {
namespace {

using Nodes = std::vector<YAML::Node>;

enum class SourceKind { kNone, kAttribute, kMetric };

// What a selector type takes: the kind of its source, the member of its selection, the default
// display style.
struct SelectorType {
  std::string_view name;
  SourceKind source;
  std::string_view selection_member;  // the member of currentSelection that holds the answer
  std::string_view default_display_style;
};

constexpr std::array<SelectorType, 6> kSelectorTypes = {{
    {"attribute_element_list", SourceKind::kAttribute, "elements", "check_boxes"},
    {"attribute_qualification", SourceKind::kAttribute, "expression", "attribute_qualification"},
    {"metric_qualification", SourceKind::kMetric, "expression", "metric_qualification"},
    {"object_replacement", SourceKind::kNone, "objectItems", "hyper_links"},
    {"visualization_as_filter", SourceKind::kNone, "expression", ""},
    {"value_parameter", SourceKind::kNone, "values", "text_box"},
}};

constexpr std::array<std::string_view, 9> kDisplayStyles = {"check_boxes",
                                                            "hyper_links",
                                                            "attribute_qualification",
                                                            "metric_qualification",
                                                            "text_box",
                                                            "radio_buttons",
                                                            "drop_down",
                                                            "slider",
                                                            "search_box"};

constexpr std::array<std::string_view, 4> kSelectionMembers = {"elements", "expression",
                                                               "objectItems", "values"};

constexpr std::array<std::string_view, 3> kSelectionStatuses = {"included", "excluded",
                                                                "unfiltered"};

constexpr std::array<std::string_view, 5> kParameterDataTypes = {"Real", "BigDecimal", "Int64",
                                                                 "Date", "Char"};

constexpr std::array<std::string_view, 5> kFlags = {"hasAllOption", "multiSelectionAllowed",
                                                    "synchronizedAcrossChapter",
                                                    "selectionRequired", "isParameterBased"};

template <size_t N>
bool IsOneOf(const std::array<std::string_view, N>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

template <size_t N>
std::string ListOf(const std::array<std::string_view, N>& names) {
  std::vector<std::string> items(names.begin(), names.end());
  return JoinStrings(items, ", ");
}

const SelectorType* FindSelectorType(std::string_view name) {
  for (const auto& type : kSelectorTypes) {
    if (type.name == name) return &type;
  }
  return nullptr;
}

std::string SelectorTypeNames() {
  std::vector<std::string> names;
  for (const auto& type : kSelectorTypes) names.emplace_back(type.name);
  return JoinStrings(names, ", ");
}

std::optional<double> NumberOf(const std::string& text) {
  double value = 0;
  const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
  if (result.ec != std::errc() || result.ptr != text.data() + text.size()) return std::nullopt;
  if (!std::isfinite(value)) return std::nullopt;
  return value;
}

bool IsIsoDate(const std::string& text) {
  static const std::regex kDate("[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])");
  return std::regex_match(text, kDate);
}

// Whether `text` is a value of a parameter of `data_type`; numbers also yield their value.
bool IsValueOfType(const std::string& text, std::string_view data_type) {
  if (data_type == "Char") return true;
  if (data_type == "Date") return IsIsoDate(text);
  if (data_type == "Int64") return ParseInt(text).has_value();
  return NumberOf(text).has_value();
}

bool IsNumericType(std::string_view data_type) {
  return data_type == "Real" || data_type == "BigDecimal" || data_type == "Int64";
}

class SelectorReader {
 public:
  SelectorReader(SelectorPlacement placement, const YamlFields& fields, const BundleIndex& index)
      : placement_(placement), fields_(fields), index_(index) {}

  Json Read(const YAML::Node& node) {
    if (!fields_.ExpectMap(node, "a selector {key, name, selectorType, ...}")) return nullptr;
    Json selector = Json::object();
    const SelectorType* type = ReadType(node, selector);
    if (placement_ != SelectorPlacement::kVisualization) {
      selector["key"] = fields_.String(node, "key", true).value_or("");
    }
    if (auto name = fields_.String(node, "name", false)) selector["name"] = *name;
    if (!type) return selector;
    ReadSource(node, *type, selector);
    ReadPresentation(node, *type, selector);
    selector["targets"] = Targets(node);
    if (type->name == "object_replacement") {
      selector["availableObjectItems"] = ObjectItems(node, "availableObjectItems", true);
    }
    if (type->name == "value_parameter") ReadParameterType(node, selector);
    selector["currentSelection"] = Selection(node, *type, selector);
    return selector;
  }

 private:
  const SelectorType* ReadType(const YAML::Node& node, Json& selector) const {
    const bool implied = placement_ == SelectorPlacement::kVisualization;
    const std::string name = fields_.String(node, "selectorType", !implied)
                                 .value_or(implied ? "visualization_as_filter" : "");
    const SelectorType* type = FindSelectorType(name);
    if (name.empty()) return nullptr;
    if (!type) {
      fields_.Problem(
          node["selectorType"],
          "'" + name + "' is not a selector type; expected one of " + SelectorTypeNames());
    } else if (implied != (name == "visualization_as_filter")) {
      fields_.Problem(node["selectorType"] ? node["selectorType"] : node,
                      implied ? "a visualization's selector is a visualization_as_filter"
                              : "visualization_as_filter belongs under a visualization's selector");
      return nullptr;
    }
    selector["selectorType"] = name;
    return type;
  }

  void ReadSource(const YAML::Node& node, const SelectorType& type, Json& selector) {
    const YAML::Node source = node["source"];
    if (type.source == SourceKind::kNone) {
      if (source)
        fields_.Problem(source, "a " + std::string(type.name) + " selector has no source");
      return;
    }
    const BundleKind kind =
        type.source == SourceKind::kAttribute ? BundleKind::kAttribute : BundleKind::kMetric;
    const std::optional<std::string> text = fields_.String(node, "source", true);
    if (!text) return;
    std::optional<std::string> id = index_.Resolve(kind, *text);
    if (!id) {
      fields_.Problem(
          source, "source: '" + *text + "' is not " + KindWithArticle(kind) + " of this bundle");
    }
    source_id_ = id.value_or(*text);
    selector["source"] = {{"id", source_id_}};
  }

  void ReadPresentation(const YAML::Node& node, const SelectorType& type, Json& selector) const {
    std::string style = fields_.String(node, "displayStyle", false)
                            .value_or(std::string(type.default_display_style));
    if (!style.empty() && !IsOneOf(kDisplayStyles, style)) {
      fields_.Problem(
          node["displayStyle"],
          "'" + style + "' is not a display style; expected one of " + ListOf(kDisplayStyles));
    }
    if (!style.empty()) selector["displayStyle"] = style;
    for (std::string_view flag : kFlags) {
      if (auto value = fields_.Bool(node, flag)) selector[std::string(flag)] = *value;
    }
    if (const YAML::Node dynamic = node["defaultDynamicSelection"]) {
      selector["defaultDynamicSelection"] = DynamicSelection(dynamic);
    }
  }

  Json DynamicSelection(const YAML::Node& node) const {
    if (!fields_.ExpectMap(node, "a dynamic selection {status, quantity}")) return nullptr;
    const std::string status = fields_.String(node, "status", true).value_or("");
    if (!status.empty() && status != "first_elements" && status != "last_elements") {
      fields_.Problem(node["status"],
                      "'" + status +
                          "' is not a dynamic selection; expected first_elements or "
                          "last_elements");
    }
    const std::optional<int64_t> quantity =
        ParseInt(fields_.String(node, "quantity", true).value_or(""));
    if (node["quantity"] && (!quantity || *quantity < 1)) {
      fields_.Problem(node["quantity"], "quantity: expected a positive whole number");
    }
    return {{"status", status}, {"quantity", quantity.value_or(0)}};
  }

  Json Targets(const YAML::Node& node) const {
    Json targets = Json::array();
    for (const auto& item : fields_.Sequence(node, "targets", false).value_or(Nodes{})) {
      if (auto key = fields_.ScalarText(item, "a visualization key")) {
        targets.push_back({{"key", *key}});
      }
    }
    return targets;
  }

  Json ObjectItems(const YAML::Node& map, std::string_view key, bool required) const {
    static constexpr std::array<BundleKind, 2> kKinds = {BundleKind::kAttribute,
                                                         BundleKind::kMetric};
    Json items = Json::array();
    for (const auto& item : fields_.Sequence(map, key, required).value_or(Nodes{})) {
      const std::optional<std::string> text = fields_.ScalarText(item, "an attribute or metric");
      if (!text) continue;
      std::optional<std::string> id = index_.Resolve(kKinds, *text);
      if (!id) {
        fields_.Problem(item, "'" + *text + "' is not an attribute or metric of this bundle");
      }
      items.push_back({{"id", id.value_or(*text)}});
    }
    return items;
  }

  void ReadParameterType(const YAML::Node& node, Json& selector) {
    parameter_type_ = fields_.String(node, "dataType", false).value_or("Char");
    if (!IsOneOf(kParameterDataTypes, parameter_type_)) {
      fields_.Problem(node["dataType"], "'" + parameter_type_ +
                                            "' is not a parameter data type; expected one of " +
                                            ListOf(kParameterDataTypes));
      return;
    }
    selector["dataType"] = parameter_type_;
    for (const char* bound : {"minValue", "maxValue"}) {
      const std::optional<std::string> text = fields_.String(node, bound, false);
      if (!text) continue;
      if (!IsNumericType(parameter_type_) || !NumberOf(*text)) {
        fields_.Problem(node[bound], std::string(bound) + ": expected a number bounding a " +
                                         "numeric parameter");
        continue;
      }
      selector[bound] = *text;
      (std::string_view(bound) == "minValue" ? min_value_ : max_value_) = NumberOf(*text);
    }
  }

  Json Selection(const YAML::Node& node, const SelectorType& type, const Json& selector) const {
    const YAML::Node selection = node["currentSelection"];
    if (!selection) return {{"selectionStatus", "unfiltered"}};
    if (!fields_.ExpectMap(selection, "a selection {selectionStatus, ...}")) return nullptr;
    Json answers = Json::object();
    for (std::string_view member : kSelectionMembers) {
      const YAML::Node value = selection[std::string(member)];
      if (!value) continue;
      if (member != type.selection_member) {
        fields_.Problem(value, "a " + std::string(type.name) + " selector's selection has no " +
                                   std::string(member) + "; it takes " +
                                   std::string(type.selection_member));
        continue;
      }
      answers[std::string(member)] = Answer(selection, member, selector);
    }
    Json out = {{"selectionStatus", Status(selection, !answers.empty())}};
    for (auto& [member, answer] : answers.items()) out[member] = std::move(answer);
    if (auto all = fields_.Bool(selection, "allSelected")) out["allSelected"] = *all;
    return out;
  }

  std::string Status(const YAML::Node& selection, bool has_answer) const {
    const std::string status = fields_.String(selection, "selectionStatus", false)
                                   .value_or(has_answer ? "included" : "unfiltered");
    if (!IsOneOf(kSelectionStatuses, status)) {
      fields_.Problem(selection["selectionStatus"], "'" + status +
                                                        "' is not a selection status; expected "
                                                        "one of " +
                                                        ListOf(kSelectionStatuses));
    }
    return status;
  }

  Json Answer(const YAML::Node& selection, std::string_view member, const Json& selector) const {
    if (member == "expression")
      return QualificationFromYaml(selection["expression"], fields_, index_);
    if (member == "elements") return Elements(selection);
    if (member == "objectItems") return ChosenObjects(selection, selector);
    return ParameterValues(selection);
  }

  Json Elements(const YAML::Node& selection) const {
    Json elements = Json::array();
    for (const auto& item : fields_.Sequence(selection, "elements", false).value_or(Nodes{})) {
      if (auto value = fields_.ScalarText(item, "an element value")) {
        elements.push_back({{"id", source_id_ + ":" + *value}});
      }
    }
    return elements;
  }

  Json ChosenObjects(const YAML::Node& selection, const Json& selector) const {
    Json chosen = ObjectItems(selection, "objectItems", false);
    const Json& available = selector.value("availableObjectItems", Json::array());
    const YAML::Node items = selection["objectItems"];
    for (size_t i = 0; i < chosen.size(); ++i) {
      if (std::find(available.begin(), available.end(), chosen[i]) == available.end()) {
        fields_.Problem(items[i], "'" + items[i].Scalar() +
                                      "' is not one of the selector's availableObjectItems");
      }
    }
    return chosen;
  }

  Json ParameterValues(const YAML::Node& selection) const {
    Json values = Json::array();
    for (const auto& item : fields_.Sequence(selection, "values", false).value_or(Nodes{})) {
      const std::optional<std::string> text = fields_.ScalarText(item, "a value");
      if (!text) continue;
      CheckParameterValue(item, *text);
      values.push_back(*text);
    }
    return values;
  }

  void CheckParameterValue(const YAML::Node& at, const std::string& text) const {
    if (!IsValueOfType(text, parameter_type_)) {
      fields_.Problem(at, "'" + text + "' is not a " + parameter_type_ + " value");
      return;
    }
    if (!IsNumericType(parameter_type_)) return;
    const double value = *NumberOf(text);
    if ((min_value_ && value < *min_value_) || (max_value_ && value > *max_value_)) {
      fields_.Problem(at, "'" + text + "' is outside the parameter's range");
    }
  }

  SelectorPlacement placement_;
  const YamlFields& fields_;
  const BundleIndex& index_;
  std::string source_id_;
  std::string parameter_type_ = "Char";
  std::optional<double> min_value_;
  std::optional<double> max_value_;
};

std::string ValueOfElementId(const std::string& element_id) {
  const size_t colon = element_id.find(':');
  return colon == std::string::npos ? element_id : element_id.substr(colon + 1);
}

void EmitObjectNames(YAML::Emitter& out, const Json& items, const BundleIndex& index) {
  out << YAML::Flow << YAML::BeginSeq;
  for (const auto& item : items) EmitText(out, index.NameOf(item.at("id").get<std::string>()));
  out << YAML::EndSeq;
}

void EmitSelection(YAML::Emitter& out, const Json& selection, const BundleIndex& index) {
  out << YAML::BeginMap;
  for (const auto& [member, value] : selection.items()) {
    out << YAML::Key << member << YAML::Value;
    if (member == "expression") {
      EmitQualification(out, value, index);
    } else if (member == "objectItems") {
      EmitObjectNames(out, value, index);
    } else if (member == "elements") {
      out << YAML::Flow << YAML::BeginSeq;
      for (const auto& element : value) {
        EmitValueText(out, ValueOfElementId(element.at("id").get<std::string>()));
      }
      out << YAML::EndSeq;
    } else if (member == "values") {
      out << YAML::Flow << YAML::BeginSeq;
      for (const auto& text : value) EmitValueText(out, text.get<std::string>());
      out << YAML::EndSeq;
    } else {
      EmitJson(out, value);
    }
  }
  out << YAML::EndMap;
}

void EmitSelectorMember(YAML::Emitter& out, const std::string& member, const Json& value,
                        const BundleIndex& index) {
  if (member == "source") {
    EmitText(out, index.NameOf(value.at("id").get<std::string>()));
  } else if (member == "targets") {
    out << YAML::Flow << YAML::BeginSeq;
    for (const auto& target : value) EmitText(out, target.at("key").get<std::string>());
    out << YAML::EndSeq;
  } else if (member == "availableObjectItems") {
    EmitObjectNames(out, value, index);
  } else if (member == "currentSelection") {
    EmitSelection(out, value, index);
  } else if (member == "minValue" || member == "maxValue") {
    EmitValueText(out, value.get<std::string>());
  } else if (member == "defaultDynamicSelection") {
    out << YAML::Flow << YAML::BeginMap << YAML::Key << "status" << YAML::Value
        << value.at("status").get<std::string>() << YAML::Key << "quantity" << YAML::Value
        << value.at("quantity").get<int64_t>() << YAML::EndMap;
  } else {
    EmitJson(out, value);
  }
}

}  // namespace

Json SelectorFromYaml(const YAML::Node& node, SelectorPlacement placement, const YamlFields& fields,
                      const BundleIndex& index) {
  return SelectorReader(placement, fields, index).Read(node);
}

void EmitSelector(YAML::Emitter& out, const Json& selector, const BundleIndex& index) {
  out << YAML::BeginMap;
  for (const auto& [member, value] : selector.items()) {
    out << YAML::Key;
    EmitText(out, member);
    out << YAML::Value;
    EmitSelectorMember(out, member, value, index);
  }
  out << YAML::EndMap;
}

}  // namespace tessera::model::bundle
