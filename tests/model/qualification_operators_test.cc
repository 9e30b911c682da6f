#include "model/qualification_operators.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tessera::model {
namespace {

std::string NameOf(std::string_view name_or_symbol) {
  const QualificationOperator* op = FindOperator(name_or_symbol);
  return op == nullptr ? "unknown" : std::string(op->name);
}

TEST(QualificationOperators, SymbolsStandForTheirNames) {
  const std::vector<std::pair<std::string, std::string>> symbols = {
      {"=", "Equals"},        {"!=", "NotEqual"},  {">", "Greater"},   {"<", "Less"},
      {">=", "GreaterEqual"}, {"<=", "LessEqual"}, {"null", "IsNull"}, {"notnull", "IsNotNull"},
      {"&", "And"},           {"|", "Or"}};
  for (const auto& [symbol, name] : symbols) EXPECT_EQ(NameOf(symbol), name) << symbol;
}

TEST(QualificationOperators, ByNameOnlyRefusesSymbols) {
  EXPECT_EQ(FindOperatorByName("="), nullptr);
  EXPECT_EQ(FindOperatorByName("&"), nullptr);
  ASSERT_NE(FindOperatorByName("Equals"), nullptr);
  EXPECT_EQ(FindOperatorByName("Equals")->name, "Equals");
}

TEST(QualificationOperators, NamesAreCaseSensitiveAndWhole) {
  EXPECT_EQ(NameOf("equals"), "unknown");
  EXPECT_EQ(NameOf("Rank."), "unknown");
  EXPECT_EQ(NameOf("Rank.Middle"), "unknown");
  EXPECT_EQ(NameOf("Percent.ExcludeBottom"), "Percent.ExcludeBottom");
  EXPECT_EQ(NameOf(""), "unknown");
}

TEST(QualificationOperators, OperandCounts) {
  const std::vector<std::tuple<std::string, size_t, size_t>> counts = {
      {"And", 2, kAnyNumberOfOperands},
      {"Or", 2, kAnyNumberOfOperands},
      {"Not", 1, 1},
      {"In", 2, 2},
      {"Equals", 2, 2},
      {"Between", 3, 3},
      {"IsNotNull", 1, 1},
      {"EndsWith", 2, 2},
      {"Rank.Top", 2, 2},
      {"Percent.NotBetween", 3, 3},
      {"Rank.Between", 3, 3},
      {"Rank.Equals", 2, 2}};
  for (const auto& [name, min, max] : counts) {
    const QualificationOperator* op = FindOperatorByName(name);
    ASSERT_NE(op, nullptr) << name;
    EXPECT_EQ(op->min_operands, min) << name;
    EXPECT_EQ(op->max_operands, max) << name;
  }
}

TEST(QualificationOperators, ComparisonsAndTheirSql) {
  const std::vector<std::tuple<std::string, Comparison, std::string>> comparisons = {
      {"Equals", Comparison::kEquals, "="},
      {"NotEqual", Comparison::kNotEqual, "<>"},
      {"GreaterEqual", Comparison::kGreaterEqual, ">="},
      {"NotBetween", Comparison::kNotBetween, "NOT BETWEEN"},
      {"NotIn", Comparison::kNotIn, "NOT IN"},
      {"IsNotNull", Comparison::kIsNotNull, "IS NOT NULL"},
      {"Percent.Bottom", Comparison::kPercentBottom, ""},
      {"Rank.ExcludeTop", Comparison::kNone, ""},
      {"Contains", Comparison::kNone, ""},
      {"And", Comparison::kNone, ""}};
  for (const auto& [name, comparison, sql] : comparisons) {
    const QualificationOperator* op = FindOperatorByName(name);
    ASSERT_NE(op, nullptr) << name;
    EXPECT_EQ(op->comparison, comparison) << name;
    EXPECT_EQ(op->sql, sql) << name;
  }
}

TEST(QualificationOperators, TheListStartsWithTheLogicalOperatorsAndEndsWithTheRankedOnes) {
  const auto all = QualificationOperators();
  ASSERT_EQ(all.size(), 39u);
  EXPECT_EQ(all.front().name, "And");
  EXPECT_EQ(all[22].name, "NotEndsWith");
  for (size_t i = 23; i < all.size(); ++i) EXPECT_EQ(all[i].family, OperatorFamily::kRanked);
}

}  // namespace
}  // namespace tessera::model
