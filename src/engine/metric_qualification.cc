#include "engine/metric_qualification.h"

#include <optional>
#include <utility>

#include "core/error.h"
#include "core/ids.h"
#include "engine/qualification.h"

namespace tessera::engine {
namespace {

using Kind = RowFilter::Kind;

MetricLimit Not(MetricLimit limit) { return RowFilter::Combine(Kind::kNot, {std::move(limit)}); }

MetricLimit And(MetricLimit a, MetricLimit b) {
  return RowFilter::Combine(Kind::kAnd, {std::move(a), std::move(b)});
}

// A comparison with values; the ranked ones (Rank.*, Percent.*) compile apart.
std::optional<CompareOp> ValueOperator(const std::string& op) {
  const std::optional<CompareOp> compare = ComparisonOperator(op);
  if (!compare || IsRankOrPercent(*compare)) return std::nullopt;
  return compare;
}

// The Rank.* and Percent.* operators of one metric, composed from the Top and Bottom leaves of
// engine/cube_query.h (see the header for what each keeps).
class RankedOperators {
 public:
  RankedOperators(int metric, bool is_percent) : metric_(metric), is_percent_(is_percent) {}

  // `amounts` are already checked: one, or two for Between and NotBetween.
  std::optional<MetricLimit> Compile(std::string_view suffix,
                                     const std::vector<double>& amounts) const {
    if (suffix == "Top") return Top(amounts[0]);
    if (suffix == "Bottom") return Bottom(amounts[0]);
    if (suffix == "ExcludeTop") return Except(Top(amounts[0]));
    if (suffix == "ExcludeBottom") return Except(Bottom(amounts[0]));
    if (suffix == "Between") return Between(amounts[0], amounts[1]);
    if (suffix == "NotBetween") return Except(Between(amounts[0], amounts[1]));
    if (suffix == "Equals") return Between(amounts[0], amounts[0]);
    if (suffix == "DifferentFrom") return Except(Between(amounts[0], amounts[0]));
    return std::nullopt;
  }

 private:
  MetricLimit Top(double amount) const {
    return RowFilter::Metric(metric_, is_percent_ ? CompareOp::kPercentTop : CompareOp::kRankTop,
                             {amount});
  }

  MetricLimit Bottom(double amount) const {
    return RowFilter::Metric(
        metric_, is_percent_ ? CompareOp::kPercentBottom : CompareOp::kRankBottom, {amount});
  }

  // The groups ranked strictly better than the rank `amount` stands for (none for 0 or 1).
  MetricLimit Above(double amount) const {
    if (is_percent_) return RowFilter::Metric(metric_, CompareOp::kPercentTop, {amount, -1});
    return RowFilter::Metric(metric_, CompareOp::kRankTop, {amount - 1});
  }

  MetricLimit Between(double low, double high) const { return And(Top(high), Not(Above(low))); }

  // The ranked groups `kept` leaves out: a null value has no rank, so Not alone would keep it.
  MetricLimit Except(MetricLimit kept) const {
    return And(RowFilter::Metric(metric_, CompareOp::kIsNotNull, {}), Not(std::move(kept)));
  }

  int metric_;
  bool is_percent_;
};

class QualificationCompiler {
 public:
  explicit QualificationCompiler(const std::vector<std::string>& request_ids) {
    for (const auto& id : request_ids) request_ids_.push_back(CanonicalObjectId(id).value_or(id));
  }

  MetricLimit Compile(const Json& node) const {
    const model::QualificationOperator& op = QualificationOperatorOf(node);
    const std::string name(op.name);
    const Json& operands = OperandsOf(node, name);
    if (op.family == model::OperatorFamily::kLogical) {
      ExpectConditionCount(operands, op);
      std::vector<MetricLimit> children;
      for (const auto& operand : operands) children.push_back(Compile(operand));
      if (name == "Not") return Not(std::move(children.front()));
      return RowFilter::Combine(name == "And" ? Kind::kAnd : Kind::kOr, std::move(children));
    }
    if (operands.empty()) ThrowInvalidInput("There should be operands for operator - " + name);
    const int metric = MetricOf(operands[0], name);
    if (op.family == model::OperatorFamily::kRanked) return Ranked(metric, op, operands);
    return Value(metric, op, operands);
  }

 private:
  // The first operand of a metric qualification must be a metric.
  int MetricOf(const Json& operand, const std::string& op) const {
    const std::string type = OperandType(operand);
    if (type != "metric") {
      ThrowInvalidInput("In a metric qualification, the first operand of " + op +
                        " must be a metric, but it is " + type);
    }
    const std::string id = OperandId(operand);
    const std::string canonical = CanonicalObjectId(id).value_or(id);
    for (size_t i = 0; i < request_ids_.size(); ++i) {
      if (request_ids_[i] == canonical) return static_cast<int>(i);
    }
    ThrowInvalidInput("Failed to find the metric " + (id.empty() ? "without an id" : id) +
                      " of a metric qualification in the query's metrics");
  }

  MetricLimit Value(int metric, const model::QualificationOperator& entry,
                    const Json& operands) const {
    const std::string op(entry.name);
    const std::optional<CompareOp> compare = ValueOperator(op);
    if (!compare) UnsupportedCombination(operands, op);
    if (entry.family == model::OperatorFamily::kList) {
      // Unlike other grammars, here In takes one `constants` operand or any number of constants.
      if (operands.size() < entry.min_operands) {
        ExpectOperandCount(operands, entry.min_operands, op);
      }
      if (operands.size() == 2 && OperandType(operands[1]) == "constants") {
        return RowFilter::Metric(metric, *compare, ConstantNumbers(operands[1]));
      }
    } else {
      ExpectOperandCount(operands, entry.min_operands, op);
      if (entry.family == model::OperatorFamily::kNullTest) {
        return RowFilter::Metric(metric, *compare, {});
      }
    }
    return RowFilter::Metric(metric, *compare, Constants(operands, op, &ConstantNumber));
  }

  MetricLimit Ranked(int metric, const model::QualificationOperator& entry,
                     const Json& operands) const {
    const std::string op(entry.name);
    const bool is_percent = op.starts_with("Percent.");
    const std::string_view suffix = std::string_view(op).substr(op.find('.') + 1);
    ExpectOperandCount(operands, entry.min_operands, op);
    const std::vector<double> amounts =
        Constants(operands, op, is_percent ? &PercentAmount : &RankAmount);
    std::optional<MetricLimit> limit = RankedOperators(metric, is_percent).Compile(suffix, amounts);
    if (!limit) ThrowInvalidInput("Invalid operator - " + op);
    return std::move(*limit);
  }

  // The numbers of operands[1..], each a constant.
  static std::vector<double> Constants(const Json& operands, const std::string& op,
                                       double (*number_of)(const Json&)) {
    std::vector<double> numbers;
    for (size_t i = 1; i < operands.size(); ++i) {
      if (OperandType(operands[i]) != "constant") UnsupportedCombination(operands, op);
      numbers.push_back(number_of(operands[i]));
    }
    return numbers;
  }

  std::vector<std::string> request_ids_;
};

}  // namespace

MetricLimit CompileMetricQualification(const Json& expression,
                                       const std::vector<std::string>& request_ids) {
  return QualificationCompiler(request_ids).Compile(expression);
}

}  // namespace tessera::engine
