// model/expression.h
//
// Arithmetic expressions of facts and compound metrics: numbers, references, + - * /, unary minus
// and parentheses. A reference is a bare identifier (a column name, in facts) or a bracketed name
// ("[Revenue]" or "[<metric id>]", in compound metrics). Parsed once, when the definition is read;
// the tree is what SQL generation and the engine walk, so text is never passed to a database.
//
// ParseArithmetic is total: it returns the tree or throws Error(kInvalidInput) with the position
// ("expression 'revenue -': column 10: expected a number, a name or '('").
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::model {

struct ArithmeticNode {
  enum class Kind { kNumber, kReference, kAdd, kSubtract, kMultiply, kDivide, kNegate };
  Kind kind = Kind::kNumber;
  double number = 0;
  std::string reference;  // kReference: the name inside, without brackets
  std::vector<std::shared_ptr<const ArithmeticNode>> operands;  // 2 for binary, 1 for kNegate
};

struct ArithmeticExpression {
  std::shared_ptr<const ArithmeticNode> root;
  std::string text;  // as written

  // Every reference, in order of first appearance, without repeats.
  std::vector<std::string> References() const;
};

ArithmeticExpression ParseArithmetic(std::string_view text);

// The expression with every reference renamed by `rename` (e.g. metric names to ids); the
// result's text writes references in brackets.
ArithmeticExpression RenameReferences(const ArithmeticExpression& expression,
                                      const std::function<std::string(const std::string&)>& rename);

}  // namespace tessera::model
