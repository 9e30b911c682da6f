#include "core/civil_time.h"

#include <gtest/gtest.h>

namespace tessera {
namespace {

std::string DateAndTime(std::string_view text) {
  const std::optional<CivilDateTime> parsed = ParseCivilDateTime(text);
  if (!parsed) return "refused";
  return parsed->has_time ? FormatCivilDateTime(*parsed) : FormatCivilDate(*parsed);
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

TEST(CivilTime, ADateTimeOfADateAloneIsAtMidnight) {
  EXPECT_EQ(FormatCivilDateTime(*ParseCivilDateTime("2024-05-01")), "2024-05-01 00:00:00");
  EXPECT_EQ(FormatCivilDateTime(*ParseCivilDateTime("2024-05-01T10:00:00.25")),
            "2024-05-01 10:00:00.250");
}

std::string Normalized(std::string_view text) { return NormalizeDate(text).value_or("refused"); }

TEST(CivilTime, LooseDatesAreIsoOrMonthDayYear) {
  EXPECT_EQ(Normalized("2024-05-01"), "2024-05-01");
  EXPECT_EQ(Normalized("2024-5-1"), "2024-05-01");
  EXPECT_EQ(Normalized("5/1/2024"), "2024-05-01");
  EXPECT_EQ(Normalized("12/31/1999"), "1999-12-31");
  EXPECT_EQ(Normalized("2023-02-31"), "2023-02-31");  // days are checked against 31 only
  EXPECT_EQ(Normalized("2024-13-01"), "refused");
  EXPECT_EQ(Normalized("2024-05-00"), "refused");
  EXPECT_EQ(Normalized("0000-05-01"), "refused");
  EXPECT_EQ(Normalized("2024-05-01T00:00:00"), "refused");
  EXPECT_EQ(Normalized("May 1, 2024"), "refused");
  EXPECT_EQ(Normalized(""), "refused");
}

TEST(CivilTime, FormatsADateWithAFourDigitYearAndTwoDigitMonthAndDay) {
  EXPECT_EQ(FormatCivilDate(CivilDateTime{.year = 2024, .month = 5, .day = 1, .time = {}}),
            "2024-05-01");
  EXPECT_EQ(FormatCivilDate(CivilDateTime{.year = 5, .month = 12, .day = 31, .time = {}}),
            "0005-12-31");
  EXPECT_EQ(FormatCivilDate(CivilDateTime{.year = 9999, .month = 10, .day = 9, .time = {}}),
            "9999-10-09");
  EXPECT_EQ(FormatCivilDate(CivilDateTime{.year = 12345, .month = 1, .day = 1, .time = {}}),
            "12345-01-01");
}

}  // namespace
}  // namespace tessera
