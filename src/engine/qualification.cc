#include "engine/qualification.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <utility>

#include "core/error.h"
#include "core/ids.h"

namespace tessera::engine {

namespace {

enum class Level { kRows, kGroups, kMixed };

using model::OperatorFamily;

// Checks a leaf and returns its level.
Level CheckLeaf(const model::SemanticModel& model, const model::QualificationOperator& entry,
                const Json& operands) {
  const std::string op(entry.name);
  if (entry.family == OperatorFamily::kRanked) {
    throw Error(ErrorCode::kNotSupported, op + " qualifications apply to computed grids only");
  }
  if (operands.empty()) ThrowInvalidInput("There should be operands for operator - " + op);
  const std::string first = OperandType(operands[0]);
  ExpectOperandCount(operands, entry.min_operands, op);
  if (first == "attribute") {
    std::string id = CanonicalObjectId(OperandId(operands[0])).value_or(OperandId(operands[0]));
    if (!model.has_attribute(id))
      ThrowInvalidInput("Invalid attribute id - " + OperandId(operands[0]));
    if (entry.family != OperatorFamily::kList || OperandType(operands[1]) != "elements") {
      UnsupportedCombination(operands, op);
    }
    return Level::kRows;
  }
  if (first == "form") {
    // Every family but the logical and the ranked ones applies to a form.
    const model::Attribute* attribute = nullptr;
    ResolveForm(model, operands[0], attribute);
    for (size_t i = 1; i < operands.size(); ++i) {
      std::string type = OperandType(operands[i]);
      bool is_list = entry.family == OperatorFamily::kList;
      if (type != (is_list ? "constants" : "constant")) UnsupportedCombination(operands, op);
    }
    return Level::kRows;
  }
  if (first == "metric") {
    std::string id = CanonicalObjectId(OperandId(operands[0])).value_or(OperandId(operands[0]));
    if (!model.has_metric(id)) ThrowInvalidInput("Invalid metric id - " + OperandId(operands[0]));
    const bool is_comparison = entry.family == OperatorFamily::kComparison;
    for (size_t i = 1; i < operands.size(); ++i) {
      std::string type = OperandType(operands[i]);
      if (type == "metric" && is_comparison && operands.size() == 2) {
        std::string other = CanonicalObjectId(OperandId(operands[i])).value_or("");
        if (!model.has_metric(other))
          ThrowInvalidInput("Invalid metric id - " + OperandId(operands[i]));
        continue;
      }
      if (type != "constant") UnsupportedCombination(operands, op);
    }
    if (!is_comparison && entry.family != OperatorFamily::kNullTest &&
        entry.family != OperatorFamily::kRange) {
      UnsupportedCombination(operands, op);
    }
    return Level::kGroups;
  }
  UnsupportedCombination(operands, op);
}

Level Check(const model::SemanticModel& model, const Json& node) {
  const model::QualificationOperator& op = QualificationOperatorOf(node);
  const Json& operands = OperandsOf(node, std::string(op.name));
  if (op.family != OperatorFamily::kLogical) return CheckLeaf(model, op, operands);
  ExpectConditionCount(operands, op);
  std::optional<Level> level;
  for (const auto& operand : operands) {
    Level child = Check(model, operand);
    level = !level || *level == child ? child : Level::kMixed;
  }
  return *level;
}

Json Combine(std::vector<Json> parts) {
  if (parts.empty()) return nullptr;
  if (parts.size() == 1) return parts.front();
  return {{"operator", "And"}, {"operands", std::move(parts)}};
}

std::optional<double> ParseNumber(std::string_view text) {
  double number = 0;
  const auto result = std::from_chars(text.data(), text.data() + text.size(), number);
  if (result.ec != std::errc() || result.ptr != text.data() + text.size()) return std::nullopt;
  if (!std::isfinite(number)) return std::nullopt;
  return number;
}

std::string ValueText(const Json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number()) return DumpJson(value);
  ThrowInvalidInput("Invalid constant value - " + DumpJson(value));
}

std::string ConstantText(const Json& operand) {
  const auto value = operand.find("value");
  if (value == operand.end())
    ThrowInvalidInput("Invalid constant value - a constant needs a value");
  return ValueText(*value);
}

double NumberOf(const std::string& text) {
  const std::optional<double> number = ParseNumber(text);
  if (!number) ThrowInvalidInput("Invalid constant value - " + text);
  return *number;
}

void ExpectNumericDataType(const Json& operand) {
  const std::string data_type = operand.value("dataType", "");
  if (data_type != "Real" && data_type != "BigDecimal" && data_type != "Int64") {
    ThrowInvalidInput("Invalid constant data type for metric qualification - " + data_type);
  }
}

void CollectMetrics(const Json& node, std::vector<std::string>& out) {
  if (!node.is_object()) return;
  if (node.value("type", "") == "metric") {
    std::string id = CanonicalObjectId(OperandId(node)).value_or(OperandId(node));
    if (std::find(out.begin(), out.end(), id) == out.end()) out.push_back(id);
  }
  auto operands = node.find("operands");
  if (operands == node.end() || !operands->is_array()) return;
  for (const auto& operand : *operands) CollectMetrics(operand, out);
}

}  // namespace

const Json& OperandsOf(const Json& node, const std::string& op) {
  auto it = node.find("operands");
  if (it == node.end() || !it->is_array()) {
    ThrowInvalidInput("There should be operands for operator - " + op);
  }
  return *it;
}

std::string OperandType(const Json& operand) {
  if (!operand.is_object()) return "unknown";
  if (operand.contains("operator")) return "expression";
  auto type = operand.find("type");
  if (type == operand.end()) return "unknown";
  if (!type->is_string()) {
    ThrowInvalidInput(
        "An operand's type must be a string such as \"attribute\", \"metric\", "
        "\"elements\" or \"constant\"; got " +
        std::string(type->type_name()));
  }
  return type->get<std::string>();
}

void ExpectOperandCount(const Json& operands, size_t count, const std::string& op) {
  if (operands.size() != count) {
    ThrowInvalidInput("There should be " + std::to_string(count) + " operands for operator - " +
                      op);
  }
}

[[noreturn]] void UnsupportedCombination(const Json& operands, const std::string& op) {
  std::string types = "[";
  for (size_t i = 0; i < operands.size(); ++i) {
    if (i > 0) types += ", ";
    types += OperandType(operands[i]);
  }
  ThrowInvalidInput("The operands type combination of " + types +
                    "] is not supported for operator - " + op);
}

std::string OperandId(const Json& operand) {
  auto it = operand.find("id");
  return it != operand.end() && it->is_string() ? it->get<std::string>() : "";
}

void CheckQualificationSize(const Json& tree, std::string_view what) {
  size_t operators = 0;
  std::vector<const Json*> pending{&tree};
  while (!pending.empty()) {
    const Json* node = pending.back();
    pending.pop_back();
    if (node->is_object()) {
      if (node->contains("operator") && ++operators > kMaxQualificationNodes) {
        throw Error(ErrorCode::kInvalidInput, std::string(what) + " holds more than " +
                                                  std::to_string(kMaxQualificationNodes) +
                                                  " conditions and operators; at most " +
                                                  std::to_string(kMaxQualificationNodes) +
                                                  " are accepted");
      }
      for (const auto& [key, value] : node->items()) {
        if (value.is_structured()) pending.push_back(&value);
      }
    } else if (node->is_array()) {
      for (const auto& value : *node) {
        if (value.is_structured()) pending.push_back(&value);
      }
    }
  }
}

const model::QualificationOperator& QualificationOperatorOf(const Json& node) {
  if (!node.is_object()) ThrowInvalidInput("A qualification must be an object with an operator");
  const auto name = node.find("operator");
  if (name == node.end() || !name->is_string())
    ThrowInvalidInput("A qualification needs an operator");
  const model::QualificationOperator* op = model::FindOperator(name->get<std::string>());
  if (op == nullptr) ThrowInvalidInput("Invalid operator - " + name->get<std::string>());
  return *op;
}

std::string OperatorOf(const Json& node) { return std::string(QualificationOperatorOf(node).name); }

void ExpectConditionCount(const Json& operands, const model::QualificationOperator& op) {
  if (op.min_operands == op.max_operands) {
    ExpectOperandCount(operands, op.min_operands, std::string(op.name));
  } else if (operands.size() < op.min_operands) {
    ThrowInvalidInput("There should be at least " + std::to_string(op.min_operands) +
                      " operands for operator - " + std::string(op.name));
  }
}

std::optional<CompareOp> ComparisonOperator(std::string_view name) {
  const model::QualificationOperator* op = model::FindOperatorByName(name);
  if (op == nullptr) return std::nullopt;
  switch (op->comparison) {
    case model::Comparison::kNone:
      return std::nullopt;
    case model::Comparison::kEquals:
      return CompareOp::kEquals;
    case model::Comparison::kNotEqual:
      return CompareOp::kNotEqual;
    case model::Comparison::kGreater:
      return CompareOp::kGreater;
    case model::Comparison::kLess:
      return CompareOp::kLess;
    case model::Comparison::kGreaterEqual:
      return CompareOp::kGreaterEqual;
    case model::Comparison::kLessEqual:
      return CompareOp::kLessEqual;
    case model::Comparison::kBetween:
      return CompareOp::kBetween;
    case model::Comparison::kNotBetween:
      return CompareOp::kNotBetween;
    case model::Comparison::kIn:
      return CompareOp::kIn;
    case model::Comparison::kNotIn:
      return CompareOp::kNotIn;
    case model::Comparison::kIsNull:
      return CompareOp::kIsNull;
    case model::Comparison::kIsNotNull:
      return CompareOp::kIsNotNull;
    case model::Comparison::kRankTop:
      return CompareOp::kRankTop;
    case model::Comparison::kRankBottom:
      return CompareOp::kRankBottom;
    case model::Comparison::kPercentTop:
      return CompareOp::kPercentTop;
    case model::Comparison::kPercentBottom:
      return CompareOp::kPercentBottom;
  }
  return std::nullopt;
}

bool IsRankOrPercent(CompareOp op) {
  return op == CompareOp::kRankTop || op == CompareOp::kRankBottom ||
         op == CompareOp::kPercentTop || op == CompareOp::kPercentBottom;
}

std::optional<std::string> CanonicalOperator(std::string_view name) {
  const model::QualificationOperator* op = model::FindOperator(name);
  if (op == nullptr) return std::nullopt;
  return std::string(op->name);
}

std::string FormId(std::string_view form_name) {
  if (form_name == "ID") return "45C11FA478E745FEA08D781CEA190FE5";
  if (form_name == "DESC") return "CCFBE2A5EADB4F50941FB879CCF1721C";
  return DeterministicObjectId("tessera:form:" + std::string(form_name));
}

const model::AttributeForm& ResolveForm(const model::SemanticModel& model, const Json& operand,
                                        const model::Attribute*& attribute) {
  const Json attribute_ref = operand.value("attribute", Json::object());
  std::string raw_id = OperandId(attribute_ref);
  std::string attribute_id = CanonicalObjectId(raw_id).value_or(raw_id);
  if (!model.has_attribute(attribute_id)) ThrowInvalidInput("Invalid attribute id - " + raw_id);
  attribute = &model.attribute(attribute_id);
  const Json form_ref = operand.value("form", Json::object());
  std::string name = form_ref.value("name", "");
  std::string form_id = CanonicalObjectId(OperandId(form_ref)).value_or("");
  for (const auto& form : attribute->forms) {
    if ((!form_id.empty() && FormId(form.name) == form_id) ||
        (form_id.empty() && form.name == name)) {
      return form;
    }
  }
  ThrowInvalidInput("Invalid attribute form id - " +
                    (form_id.empty() ? name : OperandId(form_ref)));
}

double ConstantNumber(const Json& operand) {
  if (OperandType(operand) != "constant")
    ThrowInvalidInput("Invalid constant value - " + DumpJson(operand));
  ExpectNumericDataType(operand);
  return NumberOf(ConstantText(operand));
}

std::vector<double> ConstantNumbers(const Json& operand) {
  if (OperandType(operand) != "constants")
    ThrowInvalidInput("Invalid constant value - " + DumpJson(operand));
  ExpectNumericDataType(operand);
  const auto values = operand.find("values");
  if (values == operand.end() || !values->is_array()) {
    ThrowInvalidInput("Invalid constant value - constants need an array of values");
  }
  std::vector<double> numbers;
  for (const auto& value : *values) numbers.push_back(NumberOf(ValueText(value)));
  return numbers;
}

double RankAmount(const Json& operand) {
  const double number = ConstantNumber(operand);
  if (number < 0 || number != std::floor(number)) {
    ThrowInvalidInput("Invalid constant value - a rank needs a whole number");
  }
  return number;
}

double PercentAmount(const Json& operand) {
  std::string text = OperandType(operand) == "constant" ? ConstantText(operand) : "";
  const bool with_sign = !text.empty() && text.back() == '%';
  if (with_sign) text.pop_back();
  const std::optional<double> number = ParseNumber(text);
  if (!number || *number < 0)
    ThrowInvalidInput("Invalid constant value - " + ConstantText(operand));
  return with_sign || *number > 1 ? *number : *number * 100;
}

std::vector<std::string> MetricsInQualification(const Json& tree) {
  std::vector<std::string> metrics;
  CollectMetrics(tree, metrics);
  return metrics;
}

SplitQualification SplitByLevel(const model::SemanticModel& model, const Json& tree) {
  SplitQualification split;
  if (tree.is_null()) return split;
  Level level = Check(model, tree);
  if (level != Level::kMixed) {
    (level == Level::kRows ? split.rows : split.groups) = tree;
    return split;
  }
  auto op = CanonicalOperator(tree.value("operator", ""));
  if (op != "And") {
    throw Error(ErrorCode::kNotSupported,
                "a filter cannot combine attribute and metric qualifications under " + *op +
                    "; combine them with And");
  }
  std::vector<Json> rows, groups;
  for (const auto& operand : tree["operands"]) {
    SplitQualification part = SplitByLevel(model, operand);
    if (!part.rows.is_null()) rows.push_back(part.rows);
    if (!part.groups.is_null()) groups.push_back(part.groups);
  }
  split.rows = Combine(std::move(rows));
  split.groups = Combine(std::move(groups));
  return split;
}

}  // namespace tessera::engine
