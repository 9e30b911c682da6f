#include "engine/view_filter.h"

#include <array>
#include <charconv>
#include <cstdio>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/ids.h"
#include "engine/element_id.h"
#include "engine/qualification.h"

namespace tessera::engine {
namespace {

[[noreturn]] void NotSupported(const std::string& message) {
  throw Error(ErrorCode::kNotSupported, message);
}

bool OneOf(std::string_view value, std::initializer_list<std::string_view> names) {
  for (std::string_view name : names) {
    if (value == name) return true;
  }
  return false;
}

bool IsComparisonOperator(const std::string& op) {
  return OneOf(op, {"Equals", "NotEqual", "Greater", "Less", "GreaterEqual", "LessEqual"});
}

bool IsRange(const std::string& op) { return op == "Between" || op == "NotBetween"; }
bool IsList(const std::string& op) { return op == "In" || op == "NotIn"; }
bool IsNullTest(const std::string& op) { return op == "IsNull" || op == "IsNotNull"; }

// The comparison of a value qualification (an attribute form's or a metric's value).
CompareOp CompareOpOf(const std::string& op) {
  const std::optional<CompareOp> compare = ComparisonOperator(op);
  if (!compare || IsRankOrPercent(*compare)) ThrowInvalidInput("Invalid operator - " + op);
  return *compare;
}

// --- Operands --------------------------------------------------------------------------------

int AttributeIndexOf(const Dataset& dataset, const Json& reference) {
  const std::string raw = OperandId(reference);
  const std::optional<std::string> id = CanonicalObjectId(raw);
  if (!id) ThrowInvalidInput("Invalid attribute id - " + raw);
  const int index = dataset.AttributeIndex(*id);
  if (index < 0 || dataset.attribute(index).hidden) {
    ThrowInvalidInput("Failed to find the attribute " + raw + " in the report or cube.");
  }
  return index;
}

int MetricIndexOf(const Dataset& dataset, const Json& reference) {
  const std::string raw = OperandId(reference);
  const std::optional<std::string> id = CanonicalObjectId(raw);
  if (!id) ThrowInvalidInput("Invalid metric id - " + raw);
  const int index = dataset.MetricIndex(*id);
  if (index < 0) ThrowInvalidInput("Failed to find the metric " + raw + " in the report or cube.");
  return index;
}

struct FormRef {
  int attribute = -1;
  int form = -1;
};

FormRef FormOf(const Dataset& dataset, const Json& operand) {
  FormRef ref;
  const auto attribute = operand.find("attribute");
  if (attribute == operand.end() || !attribute->is_object())
    ThrowInvalidInput("Invalid attribute id - ");
  ref.attribute = AttributeIndexOf(dataset, *attribute);
  const Json form = operand.value("form", Json::object());
  const std::string raw_id = form.is_object() ? OperandId(form) : "";
  const std::optional<std::string> form_id = CanonicalObjectId(raw_id);
  const std::string name =
      form.is_object() && form.contains("name") && form["name"].is_string() ? form["name"] : "";
  const auto& forms = dataset.attribute(ref.attribute).dictionary.forms();
  for (size_t f = 0; f < forms.size(); ++f) {
    const bool by_id =
        form_id && (FormId(forms[f].name) == *form_id || (f == 0 && FormId("ID") == *form_id));
    const bool by_name = raw_id.empty() && !name.empty() && forms[f].name == name;
    if (by_id || by_name) {
      ref.form = static_cast<int>(f);
      return ref;
    }
  }
  ThrowInvalidInput("Invalid attribute form id - " + (raw_id.empty() ? name : raw_id));
}

struct Constants {
  std::string data_type;
  std::vector<std::string> values;
};

std::string ConstantValueText(const Json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_integer()) return std::to_string(value.get<int64_t>());
  if (value.is_number()) {
    std::array<char, 32> buffer;
    const auto result =
        std::to_chars(buffer.data(), buffer.data() + buffer.size(), value.get<double>());
    return std::string(buffer.data(), result.ptr);
  }
  ThrowInvalidInput("Invalid constant value - " + DumpJson(value));
}

Constants ConstantsOf(const Json& operand) {
  Constants constants;
  const auto data_type = operand.find("dataType");
  constants.data_type = data_type != operand.end() && data_type->is_string() ? *data_type : "";
  if (operand.value("type", "") == "constant") {
    const auto value = operand.find("value");
    if (value == operand.end())
      ThrowInvalidInput("Invalid constant value - a constant needs a value");
    constants.values.push_back(ConstantValueText(*value));
    return constants;
  }
  const auto values = operand.find("values");
  if (values == operand.end() || !values->is_array()) {
    ThrowInvalidInput("Invalid constant value - constants need a values list");
  }
  for (const auto& value : *values) constants.values.push_back(ConstantValueText(value));
  return constants;
}

std::optional<double> ParseNumberText(std::string_view text) {
  double number = 0;
  const auto result = std::from_chars(text.data(), text.data() + text.size(), number);
  if (result.ec != std::errc() || result.ptr != text.data() + text.size()) return std::nullopt;
  return number;
}

// yyyy-MM-dd from yyyy-MM-dd or M/d/yyyy; nullopt for anything else.
std::optional<std::string> IsoDate(std::string_view text) {
  int year = 0, month = 0, day = 0;
  char a = 0, b = 0;
  const std::string copy(text);
  if (std::sscanf(copy.c_str(), "%4d-%2d-%2d%c", &year, &month, &day, &a) == 3) {
    // already ISO
  } else if (std::sscanf(copy.c_str(), "%2d/%2d/%4d%c", &month, &day, &year, &b) != 3) {
    return std::nullopt;
  }
  if (month < 1 || month > 12 || day < 1 || day > 31 || year < 1) return std::nullopt;
  // Room for any three ints, not only a date's: GCC at -O3 refuses a buffer they might overflow.
  std::array<char, 40> buffer;
  std::snprintf(buffer.data(), buffer.size(), "%04d-%02d-%02d", year, month, day);
  return std::string(buffer.data());
}

// The cells a form qualification compares with, read as the form's type.
std::vector<Cell> FormCells(const FormValues& form, const Constants& constants) {
  if (!OneOf(constants.data_type, {"Real", "BigDecimal", "Date", "Time", "TimeStamp", "Char"})) {
    ThrowInvalidInput("Invalid constant data type for attribute form qualification - " +
                      constants.data_type);
  }
  const bool numeric =
      form.type == model::DataType::kInteger || form.type == model::DataType::kReal;
  std::vector<Cell> cells;
  for (const std::string& value : constants.values) {
    if (numeric) {
      const std::optional<double> number = ParseNumberText(value);
      if (!number) ThrowInvalidInput("Invalid constant value - " + value);
      cells.emplace_back(*number);
    } else if (constants.data_type == "Date") {
      const std::optional<std::string> date = IsoDate(value);
      if (!date) ThrowInvalidInput("Invalid constant value - " + value);
      cells.emplace_back(*date);
    } else {
      cells.emplace_back(value);
    }
  }
  return cells;
}

// --- Leaves ----------------------------------------------------------------------------------

// The code of the element whose ID form reads `key`, or -1.
int64_t CodeOfKey(const Dictionary& dictionary, const std::string& key) {
  const model::DataType type = dictionary.forms().front().type;
  if (type == model::DataType::kInteger) {
    int64_t number = 0;
    const auto result = std::from_chars(key.data(), key.data() + key.size(), number);
    if (result.ec != std::errc() || result.ptr != key.data() + key.size()) return -1;
    return dictionary.CodeOfId(Cell(number));
  }
  if (type == model::DataType::kReal) {
    const std::optional<double> number = ParseNumberText(key);
    return number ? dictionary.CodeOfId(Cell(*number)) : -1;
  }
  return dictionary.CodeOfId(Cell(key));
}

RowFilter ElementList(const Dataset& dataset, const std::string& op, const Json& operands) {
  if (!IsList(op) || OperandType(operands[1]) != "elements") UnsupportedCombination(operands, op);
  const int index = AttributeIndexOf(dataset, operands[0]);
  const AttributeColumn& attribute = dataset.attribute(index);
  const auto elements = operands[1].find("elements");
  if (elements == operands[1].end() || !elements->is_array()) {
    ThrowInvalidInput("Invalid element id - the elements operand needs an elements list");
  }
  auto is_known = [&](const std::string& id) {
    const int known = dataset.AttributeIndex(id);
    return known >= 0 && !dataset.attribute(known).hidden;
  };
  std::vector<uint8_t> keep(attribute.dictionary.size(), op == "NotIn" ? 1 : 0);
  for (const auto& element : *elements) {
    const std::string text = element.is_object() ? OperandId(element) : "";
    if (text.empty()) ThrowInvalidInput("Invalid element id - " + DumpJson(element));
    const ElementId id = ParseElementId(text, is_known);
    if (id.attribute_id != attribute.id) ThrowInvalidInput("Invalid element id - " + text);
    const int64_t code = CodeOfKey(attribute.dictionary, id.key);
    if (code >= 0) keep[static_cast<size_t>(code)] = op == "NotIn" ? 0 : 1;
  }
  return RowFilter::Codes(index, std::move(keep));
}

RowFilter TextPattern(const Dataset& dataset, const FormRef& ref, const std::string& op,
                      const Json& operands) {
  const Dictionary& dictionary = dataset.attribute(ref.attribute).dictionary;
  const Constants constants = ConstantsOf(operands[1]);
  if (dictionary.forms()[ref.form].type != model::DataType::kText ||
      constants.data_type != "Char" || constants.values.size() != 1) {
    UnsupportedCombination(operands, op);
  }
  const bool negate = op.rfind("Not", 0) == 0;
  const std::string base = negate ? op.substr(3) : op;
  const TextOp text_op = base == "Like"         ? TextOp::kLike
                         : base == "Contains"   ? TextOp::kContains
                         : base == "BeginsWith" ? TextOp::kBeginsWith
                                                : TextOp::kEndsWith;
  return RowFilter::Codes(ref.attribute,
                          MaskOfText(dictionary, ref.form, text_op, constants.values[0], negate));
}

RowFilter FormQualification(const Dataset& dataset, const std::string& op, const Json& operands) {
  const FormRef ref = FormOf(dataset, operands[0]);
  const Dictionary& dictionary = dataset.attribute(ref.attribute).dictionary;
  if (IsNullTest(op)) {
    return RowFilter::Codes(ref.attribute, MaskOfForm(dictionary, ref.form, CompareOpOf(op), {}));
  }
  const bool text = OneOf(op, {"Like", "NotLike", "Contains", "NotContains", "BeginsWith",
                               "NotBeginsWith", "EndsWith", "NotEndsWith"});
  const std::string expected = IsList(op) ? "constants" : "constant";
  for (size_t i = 1; i < operands.size(); ++i) {
    if (OperandType(operands[i]) != expected) UnsupportedCombination(operands, op);
  }
  if (text) return TextPattern(dataset, ref, op, operands);
  if (!IsComparisonOperator(op) && !IsRange(op) && !IsList(op))
    UnsupportedCombination(operands, op);
  std::vector<Cell> cells;
  for (size_t i = 1; i < operands.size(); ++i) {
    for (Cell& cell : FormCells(dictionary.forms()[ref.form], ConstantsOf(operands[i]))) {
      cells.push_back(std::move(cell));
    }
  }
  if (cells.empty()) ThrowInvalidInput("Invalid constant value - an empty list of constants");
  return RowFilter::Codes(ref.attribute, MaskOfForm(dictionary, ref.form, CompareOpOf(op), cells));
}

RowFilter MetricQualification(const Dataset& dataset, const std::string& op, const Json& operands) {
  const int index = MetricIndexOf(dataset, operands[0]);
  const MetricColumn& metric = dataset.metric(index);
  if (metric.function == model::AggregateFunction::kCountDistinct) {
    NotSupported("a count-distinct metric has no value per row to qualify on");
  }
  if (IsNullTest(op)) return RowFilter::Metric(index, CompareOpOf(op), {});
  if (!IsComparisonOperator(op) && !IsRange(op)) UnsupportedCombination(operands, op);
  std::vector<double> numbers;
  for (size_t i = 1; i < operands.size(); ++i) {
    const std::string type = OperandType(operands[i]);
    if (type == "metric" && IsComparisonOperator(op)) {
      NotSupported("comparing a metric with another metric in a view filter");
    }
    if (type != "constant") UnsupportedCombination(operands, op);
    const Constants constants = ConstantsOf(operands[i]);
    if (constants.data_type == "Date") {
      NotSupported("Date constants in metric qualifications");
    }
    if (!OneOf(constants.data_type, {"Real", "BigDecimal", "Int64"})) {
      ThrowInvalidInput("Invalid constant data type for metric qualification - " +
                        constants.data_type);
    }
    const std::optional<double> number = ParseNumberText(constants.values.front());
    if (!number) ThrowInvalidInput("Invalid constant value - " + constants.values.front());
    numbers.push_back(*number);
  }
  return RowFilter::Metric(index, CompareOpOf(op), std::move(numbers));
}

RowFilter Leaf(const Dataset& dataset, const std::string& op, const Json& operands) {
  if (op.rfind("Rank.", 0) == 0 || op.rfind("Percent.", 0) == 0) {
    NotSupported(op + " applies to computed grids: use metricLimits");
  }
  if (operands.empty()) ThrowInvalidInput("There should be operands for operator - " + op);
  const size_t expected = IsNullTest(op) ? 1 : IsRange(op) ? 3 : 2;
  ExpectOperandCount(operands, expected, op);
  const std::string type = OperandType(operands[0]);
  if (type == "attribute") return ElementList(dataset, op, operands);
  if (type == "form") return FormQualification(dataset, op, operands);
  if (type == "metric") return MetricQualification(dataset, op, operands);
  if (!OneOf(type, {"elements", "constant", "constants", "expression"})) {
    ThrowInvalidInput(
        "Unknown operand type '" + type +
        "'; the known types are attribute, form, metric, elements, constant and constants");
  }
  UnsupportedCombination(operands, op);
}

RowFilter CompileFilter(const Dataset& dataset, const Json& node) {
  const std::optional<std::string> op = OperatorOf(node);
  const Json& operands = OperandsOf(node, *op);
  if (*op == "Not") {
    ExpectOperandCount(operands, 1, *op);
    return RowFilter::Combine(RowFilter::Kind::kNot, {CompileFilter(dataset, operands[0])});
  }
  if (*op == "And" || *op == "Or") {
    if (operands.size() < 2)
      ThrowInvalidInput("There should be at least 2 operands for operator - " + *op);
    std::vector<RowFilter> children;
    for (const auto& operand : operands) children.push_back(CompileFilter(dataset, operand));
    return RowFilter::Combine(*op == "And" ? RowFilter::Kind::kAnd : RowFilter::Kind::kOr,
                              std::move(children));
  }
  return Leaf(dataset, *op, operands);
}

}  // namespace

RowFilter CompileViewFilter(const Dataset& dataset, const Json& tree) {
  if (tree.is_null()) return RowFilter::All();
  CheckQualificationSize(tree, "The view filter");
  return CompileFilter(dataset, tree);
}

}  // namespace tessera::engine
