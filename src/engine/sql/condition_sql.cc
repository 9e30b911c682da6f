#include "engine/sql/condition_sql.h"

#include <cmath>
#include <cstdio>

#include "core/civil_time.h"
#include "core/error.h"
#include "core/ids.h"
#include "core/strings.h"
#include "engine/element_id.h"
#include "engine/qualification.h"

namespace tessera::engine::sql {

namespace {

using Render = std::string (*)(SelectBuilder&, const Json&);

std::string ConstantText(const Json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_integer()) return std::to_string(value.get<int64_t>());
  if (value.is_number()) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.17g", value.get<double>());
    return buffer;
  }
  throw Error(ErrorCode::kInvalidInput, "a constant's value must be a string or a number");
}

std::string CanonicalId(const Json& reference) {
  std::string raw = reference.value("id", "");
  return CanonicalObjectId(raw).value_or(raw);
}

std::string Combine(SelectBuilder& builder, const Json& node, Render render) {
  const std::string_view op = QualificationOperatorOf(node).name;
  const Json& operands = node["operands"];
  if (op == "Not") return "NOT (" + render(builder, operands[0]) + ")";
  std::vector<std::string> parts;
  for (const auto& operand : operands) parts.push_back("(" + render(builder, operand) + ")");
  return JoinStrings(parts, op == "And" ? " AND " : " OR ");
}

bool IsCombinator(const Json& node) {
  return QualificationOperatorOf(node).family == model::OperatorFamily::kLogical;
}

// The operator's SQL between spaces: " <> ", " NOT BETWEEN ".
std::string Sql(const model::QualificationOperator& op) { return " " + std::string(op.sql) + " "; }

std::string EscapeLike(const std::string& text) {
  std::string out;
  for (char c : ToLower(text)) {
    if (c == '%' || c == '_' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

std::string ElementList(SelectBuilder& builder, const Json& operands, bool negate) {
  const model::SemanticModel& model = builder.model();
  const model::Attribute& attribute = model.attribute(CanonicalId(operands[0]));
  const model::Table& lookup = model.table(attribute.lookup_table_id);
  model::DataType key_type = lookup.FindColumn(attribute.id_form().column)->type;
  std::vector<std::string> placeholders;
  for (const auto& element : operands[1].value("elements", Json::array())) {
    std::string text = element.value("id", "");
    ElementId id = ParseElementId(
        text, [&](const std::string& candidate) { return model.has_attribute(candidate); });
    if (id.attribute_id != attribute.id) {
      throw Error(ErrorCode::kInvalidInput, "Invalid element id - " + text);
    }
    if (auto value = ValueOfType(id.key, key_type))
      placeholders.push_back(builder.Parameter(*value));
  }
  if (placeholders.empty()) return negate ? "1 = 1" : "1 = 0";
  return builder.AttributeKey(attribute) + (negate ? " NOT IN (" : " IN (") +
         JoinStrings(placeholders, ", ") + ")";
}

std::string FormQualification(SelectBuilder& builder, const model::QualificationOperator& op,
                              const Json& operands) {
  const model::Attribute* attribute = nullptr;
  const model::AttributeForm& form = ResolveForm(builder.model(), operands[0], attribute);
  const model::Table& lookup = builder.model().table(attribute->lookup_table_id);
  model::DataType type = lookup.FindColumn(form.column)->type;
  std::string column = builder.FormColumn(*attribute, form);

  auto typed = [&](const Json& constant) {
    std::string text = ConstantText(constant);
    auto value = ValueOfType(text, type);
    if (!value) {
      throw Error(ErrorCode::kInvalidInput,
                  "'" + text + "' is not a valid " + std::string(model::DataTypeName(type)) +
                      " value for form " + form.name + " of attribute " + attribute->name);
    }
    return builder.Parameter(*value);
  };
  auto pattern = [&](const std::string& prefix, const std::string& suffix) {
    std::string text = ConstantText(operands[1].value("value", Json("")));
    return "LOWER(CAST(" + column + " AS TEXT)) LIKE " +
           builder.Parameter(prefix + EscapeLike(text) + suffix) + " ESCAPE '\\'";
  };

  switch (op.family) {
    case model::OperatorFamily::kNullTest:
      return column + " " + std::string(op.sql);
    case model::OperatorFamily::kList: {
      std::vector<std::string> placeholders;
      for (const auto& value : operands[1].value("values", Json::array())) {
        placeholders.push_back(typed(value));
      }
      const bool is_in = op.comparison == model::Comparison::kIn;
      if (placeholders.empty()) return is_in ? "1 = 0" : "1 = 1";
      return column + Sql(op) + "(" + JoinStrings(placeholders, ", ") + ")";
    }
    case model::OperatorFamily::kRange: {
      std::string low = typed(operands[1].value("value", Json()));
      std::string high = typed(operands[2].value("value", Json()));
      return column + Sql(op) + low + " AND " + high;
    }
    case model::OperatorFamily::kTextPattern:
      break;
    default:
      return column + Sql(op) + typed(operands[1].value("value", Json()));
  }
  const std::string_view name = op.name;
  if (name == "Like" || name == "NotLike") {
    std::string text = ToLower(ConstantText(operands[1].value("value", Json(""))));
    return std::string(name == "NotLike" ? "NOT " : "") + "LOWER(CAST(" + column +
           " AS TEXT)) LIKE " + builder.Parameter(text);
  }
  if (name == "Contains") return pattern("%", "%");
  if (name == "NotContains") return "NOT (" + pattern("%", "%") + ")";
  if (name == "BeginsWith") return pattern("", "%");
  if (name == "NotBeginsWith") return "NOT (" + pattern("", "%") + ")";
  if (name == "EndsWith") return pattern("%", "");
  return "NOT (" + pattern("%", "") + ")";  // NotEndsWith
}

std::string MetricValue(SelectBuilder& builder, const Json& constant) {
  std::string text = ConstantText(constant.value("value", Json()));
  auto value = ValueOfType(text, model::DataType::kReal);
  if (!value) throw Error(ErrorCode::kInvalidInput, "'" + text + "' is not a number");
  return builder.Parameter(*value);
}

std::string MetricQualification(SelectBuilder& builder, const model::QualificationOperator& op,
                                const Json& operands) {
  std::string aggregate = "(" + builder.Aggregate(CanonicalId(operands[0])) + ")";
  if (op.family == model::OperatorFamily::kNullTest) return aggregate + " " + std::string(op.sql);
  if (op.family == model::OperatorFamily::kRange) {
    std::string low = MetricValue(builder, operands[1]);
    std::string high = MetricValue(builder, operands[2]);
    return aggregate + Sql(op) + low + " AND " + high;
  }
  if (operands[1].value("type", "") == "metric") {
    return aggregate + Sql(op) + "(" + builder.Aggregate(CanonicalId(operands[1])) + ")";
  }
  return aggregate + Sql(op) + MetricValue(builder, operands[1]);
}

std::string RowNode(SelectBuilder& builder, const Json& node) {
  if (IsCombinator(node)) return Combine(builder, node, RowNode);
  const model::QualificationOperator& op = QualificationOperatorOf(node);
  const Json& operands = node["operands"];
  if (operands[0].value("type", "") == "attribute") {
    return ElementList(builder, operands, op.comparison == model::Comparison::kNotIn);
  }
  return FormQualification(builder, op, operands);
}

std::string GroupNode(SelectBuilder& builder, const Json& node) {
  if (IsCombinator(node)) return Combine(builder, node, GroupNode);
  return MetricQualification(builder, QualificationOperatorOf(node), node["operands"]);
}

}  // namespace

std::optional<warehouse::SqlValue> ValueOfType(const std::string& text, model::DataType type) {
  switch (type) {
    case model::DataType::kInteger:
    case model::DataType::kBoolean: {
      if (auto integer = ParseInt(text)) return warehouse::SqlValue(*integer);
      char* end = nullptr;
      double real = std::strtod(text.c_str(), &end);
      if (!text.empty() && *end == '\0' && std::nearbyint(real) == real && std::fabs(real) < 9e18) {
        return warehouse::SqlValue(static_cast<int64_t>(real));
      }
      if (type == model::DataType::kBoolean) {
        if (auto flag = ParseBool(text)) return warehouse::SqlValue(int64_t{*flag ? 1 : 0});
      }
      return std::nullopt;
    }
    case model::DataType::kReal: {
      char* end = nullptr;
      double real = std::strtod(text.c_str(), &end);
      if (text.empty() || *end != '\0' || !std::isfinite(real)) return std::nullopt;
      return warehouse::SqlValue(real);
    }
    case model::DataType::kDate: {
      auto date = NormalizeDate(text);
      if (!date) return std::nullopt;
      return warehouse::SqlValue(*date);
    }
    case model::DataType::kDateTime:
    case model::DataType::kText:
      return warehouse::SqlValue(text);
  }
  return std::nullopt;
}

std::string RowCondition(SelectBuilder& builder, const Json& tree) {
  return RowNode(builder, tree);
}

std::string GroupCondition(SelectBuilder& builder, const Json& tree) {
  return GroupNode(builder, tree);
}

}  // namespace tessera::engine::sql
