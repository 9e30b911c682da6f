#include "core/strings.h"

#include <gtest/gtest.h>

namespace tessera {
namespace {

TEST(ParseBool, AcceptsPythonSpellingsAndDigits) {
  EXPECT_EQ(ParseBool("True"), true);
  EXPECT_EQ(ParseBool("FALSE"), false);
  EXPECT_EQ(ParseBool("1"), true);
  EXPECT_EQ(ParseBool("0"), false);
  EXPECT_EQ(ParseBool("yes"), std::nullopt);
  EXPECT_EQ(ParseBool(""), std::nullopt);
}

TEST(ParseInt, RejectsTrailingGarbageAndOverflow) {
  EXPECT_EQ(ParseInt("-12"), -12);
  EXPECT_EQ(ParseInt("12x"), std::nullopt);
  EXPECT_EQ(ParseInt(" 12"), std::nullopt);
  EXPECT_EQ(ParseInt("99999999999999999999"), std::nullopt);
}

TEST(PercentDecode, DecodesEscapesAndRejectsTruncatedOnes) {
  EXPECT_EQ(PercentDecode("My%20Project", false), "My Project");
  EXPECT_EQ(PercentDecode("776%2C779", false), "776,779");
  EXPECT_EQ(PercentDecode("a+b", true), "a b");
  EXPECT_EQ(PercentDecode("a+b", false), "a+b");
  EXPECT_EQ(PercentDecode("%4", false), std::nullopt);
  EXPECT_EQ(PercentDecode("%zz", false), std::nullopt);
  EXPECT_EQ(PercentDecode("%", false), std::nullopt);
}

TEST(Split, KeepsEmptyPieces) {
  EXPECT_EQ(Split("a,,b", ','), (std::vector<std::string>{"a", "", "b"}));
  EXPECT_EQ(Split("", ','), (std::vector<std::string>{""}));
}

}  // namespace
}  // namespace tessera
