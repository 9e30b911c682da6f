#include "model/expression.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "core/error.h"

namespace tessera::model {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Kind = ArithmeticNode::Kind;

double Evaluate(const ArithmeticNode& node, const std::map<std::string, double>& values = {}) {
  auto operand = [&](size_t i) { return Evaluate(*node.operands.at(i), values); };
  switch (node.kind) {
    case Kind::kNumber:
      return node.number;
    case Kind::kReference:
      return values.at(node.reference);
    case Kind::kAdd:
      return operand(0) + operand(1);
    case Kind::kSubtract:
      return operand(0) - operand(1);
    case Kind::kMultiply:
      return operand(0) * operand(1);
    case Kind::kDivide:
      return operand(0) / operand(1);
    case Kind::kNegate:
      return -operand(0);
  }
  return 0;
}

double EvaluateText(std::string_view text, const std::map<std::string, double>& values = {}) {
  return Evaluate(*ParseArithmetic(text).root, values);
}

std::string ParseError(std::string_view text) {
  try {
    ParseArithmetic(text);
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kInvalidInput);
    return error.what();
  }
  ADD_FAILURE() << "'" << text << "' parsed";
  return "";
}

TEST(ParseArithmetic, MultiplicationBindsTighterThanAddition) {
  EXPECT_EQ(EvaluateText("2+3*4"), 14);
  EXPECT_EQ(EvaluateText("2*3+4"), 10);
  EXPECT_EQ(EvaluateText("10 - 6 / 2"), 7);
}

TEST(ParseArithmetic, ParenthesesOverridePrecedence) {
  EXPECT_EQ(EvaluateText("(2+3)*4"), 20);
  EXPECT_EQ(EvaluateText("((2))"), 2);
  EXPECT_EQ(EvaluateText("2 * (3 - (4 + 1))"), -4);
}

TEST(ParseArithmetic, OperatorsOfEqualPrecedenceAssociateLeft) {
  EXPECT_EQ(EvaluateText("8/4/2"), 1);
  EXPECT_EQ(EvaluateText("10-4-3"), 3);
  EXPECT_EQ(EvaluateText("10-4+3"), 9);
}

TEST(ParseArithmetic, UnaryMinusNegatesItsOperand) {
  EXPECT_EQ(EvaluateText("-2*3"), -6);
  EXPECT_EQ(EvaluateText("--2"), 2);
  EXPECT_EQ(EvaluateText("4 - -2"), 6);
  EXPECT_EQ(EvaluateText("-(1+2)"), -3);
  EXPECT_EQ(ParseArithmetic("-x").root->kind, Kind::kNegate);
}

TEST(ParseArithmetic, ReadsIntegersDecimalsAndExponents) {
  EXPECT_EQ(EvaluateText("1"), 1);
  EXPECT_EQ(EvaluateText("0.5"), 0.5);
  EXPECT_EQ(EvaluateText(".25"), 0.25);
  EXPECT_EQ(EvaluateText("1e3"), 1000);
  EXPECT_EQ(EvaluateText("2.5E-1"), 0.25);
}

TEST(ParseArithmetic, BareNamesAndBracketedNamesAreReferences) {
  ArithmeticExpression expression = ParseArithmetic("revenue - [Unit Cost] * units_2");
  EXPECT_EQ(expression.text, "revenue - [Unit Cost] * units_2");
  EXPECT_EQ(Evaluate(*expression.root, {{"revenue", 100}, {"Unit Cost", 3}, {"units_2", 5}}), 85);
}

TEST(ParseArithmetic, ReferencesAreListedOnceInOrderOfFirstAppearance) {
  EXPECT_THAT(ParseArithmetic("b + [a] * b - c / [a]").References(), ElementsAre("b", "a", "c"));
  EXPECT_THAT(ParseArithmetic("1 + 2").References(), ElementsAre());
}

TEST(ParseArithmetic, EmptyTextIsAnError) {
  EXPECT_THAT(ParseError(""), HasSubstr("column 1: expected a number, a name or '('"));
  EXPECT_THAT(ParseError("   "), HasSubstr("column 4: expected a number"));
}

TEST(ParseArithmetic, MissingOperandNamesTheColumnAfterTheOperator) {
  EXPECT_EQ(ParseError("revenue -"),
            "expression 'revenue -': column 10: expected a number, a name or '('");
  EXPECT_THAT(ParseError("a * / b"), HasSubstr("column 5: expected a number, a name or '('"));
}

TEST(ParseArithmetic, UnbalancedParenthesesAreErrors) {
  EXPECT_THAT(ParseError("(a + b"),
              HasSubstr("column 7: expected ')' to close the '(' at column 1"));
  EXPECT_THAT(ParseError("a + b)"), HasSubstr("column 6: unexpected ')'"));
}

TEST(ParseArithmetic, TrailingTextIsAnError) {
  EXPECT_THAT(ParseError("a b"), HasSubstr("column 3: expected an operator"));
  EXPECT_THAT(ParseError("1 + 2 $"), HasSubstr("column 7: expected an operator"));
}

TEST(ParseArithmetic, BracketsMustHoldAName) {
  EXPECT_THAT(ParseError("[] + 1"), HasSubstr("column 2: expected a name inside '[]'"));
  EXPECT_THAT(ParseError("[Revenue + 1"), HasSubstr("expected ']' to close the '[' at column 1"));
}

TEST(ParseArithmetic, MalformedNumbersAreErrors) {
  EXPECT_THAT(ParseError("1e"), HasSubstr("column 3: expected the digits of the exponent"));
  EXPECT_THAT(ParseError("1.5.2"), HasSubstr("column 4: expected an operator"));
}

TEST(RenameReferences, WritesRenamedReferencesInBrackets) {
  ArithmeticExpression renamed =
      RenameReferences(ParseArithmetic("[Revenue] - [Cost]"),
                       [](const std::string& name) { return name == "Revenue" ? "R1" : "C2"; });
  EXPECT_EQ(renamed.text, "[R1] - [C2]");
  EXPECT_THAT(renamed.References(), ElementsAre("R1", "C2"));
}

TEST(RenameReferences, TextReparsesToAnEquivalentTree) {
  const std::map<std::string, double> values = {{"A", 7}, {"B", 3}, {"C", 2}, {"D", 0.1}};
  for (std::string_view text :
       {"a - (b - c)", "(a - b) - c", "a / (b * c)", "-(a + b) * c", "a * -b", "--a",
        "0.1 * a + 1e-7", "(a + b) / (c - d)", "a - b + c * (d - a) / b"}) {
    ArithmeticExpression renamed =
        RenameReferences(ParseArithmetic(text),
                         [](const std::string& name) { return std::string(1, name[0] - 32); });
    ArithmeticExpression reparsed = ParseArithmetic(renamed.text);
    EXPECT_EQ(Evaluate(*reparsed.root, values), Evaluate(*renamed.root, values))
        << text << " -> " << renamed.text;
  }
}

TEST(RenameReferences, NumbersKeepTheirExactValue) {
  ArithmeticExpression renamed = RenameReferences(ParseArithmetic("x * 0.1 + 123456789.123456789"),
                                                  [](const std::string& name) { return name; });
  ArithmeticExpression reparsed = ParseArithmetic(renamed.text);
  const ArithmeticNode& sum = *reparsed.root;
  EXPECT_EQ(sum.operands[0]->operands[1]->number, 0.1);
  EXPECT_EQ(sum.operands[1]->number, 123456789.123456789);
}

}  // namespace
}  // namespace tessera::model
