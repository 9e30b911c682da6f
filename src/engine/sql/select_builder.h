// engine/sql/select_builder.h
//
// One SELECT under construction over a fact table: the lookup tables joined so far (each table
// once, reached from the fact table through the attributes' parent links), the SQL of columns,
// fact expressions and aggregates, and the bound parameters in placeholder order. Identifiers
// come from the model only and are quoted; numbers in expressions come from parsed definitions.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine/warehouse/warehouse.h"
#include "model/semantic_model.h"

namespace tessera::engine::sql {

class SelectBuilder {
 public:
  SelectBuilder(const model::SemanticModel& model, warehouse::Dialect dialect,
                std::string fact_table_id);

  const model::SemanticModel& model() const { return model_; }
  warehouse::Dialect dialect() const { return dialect_; }
  const model::Table& fact_table() const { return model_.table(fact_table_id_); }

  // The alias of the attribute's lookup table, joined with its chain on first use. Throws
  // Error(kInvalidInput) when the fact table cannot reach the attribute.
  std::string JoinAttribute(const model::Attribute& attribute);
  // The attribute's ID column, from the fact table itself when it holds it (no join).
  std::string AttributeKey(const model::Attribute& attribute);
  std::string FormColumn(const model::Attribute& attribute, const model::AttributeForm& form);

  std::string Parameter(warehouse::SqlValue value);     // returns the placeholder
  std::string Aggregate(const std::string& metric_id);  // compound metrics expanded
  // The fact of simple metric `metric_id` aggregated with `function` instead of its own (the sum
  // and the count behind an avg, for cubes). Throws Error(kInvalidInput) for a compound or
  // count_distinct metric, which have no fact.
  std::string AggregateFact(const std::string& metric_id, model::AggregateFunction function);
  std::string RealType() const;

  std::string FromClause() const;
  std::vector<warehouse::SqlValue> TakeParameters() { return std::move(parameters_); }

 private:
  std::string FactExpression(const model::ArithmeticNode& node);
  std::string CompoundExpression(const model::ArithmeticNode& node);
  std::string Binary(const model::ArithmeticNode& node, std::string left, std::string right);
  std::vector<const model::Attribute*> ChainFromFactTable(const model::Attribute& attribute);

  const model::SemanticModel& model_;
  warehouse::Dialect dialect_;
  std::string fact_table_id_;
  std::map<std::string, std::string> aliases_;  // table id -> alias
  std::vector<std::string> joins_;
  std::vector<warehouse::SqlValue> parameters_;
};

}  // namespace tessera::engine::sql
