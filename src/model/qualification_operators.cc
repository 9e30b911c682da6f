#include "model/qualification_operators.h"

#include <array>

namespace tessera::model {
namespace {

using F = OperatorFamily;
using C = Comparison;
constexpr size_t kAny = kAnyNumberOfOperands;

constexpr std::array<QualificationOperator, 39> kOperators = {{
    {"And", "&", F::kLogical, C::kNone, 2, kAny, ""},
    {"Or", "|", F::kLogical, C::kNone, 2, kAny, ""},
    {"Not", "", F::kLogical, C::kNone, 1, 1, ""},
    {"In", "", F::kList, C::kIn, 2, 2, "IN"},
    {"NotIn", "", F::kList, C::kNotIn, 2, 2, "NOT IN"},
    {"Equals", "=", F::kComparison, C::kEquals, 2, 2, "="},
    {"NotEqual", "!=", F::kComparison, C::kNotEqual, 2, 2, "<>"},
    {"Greater", ">", F::kComparison, C::kGreater, 2, 2, ">"},
    {"Less", "<", F::kComparison, C::kLess, 2, 2, "<"},
    {"GreaterEqual", ">=", F::kComparison, C::kGreaterEqual, 2, 2, ">="},
    {"LessEqual", "<=", F::kComparison, C::kLessEqual, 2, 2, "<="},
    {"Between", "", F::kRange, C::kBetween, 3, 3, "BETWEEN"},
    {"NotBetween", "", F::kRange, C::kNotBetween, 3, 3, "NOT BETWEEN"},
    {"IsNull", "null", F::kNullTest, C::kIsNull, 1, 1, "IS NULL"},
    {"IsNotNull", "notnull", F::kNullTest, C::kIsNotNull, 1, 1, "IS NOT NULL"},
    {"Like", "", F::kTextPattern, C::kNone, 2, 2, ""},
    {"NotLike", "", F::kTextPattern, C::kNone, 2, 2, ""},
    {"Contains", "", F::kTextPattern, C::kNone, 2, 2, ""},
    {"NotContains", "", F::kTextPattern, C::kNone, 2, 2, ""},
    {"BeginsWith", "", F::kTextPattern, C::kNone, 2, 2, ""},
    {"NotBeginsWith", "", F::kTextPattern, C::kNone, 2, 2, ""},
    {"EndsWith", "", F::kTextPattern, C::kNone, 2, 2, ""},
    {"NotEndsWith", "", F::kTextPattern, C::kNone, 2, 2, ""},
    {"Rank.Top", "", F::kRanked, C::kRankTop, 2, 2, ""},
    {"Rank.Bottom", "", F::kRanked, C::kRankBottom, 2, 2, ""},
    {"Rank.ExcludeTop", "", F::kRanked, C::kNone, 2, 2, ""},
    {"Rank.ExcludeBottom", "", F::kRanked, C::kNone, 2, 2, ""},
    {"Rank.Equals", "", F::kRanked, C::kNone, 2, 2, ""},
    {"Rank.DifferentFrom", "", F::kRanked, C::kNone, 2, 2, ""},
    {"Rank.Between", "", F::kRanked, C::kNone, 3, 3, ""},
    {"Rank.NotBetween", "", F::kRanked, C::kNone, 3, 3, ""},
    {"Percent.Top", "", F::kRanked, C::kPercentTop, 2, 2, ""},
    {"Percent.Bottom", "", F::kRanked, C::kPercentBottom, 2, 2, ""},
    {"Percent.ExcludeTop", "", F::kRanked, C::kNone, 2, 2, ""},
    {"Percent.ExcludeBottom", "", F::kRanked, C::kNone, 2, 2, ""},
    {"Percent.Equals", "", F::kRanked, C::kNone, 2, 2, ""},
    {"Percent.DifferentFrom", "", F::kRanked, C::kNone, 2, 2, ""},
    {"Percent.Between", "", F::kRanked, C::kNone, 3, 3, ""},
    {"Percent.NotBetween", "", F::kRanked, C::kNone, 3, 3, ""},
}};

}  // namespace

std::span<const QualificationOperator> QualificationOperators() { return kOperators; }

const QualificationOperator* FindOperatorByName(std::string_view name) {
  for (const QualificationOperator& op : kOperators) {
    if (op.name == name) return &op;
  }
  return nullptr;
}

const QualificationOperator* FindOperator(std::string_view name) {
  if (const QualificationOperator* op = FindOperatorByName(name)) return op;
  for (const QualificationOperator& op : kOperators) {
    if (!op.symbol.empty() && op.symbol == name) return &op;
  }
  return nullptr;
}

}  // namespace tessera::model
