#include "model/bundle/qualification.h"

#include <algorithm>
#include <array>
#include <optional>
#include <string_view>

#include "model/bundle/emit.h"
#include "model/qualification_operators.h"

namespace tessera::model::bundle {
namespace {

constexpr std::array<std::string_view, 7> kDataTypes = {"Real", "BigDecimal", "Int64", "Date",
                                                        "Time", "TimeStamp",  "Char"};

std::string OperatorNames() {
  std::string names;
  for (const QualificationOperator& op : QualificationOperators()) {
    if (op.family != OperatorFamily::kRanked) names += std::string(op.name) + ", ";
  }
  return names + "Rank.* or Percent.*";
}

std::string ArityText(const QualificationOperator& op) {
  if (op.max_operands == kAnyNumberOfOperands) return "at least " + std::to_string(op.min_operands);
  return std::to_string(op.min_operands);
}

bool IsOperatorNode(const YAML::Node& node) { return node.IsMap() && node["operator"]; }

class QualificationReader {
 public:
  QualificationReader(const YamlFields& fields, const BundleIndex& index)
      : fields_(fields), index_(index) {}

  Json Condition(const YAML::Node& node) const {
    if (!IsOperatorNode(node)) {
      fields_.Problem(node, "expected a condition: {operator, operands}");
      return nullptr;
    }
    const std::string op = fields_.String(node, "operator", true).value_or("");
    // By name: the symbols ("=", "&") are for requests, not bundles.
    const QualificationOperator* arity = FindOperatorByName(op);
    if (!arity && !op.empty()) {
      fields_.Problem(node["operator"],
                      "'" + op + "' is not an operator; expected one of " + OperatorNames());
    }
    const auto operands = fields_.Sequence(node, "operands", true);
    if (arity == nullptr || !operands) return nullptr;
    if (operands->size() < arity->min_operands || operands->size() > arity->max_operands) {
      fields_.Problem(node, "operator " + op + " takes " + ArityText(*arity) + " operand(s), not " +
                                std::to_string(operands->size()));
    }
    return {{"operator", op}, {"operands", Operands(*arity, *operands)}};
  }

 private:
  Json Operands(const QualificationOperator& arity, const std::vector<YAML::Node>& operands) const {
    Json out = Json::array();
    std::optional<std::string> qualified_attribute;
    for (const auto& operand : operands) {
      const bool is_logical = arity.family == OperatorFamily::kLogical;
      out.push_back(is_logical ? Condition(operand) : Leaf(operand, qualified_attribute));
      const Json& first = out.front();
      if (out.size() == 1 && first.is_object() && first.value("type", "") == "attribute") {
        qualified_attribute = first.at("id").get<std::string>();
      }
    }
    return out;
  }

  Json Leaf(const YAML::Node& node, const std::optional<std::string>& qualified_attribute) const {
    if (!fields_.ExpectMap(node, "an operand {type, ...}")) return nullptr;
    if (IsOperatorNode(node)) {
      fields_.Problem(node, "expected an operand {type, ...}, not a condition");
      return nullptr;
    }
    const std::string type = fields_.String(node, "type", true).value_or("");
    if (type == "attribute") return ObjectOperand(node, BundleKind::kAttribute);
    if (type == "metric") return ObjectOperand(node, BundleKind::kMetric);
    if (type == "form") return FormOperand(node);
    if (type == "elements") return ElementsOperand(node, qualified_attribute);
    if (type == "constant" || type == "constants") return ConstantOperand(node, type);
    if (type == "parameter") return ParameterOperand(node);
    if (!type.empty()) {
      fields_.Problem(node["type"], "'" + type +
                                        "' is not an operand type; expected one of attribute, "
                                        "form, metric, elements, constant, constants, parameter");
    }
    return nullptr;
  }

  // A dashboard's value parameter, by selector key; the dashboard checks the key.
  Json ParameterOperand(const YAML::Node& node) const {
    const std::optional<std::string> key = fields_.String(node, "key", true);
    if (!key) return nullptr;
    return {{"type", "parameter"}, {"key", *key}};
  }

  // `{name | id}` of an object of `kind`.
  std::optional<std::string> Reference(const YAML::Node& node, BundleKind kind) const {
    if (!fields_.ExpectMap(node, "a reference {name} or {id}")) return std::nullopt;
    const bool has_id = node["id"].IsDefined();
    const std::optional<std::string> text = fields_.String(node, has_id ? "id" : "name", true);
    if (!text) return std::nullopt;
    std::optional<std::string> id = index_.Resolve(kind, *text);
    if (!id) {
      fields_.Problem(node[has_id ? "id" : "name"],
                      "'" + *text + "' is not " + KindWithArticle(kind) + " of this bundle");
    }
    return id;
  }

  Json ObjectOperand(const YAML::Node& node, BundleKind kind) const {
    const std::optional<std::string> id = Reference(node, kind);
    return {{"type", KindNoun(kind)}, {"id", id.value_or("")}};
  }

  Json FormOperand(const YAML::Node& node) const {
    const YAML::Node attribute = node["attribute"];
    const YAML::Node form = node["form"];
    if (!attribute || !form) {
      fields_.Problem(node, "a form operand needs attribute: {name} and form: {name}");
      return nullptr;
    }
    const std::optional<std::string> attribute_id = Reference(attribute, BundleKind::kAttribute);
    if (!fields_.ExpectMap(form, "a form {name}")) return nullptr;
    const std::string form_name = fields_.String(form, "name", true).value_or("");
    if (attribute_id && !form_name.empty()) CheckForm(*attribute_id, form_name, form["name"]);
    return {{"type", "form"},
            {"attribute", {{"id", attribute_id.value_or("")}}},
            {"form", {{"name", form_name}}}};
  }

  void CheckForm(const std::string& attribute_id, const std::string& form_name,
                 const YAML::Node& at) const {
    const std::vector<std::string>* forms = index_.Forms(attribute_id);
    if (!forms || std::find(forms->begin(), forms->end(), form_name) != forms->end()) return;
    fields_.Problem(
        at, "'" + form_name + "' is not a form of attribute '" + index_.NameOf(attribute_id) + "'");
  }

  Json ElementsOperand(const YAML::Node& node,
                       const std::optional<std::string>& qualified_attribute) const {
    const auto values = fields_.Sequence(node, "values", true);
    if (!qualified_attribute) {
      fields_.Problem(node, "elements need an attribute operand before them");
      return nullptr;
    }
    Json elements = Json::array();
    for (const auto& value : values.value_or(std::vector<YAML::Node>{})) {
      if (auto text = fields_.ScalarText(value, "an element value")) {
        elements.push_back({{"id", *qualified_attribute + ":" + *text}});
      }
    }
    return {{"type", "elements"}, {"elements", elements}};
  }

  Json ConstantOperand(const YAML::Node& node, const std::string& type) const {
    const std::string data_type = fields_.String(node, "dataType", true).value_or("");
    if (!data_type.empty() &&
        std::find(kDataTypes.begin(), kDataTypes.end(), data_type) == kDataTypes.end()) {
      fields_.Problem(node["dataType"], "'" + data_type +
                                            "' is not a constant data type; expected one of "
                                            "Real, BigDecimal, Int64, Date, Time, TimeStamp, Char");
    }
    Json out = {{"type", type}, {"dataType", data_type}};
    if (type == "constant") {
      out["value"] = fields_.String(node, "value", true).value_or("");
      return out;
    }
    Json values = Json::array();
    for (const auto& value :
         fields_.Sequence(node, "values", true).value_or(std::vector<YAML::Node>{})) {
      if (auto text = fields_.ScalarText(value, "a value")) values.push_back(*text);
    }
    out["values"] = values;
    return out;
  }

  const YamlFields& fields_;
  const BundleIndex& index_;
};

void EmitReference(YAML::Emitter& out, const Json& id, const BundleIndex& index) {
  out << YAML::Flow << YAML::BeginMap << YAML::Key << "name" << YAML::Value;
  EmitText(out, index.NameOf(id.get<std::string>()));
  out << YAML::EndMap;
}

std::string ElementValue(const std::string& element_id, const std::string& attribute_id) {
  const std::string prefix = attribute_id + ":";
  return element_id.starts_with(prefix) ? element_id.substr(prefix.size()) : element_id;
}

std::string Text(const Json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

void EmitConstantKeys(YAML::Emitter& out, const Json& leaf) {
  out << YAML::Key << "dataType" << YAML::Value << leaf.value("dataType", "");
  if (leaf.contains("value")) {
    out << YAML::Key << "value" << YAML::Value;
    EmitValueText(out, Text(leaf.at("value")));
  }
  if (leaf.contains("values")) {
    out << YAML::Key << "values" << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (const auto& value : leaf.at("values")) EmitValueText(out, Text(value));
    out << YAML::EndSeq;
  }
}

void EmitLeaf(YAML::Emitter& out, const Json& leaf, const std::string& attribute_id,
              const BundleIndex& index) {
  const std::string type = leaf.value("type", "");
  out << YAML::Flow << YAML::BeginMap << YAML::Key << "type" << YAML::Value << type;
  if (type == "attribute" || type == "metric") {
    out << YAML::Key << "name" << YAML::Value;
    EmitText(out, index.NameOf(leaf.at("id").get<std::string>()));
  } else if (type == "form") {
    out << YAML::Key << "attribute" << YAML::Value;
    EmitReference(out, leaf.at("attribute").at("id"), index);
    out << YAML::Key << "form" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "name"
        << YAML::Value;
    EmitText(out, leaf.at("form").at("name").get<std::string>());
    out << YAML::EndMap;
  } else if (type == "parameter") {
    out << YAML::Key << "key" << YAML::Value;
    EmitText(out, leaf.at("key").get<std::string>());
  } else if (type == "elements") {
    out << YAML::Key << "values" << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (const auto& element : leaf.at("elements")) {
      EmitValueText(out, ElementValue(element.at("id").get<std::string>(), attribute_id));
    }
    out << YAML::EndSeq;
  } else {
    EmitConstantKeys(out, leaf);
  }
  out << YAML::EndMap;
}

}  // namespace

Json QualificationFromYaml(const YAML::Node& node, const YamlFields& fields,
                           const BundleIndex& index) {
  return QualificationReader(fields, index).Condition(node);
}

void EmitQualification(YAML::Emitter& out, const Json& tree, const BundleIndex& index) {
  out << YAML::BeginMap << YAML::Key << "operator" << YAML::Value
      << tree.at("operator").get<std::string>() << YAML::Key << "operands" << YAML::Value
      << YAML::BeginSeq;
  std::string attribute_id;
  for (const auto& operand : tree.at("operands")) {
    if (operand.contains("operator")) {
      EmitQualification(out, operand, index);
      continue;
    }
    if (attribute_id.empty() && operand.value("type", "") == "attribute") {
      attribute_id = operand.at("id").get<std::string>();
    }
    EmitLeaf(out, operand, attribute_id, index);
  }
  out << YAML::EndSeq << YAML::EndMap;
}

}  // namespace tessera::model::bundle
