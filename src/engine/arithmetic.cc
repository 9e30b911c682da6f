#include "engine/arithmetic.h"

#include "core/error.h"

namespace tessera::engine {

std::optional<double> EvaluateArithmetic(const model::ArithmeticNode& node,
                                         const ReferenceValue& value_of) {
  using Kind = model::ArithmeticNode::Kind;
  switch (node.kind) {
    case Kind::kNumber:
      return node.number;
    case Kind::kReference:
      return value_of(node.reference);
    case Kind::kNegate: {
      auto value = EvaluateArithmetic(*node.operands[0], value_of);
      return value ? std::optional<double>(-*value) : std::nullopt;
    }
    default:
      break;
  }
  const auto left = EvaluateArithmetic(*node.operands[0], value_of);
  const auto right = EvaluateArithmetic(*node.operands[1], value_of);
  if (!left || !right) return std::nullopt;
  switch (node.kind) {
    case Kind::kAdd:
      return *left + *right;
    case Kind::kSubtract:
      return *left - *right;
    case Kind::kMultiply:
      return *left * *right;
    case Kind::kDivide:
      if (*right == 0) return std::nullopt;
      return *left / *right;
    default:
      break;
  }
  throw Error(ErrorCode::kInternal, "unhandled arithmetic node");
}

}  // namespace tessera::engine
