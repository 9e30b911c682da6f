#include "engine/metric_limits.h"

#include <algorithm>

#include "core/error.h"
#include "core/ids.h"
#include "engine/qualification.h"

namespace tessera::engine {
namespace {

// Every comparison but In and NotIn, which take any number of operands.
CompareOp ComparisonOf(const std::string& op) {
  const std::optional<CompareOp> compare = ComparisonOperator(op);
  if (!compare || *compare == CompareOp::kIn || *compare == CompareOp::kNotIn) {
    throw Error(ErrorCode::kNotSupported, op + " is not supported in metric limits");
  }
  return *compare;
}

RowFilter::Kind LogicalKind(std::string_view op) {
  if (op == "Not") return RowFilter::Kind::kNot;
  return op == "And" ? RowFilter::Kind::kAnd : RowFilter::Kind::kOr;
}

class LimitCompiler {
 public:
  LimitCompiler(std::string key, int metric) : key_(std::move(key)), metric_(metric) {}

  MetricLimit Compile(const Json& node) const {
    const model::QualificationOperator& op = QualificationOperatorOf(node);
    const Json& operands = OperandsOf(node, std::string(op.name));
    if (op.family != model::OperatorFamily::kLogical) return Leaf(op, operands);
    ExpectConditionCount(operands, op);
    std::vector<MetricLimit> children;
    for (const auto& operand : operands) children.push_back(Compile(operand));
    return RowFilter::Combine(LogicalKind(op.name), std::move(children));
  }

 private:
  MetricLimit Leaf(const model::QualificationOperator& entry, const Json& operands) const {
    const std::string op(entry.name);
    if (operands.empty()) ThrowInvalidInput("There should be operands for operator - " + op);
    CheckTarget(operands[0]);
    const CompareOp compare = ComparisonOf(op);
    ExpectOperandCount(operands, entry.min_operands, op);
    const bool percent = compare == CompareOp::kPercentTop || compare == CompareOp::kPercentBottom;
    const bool rank = compare == CompareOp::kRankTop || compare == CompareOp::kRankBottom;
    std::vector<double> numbers;
    for (size_t i = 1; i < operands.size(); ++i) {
      if (OperandType(operands[i]) != "constant") UnsupportedCombination(operands, op);
      numbers.push_back(percent ? PercentAmount(operands[i])
                        : rank  ? RankAmount(operands[i])
                                : ConstantNumber(operands[i]));
    }
    return RowFilter::Metric(metric_, compare, std::move(numbers));
  }

  void CheckTarget(const Json& operand) const {
    const std::string type = OperandType(operand);
    if (type != "metric") {
      ThrowInvalidInput(
          "In metric limits, target object must be metric, but the first operand is " + type +
          " for key " + key_);
    }
    const std::string id = OperandId(operand);
    if (CanonicalObjectId(id) != CanonicalObjectId(key_)) {
      ThrowInvalidInput("In metric limits, the metric id " + id +
                        " is in a first operand and should be same with corresponding key " + key_);
    }
  }

  std::string key_;
  int metric_;
};

}  // namespace

std::optional<MetricLimit> CompileMetricLimits(
    const Json& limits, const std::vector<std::string>& returned_metric_ids) {
  if (limits.is_null()) return std::nullopt;
  if (!limits.is_object())
    ThrowInvalidInput("metricLimits must be an object of metric ids to conditions");
  CheckQualificationSize(limits, "metricLimits");
  std::vector<MetricLimit> parts;
  for (const auto& [key, expression] : limits.items()) {
    const std::optional<std::string> id = CanonicalObjectId(key);
    if (!id) ThrowInvalidInput("Invalid metric id - " + key);
    const auto found = std::find(returned_metric_ids.begin(), returned_metric_ids.end(), *id);
    if (found == returned_metric_ids.end()) {
      ThrowInvalidInput("Failed to find the metric " + key + " in the report or cube.");
    }
    const int metric = static_cast<int>(found - returned_metric_ids.begin());
    parts.push_back(LimitCompiler(key, metric).Compile(expression));
  }
  if (parts.empty()) return std::nullopt;
  if (parts.size() == 1) return parts.front();
  return RowFilter::Combine(RowFilter::Kind::kAnd, std::move(parts));
}

}  // namespace tessera::engine
