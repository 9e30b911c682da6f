#include "core/civil_time.h"

#include <gtest/gtest.h>

namespace tessera {
namespace {

std::string DateAndTime(std::string_view text) {
  const std::optional<CivilDateTime> parsed = ParseCivilDateTime(text);
  if (!parsed) return "refused";
  return FormatCivilDate(*parsed) + (parsed->has_time ? " " + FormatClockTime(parsed->time) : "");
}

std::string Clock(std::string_view text) {
  const std::optional<ClockTime> parsed = ParseClockTime(text);
  return parsed ? FormatClockTime(*parsed) : "refused";
}

TEST(CivilTime, DatesFollowTheCalendar) {
  EXPECT_EQ(DateAndTime("2024-02-29"), "2024-02-29");  // a leap year
  EXPECT_EQ(DateAndTime("2000-02-29"), "2000-02-29");  // divisible by 400
  EXPECT_EQ(DateAndTime("1900-02-29"), "refused");     // divisible by 100 only
  EXPECT_EQ(DateAndTime("2023-02-29"), "refused");
  EXPECT_EQ(DateAndTime("2023-04-31"), "refused");
  EXPECT_EQ(DateAndTime("2023-13-01"), "refused");
  EXPECT_EQ(DateAndTime("0000-01-01"), "refused");
  EXPECT_EQ(DateAndTime("2023-1-01"), "refused");
  EXPECT_EQ(DateAndTime("2023-01-01x"), "refused");
}

TEST(CivilTime, DateTimesTakeTOrASpaceAndAnOptionalZ) {
  EXPECT_EQ(DateAndTime("2024-03-05T07:08:09"), "2024-03-05 07:08:09");
  EXPECT_EQ(DateAndTime("2024-03-05 07:08:09Z"), "2024-03-05 07:08:09");
  EXPECT_EQ(DateAndTime("2024-03-05T07:08:09.5"), "2024-03-05 07:08:09.500");
  EXPECT_EQ(DateAndTime("2024-03-05T07:08"), "refused");
  EXPECT_EQ(DateAndTime("2024-03-05T07:08:09+01:00"), "refused");  // no zones: data, not instants
}

TEST(CivilTime, ClockTimesKeepMillisecondsOfAFractionOfUpToNineDigits) {
  EXPECT_EQ(Clock("23:59:59"), "23:59:59");
  EXPECT_EQ(Clock("00:00:00.000"), "00:00:00");
  EXPECT_EQ(Clock("12:34:56.789123456"), "12:34:56.789");
  EXPECT_EQ(Clock("12:34:56.0123456789"), "refused");  // ten digits
  EXPECT_EQ(Clock("12:34:56."), "refused");
  EXPECT_EQ(Clock("24:00:00"), "refused");
  EXPECT_EQ(Clock("12:60:00"), "refused");
  EXPECT_EQ(Clock("12:00:60"), "refused");
  EXPECT_EQ(Clock("12:00:00 "), "refused");
}

}  // namespace
}  // namespace tessera
