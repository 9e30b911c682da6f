// model/qualification_operators.h
//
// The operators of qualification trees (report and view filters, metric limits, metric
// qualifications, dashboard selectors, bundle filters), listed once: each canonical name, the
// symbol a request may write instead ("=" for Equals, "&" for And; bundles take names only), how
// many operands it takes, and what it compares. Names and symbols are case-sensitive.
//
//   And, Or                 two or more conditions; Not one condition
//   In, NotIn               a value and a list
//   Equals (=), NotEqual (!=), Greater (>), Less (<), GreaterEqual (>=), LessEqual (<=)
//                           a value and one other
//   Between, NotBetween     a value and two bounds, both inclusive
//   IsNull (null), IsNotNull (notnull)
//                           a value alone
//   Like, NotLike, Contains, NotContains, BeginsWith, NotBeginsWith, EndsWith, NotEndsWith
//                           a value and one text
//   Rank.F, Percent.F       a metric and an amount, or two for F = Between or NotBetween; F one
//                           of Top, Bottom, ExcludeTop, ExcludeBottom, Equals, DifferentFrom,
//                           Between, NotBetween
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace tessera::model {

enum class OperatorFamily {
  kLogical,      // And, Or, Not: the operands are conditions
  kList,         // In, NotIn
  kComparison,   // Equals ... LessEqual
  kRange,        // Between, NotBetween
  kNullTest,     // IsNull, IsNotNull
  kTextPattern,  // Like ... NotEndsWith
  kRanked,       // Rank.*, Percent.*: a group's position among the aggregated groups
};

// What an operator compares a value with; kNone for the logical operators, the text patterns
// and the ranked operators other than Rank.Top, Rank.Bottom, Percent.Top and Percent.Bottom
// (which compose from those four).
enum class Comparison {
  kNone,
  kEquals,
  kNotEqual,
  kGreater,
  kLess,
  kGreaterEqual,
  kLessEqual,
  kBetween,
  kNotBetween,
  kIn,
  kNotIn,
  kIsNull,
  kIsNotNull,
  kRankTop,
  kRankBottom,
  kPercentTop,
  kPercentBottom,
};

inline constexpr size_t kAnyNumberOfOperands = SIZE_MAX;

struct QualificationOperator {
  std::string_view name;    // canonical: "GreaterEqual", "Rank.Top"
  std::string_view symbol;  // what a request may write instead, "" for none
  OperatorFamily family;
  Comparison comparison;
  size_t min_operands;
  size_t max_operands;  // kAnyNumberOfOperands for no limit
  // The SQL operator of a comparison, range, list or null test ("<>", "NOT BETWEEN", "IS NULL");
  // "" for the others.
  std::string_view sql;
};

// Every operator, in the order messages list them: as in the table above, then Rank.* and
// Percent.*.
std::span<const QualificationOperator> QualificationOperators();

// The operator whose canonical name is `name`, or null.
const QualificationOperator* FindOperatorByName(std::string_view name);
// The operator whose canonical name or symbol is `name`, or null.
const QualificationOperator* FindOperator(std::string_view name);

}  // namespace tessera::model
