#include "engine/sql/select_builder.h"

#include <cmath>
#include <cstdio>

#include "core/error.h"
#include "engine/warehouse/ddl.h"

namespace tessera::engine::sql {

namespace {

using model::ArithmeticNode;
using Kind = ArithmeticNode::Kind;

std::string NumberLiteral(double value) {
  char buffer[64];
  if (std::nearbyint(value) == value && std::fabs(value) < 1e15) {
    std::snprintf(buffer, sizeof buffer, "%lld", static_cast<long long>(value));
  } else {
    std::snprintf(buffer, sizeof buffer, "%.17g", value);
  }
  return buffer;
}

}  // namespace

SelectBuilder::SelectBuilder(const model::SemanticModel& model, warehouse::Dialect dialect,
                             std::string fact_table_id)
    : model_(model), dialect_(dialect), fact_table_id_(std::move(fact_table_id)) {
  aliases_[fact_table_id_] = "f";
}

std::string SelectBuilder::JoinAttribute(const model::Attribute& attribute) {
  std::string child_alias = "f";
  for (const model::Attribute* step : ChainFromFactTable(attribute)) {
    const std::string key = warehouse::QuotedIdentifier(step->id_form().column);
    const model::Table& lookup = model_.table(step->lookup_table_id);
    auto [it, is_new] = aliases_.emplace(lookup.id, "t" + std::to_string(aliases_.size()));
    if (is_new) {
      // SQLite's planner may put small lookup tables in the outer loops of a many-way join;
      // CROSS JOIN fixes the order: the fact table first, then each table as reached.
      const char* join = dialect_ == warehouse::Dialect::kSqlite ? "CROSS JOIN " : "JOIN ";
      joins_.push_back(join + warehouse::QuotedIdentifier(lookup.physical_name) + " " + it->second +
                       " ON " + child_alias + "." + key + " = " + it->second + "." + key);
    }
    child_alias = it->second;
  }
  return child_alias;
}

std::string SelectBuilder::AttributeKey(const model::Attribute& attribute) {
  const std::string& column = attribute.id_form().column;
  if (fact_table().FindColumn(column)) return "f." + warehouse::QuotedIdentifier(column);
  return JoinAttribute(attribute) + "." + warehouse::QuotedIdentifier(column);
}

std::string SelectBuilder::FormColumn(const model::Attribute& attribute,
                                      const model::AttributeForm& form) {
  return JoinAttribute(attribute) + "." + warehouse::QuotedIdentifier(form.column);
}

std::string SelectBuilder::Parameter(warehouse::SqlValue value) {
  parameters_.push_back(std::move(value));
  return "?";
}

std::string SelectBuilder::RealType() const {
  return dialect_ == warehouse::Dialect::kPostgres ? "DOUBLE PRECISION" : "REAL";
}

std::string SelectBuilder::FromClause() const {
  std::string sql = "FROM " + warehouse::QuotedIdentifier(fact_table().physical_name) + " f";
  for (const auto& join : joins_) sql += " " + join;
  return sql;
}

std::string SelectBuilder::Binary(const ArithmeticNode& node, std::string left, std::string right) {
  switch (node.kind) {
    case Kind::kAdd:
      return "(" + left + " + " + right + ")";
    case Kind::kSubtract:
      return "(" + left + " - " + right + ")";
    case Kind::kMultiply:
      return "(" + left + " * " + right + ")";
    case Kind::kDivide:  // real division; a zero divisor gives null rather than an error
      return "(CAST(" + left + " AS " + RealType() + ") / NULLIF(" + right + ", 0))";
    default:
      break;
  }
  throw Error(ErrorCode::kInternal, "unhandled arithmetic node");
}

std::string SelectBuilder::FactExpression(const ArithmeticNode& node) {
  switch (node.kind) {
    case Kind::kNumber:
      return NumberLiteral(node.number);
    case Kind::kReference:
      return "f." + warehouse::QuotedIdentifier(node.reference);
    case Kind::kNegate:
      return "(-" + FactExpression(*node.operands[0]) + ")";
    default:
      return Binary(node, FactExpression(*node.operands[0]), FactExpression(*node.operands[1]));
  }
}

std::string SelectBuilder::CompoundExpression(const ArithmeticNode& node) {
  switch (node.kind) {
    case Kind::kNumber:
      return NumberLiteral(node.number);
    case Kind::kReference:
      return Aggregate(node.reference);
    case Kind::kNegate:
      return "(-" + CompoundExpression(*node.operands[0]) + ")";
    default:
      return Binary(node, CompoundExpression(*node.operands[0]),
                    CompoundExpression(*node.operands[1]));
  }
}

std::string SelectBuilder::Aggregate(const std::string& metric_id) {
  const model::Metric& metric = model_.metric(metric_id);
  if (metric.is_compound) return CompoundExpression(*metric.expression.root);
  if (metric.function == model::AggregateFunction::kCountDistinct) {
    return "COUNT(DISTINCT " + AttributeKey(model_.attribute(metric.attribute_id)) + ")";
  }
  return AggregateFact(metric_id, metric.function);
}

std::string SelectBuilder::AggregateFact(const std::string& metric_id,
                                         model::AggregateFunction function) {
  const model::Metric& metric = model_.metric(metric_id);
  if (metric.is_compound || metric.function == model::AggregateFunction::kCountDistinct) {
    throw Error(ErrorCode::kInvalidInput, "metric '" + metric.name + "' aggregates no fact");
  }
  std::string argument = FactExpression(*model_.fact(metric.fact_id).expression.root);
  switch (function) {
    case model::AggregateFunction::kSum:
      return "SUM(" + argument + ")";
    case model::AggregateFunction::kAvg:
      return "AVG(" + argument + ")";
    case model::AggregateFunction::kMin:
      return "MIN(" + argument + ")";
    case model::AggregateFunction::kMax:
      return "MAX(" + argument + ")";
    case model::AggregateFunction::kCount:
      return "COUNT(" + argument + ")";
    case model::AggregateFunction::kCountDistinct:
      break;
  }
  throw Error(ErrorCode::kInternal, "unhandled aggregate");
}

std::vector<const model::Attribute*> SelectBuilder::ChainFromFactTable(
    const model::Attribute& attribute) {
  std::vector<const model::Attribute*> best;
  for (const auto& [id, candidate] : model_.attributes()) {
    if (!fact_table().FindColumn(candidate.id_form().column)) continue;
    std::vector<const model::Attribute*> chain{&candidate};
    bool reaches = candidate.id == attribute.id;
    for (const model::Attribute* ancestor : model_.Ancestors(candidate)) {
      if (reaches) break;
      chain.push_back(ancestor);
      reaches = ancestor->id == attribute.id;
    }
    if (reaches && (best.empty() || chain.size() < best.size())) best = std::move(chain);
  }
  if (best.empty()) {
    throw Error(ErrorCode::kInvalidInput, "attribute '" + attribute.name +
                                              "' cannot be reached from fact table '" +
                                              fact_table().name + "'");
  }
  return best;
}

}  // namespace tessera::engine::sql
