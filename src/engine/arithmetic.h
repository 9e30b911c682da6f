// engine/arithmetic.h
//
// The value of an arithmetic expression (model/expression.h) given the value of each reference:
// compound metrics on a report's rows and on a cube's aggregated groups. A null operand makes
// the result null; so does a division by zero.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "model/expression.h"

namespace tessera::engine {

using ReferenceValue = std::function<std::optional<double>(const std::string& reference)>;

std::optional<double> EvaluateArithmetic(const model::ArithmeticNode& node,
                                         const ReferenceValue& value_of);

}  // namespace tessera::engine
