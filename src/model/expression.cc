#include "model/expression.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <set>

#include "core/error.h"
#include "core/strings.h"

namespace tessera::model {
namespace {

using Node = ArithmeticNode;
using NodePtr = std::shared_ptr<const ArithmeticNode>;

NodePtr MakeNumber(double value) {
  auto node = std::make_shared<Node>();
  node->kind = Node::Kind::kNumber;
  node->number = value;
  return node;
}

NodePtr MakeReference(std::string name) {
  auto node = std::make_shared<Node>();
  node->kind = Node::Kind::kReference;
  node->reference = std::move(name);
  return node;
}

NodePtr MakeOperation(Node::Kind kind, std::vector<NodePtr> operands) {
  auto node = std::make_shared<Node>();
  node->kind = kind;
  node->operands = std::move(operands);
  return node;
}

bool IsNameStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool IsDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// Recursive descent over
//   sum     := product (('+' | '-') product)*
//   product := unary (('*' | '/') unary)*
//   unary   := '-' unary | primary
//   primary := number | name | '[' text ']' | '(' sum ')'
class ArithmeticParser {
 public:
  explicit ArithmeticParser(std::string_view text) : text_(text) {}

  NodePtr ParseWhole() {
    NodePtr root = ParseSum();
    SkipSpace();
    if (!AtEnd()) {
      Fail(Peek() == ')' ? "unexpected ')' without a matching '('"
                         : "expected an operator (+ - * /) or the end of the expression");
    }
    return root;
  }

 private:
  NodePtr ParseSum() {
    NodePtr left = ParseProduct();
    while (true) {
      SkipSpace();
      if (Accept('+')) {
        left = MakeOperation(Node::Kind::kAdd, {left, ParseProduct()});
      } else if (Accept('-')) {
        left = MakeOperation(Node::Kind::kSubtract, {left, ParseProduct()});
      } else {
        return left;
      }
    }
  }

  NodePtr ParseProduct() {
    NodePtr left = ParseUnary();
    while (true) {
      SkipSpace();
      if (Accept('*')) {
        left = MakeOperation(Node::Kind::kMultiply, {left, ParseUnary()});
      } else if (Accept('/')) {
        left = MakeOperation(Node::Kind::kDivide, {left, ParseUnary()});
      } else {
        return left;
      }
    }
  }

  NodePtr ParseUnary() {
    SkipSpace();
    if (Accept('-')) return MakeOperation(Node::Kind::kNegate, {ParseUnary()});
    return ParsePrimary();
  }

  NodePtr ParsePrimary() {
    SkipSpace();
    if (AtEnd()) Fail("expected a number, a name or '('");
    char c = Peek();
    if (IsDigit(c) || (c == '.' && IsDigit(PeekAt(1)))) return ParseNumber();
    if (IsNameStart(c)) return ParseName();
    if (c == '[') return ParseBracketedName();
    if (c == '(') return ParseParenthesized();
    Fail("expected a number, a name or '('");
  }

  NodePtr ParseNumber() {
    size_t start = position_;
    while (IsDigit(Peek())) ++position_;
    if (Peek() == '.') {
      ++position_;
      while (IsDigit(Peek())) ++position_;
    }
    if (Peek() == 'e' || Peek() == 'E') ParseExponent();
    double value = 0;
    auto [end, error] = std::from_chars(text_.data() + start, text_.data() + position_, value);
    if (error != std::errc() || end != text_.data() + position_) {
      position_ = start;
      Fail("the number is out of range");
    }
    return MakeNumber(value);
  }

  void ParseExponent() {
    ++position_;
    if (Peek() == '+' || Peek() == '-') ++position_;
    if (!IsDigit(Peek())) Fail("expected the digits of the exponent");
    while (IsDigit(Peek())) ++position_;
  }

  NodePtr ParseName() {
    size_t start = position_;
    while (IsNameChar(Peek())) ++position_;
    return MakeReference(std::string(text_.substr(start, position_ - start)));
  }

  NodePtr ParseBracketedName() {
    size_t open = position_++;
    size_t close = text_.find(']', position_);
    if (close == std::string_view::npos) {
      position_ = text_.size();
      Fail("expected ']' to close the '[' at column " + std::to_string(open + 1));
    }
    std::string_view name = Trim(text_.substr(position_, close - position_));
    if (name.empty()) Fail("expected a name inside '[]'");
    position_ = close + 1;
    return MakeReference(std::string(name));
  }

  NodePtr ParseParenthesized() {
    size_t open = position_++;
    NodePtr inner = ParseSum();
    SkipSpace();
    if (!Accept(')')) {
      Fail("expected ')' to close the '(' at column " + std::to_string(open + 1));
    }
    return inner;
  }

  void SkipSpace() {
    while (!AtEnd() && std::isspace(static_cast<unsigned char>(Peek()))) ++position_;
  }
  bool AtEnd() const { return position_ >= text_.size(); }
  char Peek() const { return PeekAt(0); }
  char PeekAt(size_t ahead) const {
    return position_ + ahead < text_.size() ? text_[position_ + ahead] : '\0';
  }
  bool Accept(char expected) {
    if (AtEnd() || Peek() != expected) return false;
    ++position_;
    return true;
  }

  [[noreturn]] void Fail(const std::string& what) const {
    throw Error(ErrorCode::kInvalidInput, "expression '" + std::string(text_) + "': column " +
                                              std::to_string(position_ + 1) + ": " + what);
  }

  std::string_view text_;
  size_t position_ = 0;
};

void CollectReferences(const Node& node, std::set<std::string>& seen,
                       std::vector<std::string>& references) {
  if (node.kind == Node::Kind::kReference) {
    if (seen.insert(node.reference).second) references.push_back(node.reference);
    return;
  }
  for (const auto& operand : node.operands) CollectReferences(*operand, seen, references);
}

NodePtr RenameNode(const NodePtr& node,
                   const std::function<std::string(const std::string&)>& rename) {
  if (node->kind == Node::Kind::kReference) return MakeReference(rename(node->reference));
  if (node->kind == Node::Kind::kNumber) return node;
  std::vector<NodePtr> operands;
  for (const auto& operand : node->operands) operands.push_back(RenameNode(operand, rename));
  return MakeOperation(node->kind, std::move(operands));
}

// Binding strength: a child binding more loosely than its parent needs parentheses.
int Precedence(const Node& node) {
  switch (node.kind) {
    case Node::Kind::kAdd:
    case Node::Kind::kSubtract:
      return 1;
    case Node::Kind::kMultiply:
    case Node::Kind::kDivide:
      return 2;
    case Node::Kind::kNegate:
      return 3;
    default:
      return 4;
  }
}

char OperatorSymbol(Node::Kind kind) {
  switch (kind) {
    case Node::Kind::kAdd:
      return '+';
    case Node::Kind::kSubtract:
      return '-';
    case Node::Kind::kMultiply:
      return '*';
    default:
      return '/';
  }
}

std::string FormatNumber(double value) {
  if (!std::isfinite(value)) {
    throw Error(ErrorCode::kInvalidInput,
                "an expression cannot hold the number " + std::to_string(value));
  }
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.17g", value < 0 ? -value : value);
  std::string digits = buffer;
  return value < 0 ? "(-" + digits + ")" : digits;
}

std::string FormatReference(const std::string& name) {
  if (name.find(']') != std::string::npos || Trim(name).size() != name.size() || name.empty()) {
    throw Error(ErrorCode::kInvalidInput,
                "reference '" + name + "' cannot be written in brackets in an expression");
  }
  return "[" + name + "]";
}

std::string FormatNode(const Node& node);

std::string FormatOperand(const Node& operand, bool needs_parentheses) {
  std::string text = FormatNode(operand);
  return needs_parentheses ? "(" + text + ")" : text;
}

// Left associativity: a right operand of equal precedence keeps its parentheses ("a - (b - c)").
std::string FormatNode(const Node& node) {
  switch (node.kind) {
    case Node::Kind::kNumber:
      return FormatNumber(node.number);
    case Node::Kind::kReference:
      return FormatReference(node.reference);
    case Node::Kind::kNegate: {
      std::string negated = "-";
      negated += FormatOperand(*node.operands[0], Precedence(*node.operands[0]) < 3);
      return negated;
    }
    default: {
      int precedence = Precedence(node);
      const Node& left = *node.operands[0];
      const Node& right = *node.operands[1];
      return FormatOperand(left, Precedence(left) < precedence) + " " + OperatorSymbol(node.kind) +
             " " + FormatOperand(right, Precedence(right) <= precedence);
    }
  }
}

}  // namespace

std::vector<std::string> ArithmeticExpression::References() const {
  std::vector<std::string> references;
  std::set<std::string> seen;
  if (root) CollectReferences(*root, seen, references);
  return references;
}

ArithmeticExpression ParseArithmetic(std::string_view text) {
  ArithmeticParser parser(text);
  return ArithmeticExpression{parser.ParseWhole(), std::string(text)};
}

ArithmeticExpression RenameReferences(
    const ArithmeticExpression& expression,
    const std::function<std::string(const std::string&)>& rename) {
  if (!expression.root) return expression;
  NodePtr root = RenameNode(expression.root, rename);
  std::string text = FormatNode(*root);
  return ArithmeticExpression{std::move(root), std::move(text)};
}

}  // namespace tessera::model
