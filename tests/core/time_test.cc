#include "core/time.h"

#include <gtest/gtest.h>

namespace tessera {
namespace {

TEST(Timestamp, FormatsUtcWithThreeFractionDigitsAndPlusZeroOffset) {
  // 2024-03-05T14:07:09.120Z is 1709647629120 ms after the epoch (computed by `date -d ... +%s`).
  EXPECT_EQ(FormatTimestamp(FromUnixMillis(1709647629120)), "2024-03-05T14:07:09.120+0000");
}

TEST(Timestamp, ParsesEveryAcceptedInputForm) {
  const int64_t expected = 1709647629120;
  EXPECT_EQ(ToUnixMillis(*ParseTimestamp("2024-03-05T14:07:09.120+0000")), expected);
  EXPECT_EQ(ToUnixMillis(*ParseTimestamp("2024-03-05T14:07:09.120Z")), expected);
  EXPECT_EQ(ToUnixMillis(*ParseTimestamp("2024-03-05T16:07:09.120+02:00")), expected);
  EXPECT_EQ(ToUnixMillis(*ParseTimestamp("2024-03-05T10:07:09.120-0400")), expected);
  EXPECT_EQ(ToUnixMillis(*ParseTimestamp("2024-03-05T14:07:09Z")), expected - 120);
}

TEST(Timestamp, RejectsMalformedText) {
  EXPECT_FALSE(ParseTimestamp("2024-03-05 14:07:09Z"));
  EXPECT_FALSE(ParseTimestamp("2024-02-30T14:07:09Z"));
  EXPECT_FALSE(ParseTimestamp("2024-03-05T14:07:09"));
  EXPECT_FALSE(ParseTimestamp("2024-03-05T14:07:09.Z"));
  EXPECT_FALSE(ParseTimestamp("garbage"));
}

}  // namespace
}  // namespace tessera
