// engine/qualification.h
//
// Qualification trees: the grammar shared by report filters, view filters, metric limits and
// dashboard selectors. A node is {"operator": O, "operands": [...]}, O one of the operators of
// model/qualification_operators.h (by name or symbol); a leaf's operands are objects with a
// `type` (attribute, form, metric, elements, constant, constants). This file checks a tree's
// shape against a semantic model and says at which level each part applies: attribute and form
// qualifications filter rows before aggregation, metric qualifications filter groups after it.
//
// Errors are Error(kInvalidInput) with the reference server's messages: "Invalid operator - X",
// "There should be N operands for operator - X", "Invalid attribute id - X",
// "Invalid metric id - X", "Invalid attribute form id - X", "The operands type combination of
// [a, b] is not supported for operator - X". A null tree qualifies nothing.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "engine/cube_query.h"
#include "model/qualification_operators.h"
#include "model/semantic_model.h"

namespace tessera::engine {

// The canonical operator name for a name or symbol alias ("=" -> "Equals", "&" -> "And"), or
// nullopt for an unknown operator.
std::optional<std::string> CanonicalOperator(std::string_view name);

// The comparison a canonical operator name stands for on a metric's values ("Greater" ->
// kGreater, "In" -> kIn, "Rank.Top" -> kRankTop), or nullopt for a name that is not a comparison
// (And, Or, Not, Like...). Metric limits, metric qualifications and view filters
// all read it.
std::optional<CompareOp> ComparisonOperator(std::string_view name);

// Rank.Top, Rank.Bottom, Percent.Top, Percent.Bottom: metric limits' comparisons of a group's
// position rather than its value.
bool IsRankOrPercent(CompareOp op);

// A qualification tree holds at most this many operator nodes (conditions, And, Or, Not), so a
// request cannot buy unbounded work to compile and to evaluate on every row.
inline constexpr size_t kMaxQualificationNodes = 1000;

// Error(kInvalidInput) naming `what` and the limit when `tree` holds more operator nodes than
// kMaxQualificationNodes. Walks the tree without recursion.
void CheckQualificationSize(const Json& tree, std::string_view what);

// The operator of a qualification node; Error(kInvalidInput) when the node is not an object with
// a known operator. OperatorOf: its canonical name.
const model::QualificationOperator& QualificationOperatorOf(const Json& node);
std::string OperatorOf(const Json& node);

// Error(kInvalidInput) unless `operands` are as many as `op` takes: "There should be 1 operands
// for operator - Not", "There should be at least 2 operands for operator - And".
void ExpectConditionCount(const Json& operands, const model::QualificationOperator& op);

// The id of an attribute form as requests name it: the reference server's ids for ID and DESC,
// a deterministic id for other form names.
std::string FormId(std::string_view form_name);

// The form an operand {"type":"form","attribute":{...},"form":{"id"|"name"}} names.
const model::AttributeForm& ResolveForm(const model::SemanticModel& model, const Json& operand,
                                        const model::Attribute*& attribute);

// Operand helpers shared by the compilers of each level (view filters, metric limits), with the
// messages above. OperandType is the operand's `type`, "expression" for an operator node, or
// "unknown"; a `type` that is not a string is Error(kInvalidInput).
std::string OperandType(const Json& operand);
std::string OperandId(const Json& operand);  // "" when absent
const Json& OperandsOf(const Json& node, const std::string& op);
void ExpectOperandCount(const Json& operands, size_t count, const std::string& op);
[[noreturn]] void UnsupportedCombination(const Json& operands, const std::string& op);

// Numeric constants of metric qualifications (metric limits, metric-qualification selectors),
// Error(kInvalidInput) "Invalid constant value - X" or "Invalid constant data type for metric
// qualification - T" otherwise. ConstantNumber: a {"type":"constant"} operand of dataType Real,
// BigDecimal or Int64 whose value (a string or a JSON number) is a number. ConstantNumbers: the
// same for each of the `values` of a {"type":"constants"} operand. RankAmount: a ConstantNumber
// that is whole and not negative. PercentAmount: a Percent.* amount as a percentage, from "20%",
// a fraction "0.2", or a value above 1 without `%` ("35" is 35).
double ConstantNumber(const Json& operand);
std::vector<double> ConstantNumbers(const Json& operand);
double RankAmount(const Json& operand);
double PercentAmount(const Json& operand);

// Ids of every metric a tree qualifies on, in order of first appearance.
std::vector<std::string> MetricsInQualification(const Json& tree);

struct SplitQualification {
  Json rows = nullptr;    // attribute and form qualifications
  Json groups = nullptr;  // metric qualifications
};

// Checks the whole tree and splits a top-level And by level. A part whose And/Or/Not mixes
// levels, or a Rank/Percent qualification, is Error(kNotSupported) here.
SplitQualification SplitByLevel(const model::SemanticModel& model, const Json& tree);

}  // namespace tessera::engine
