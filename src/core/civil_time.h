// core/civil_time.h
//
// Dates and clock times as data carries them, with no time zone (pushed datasets' DATE, TIME and
// DATETIME columns): "yyyy-MM-dd"; "HH:mm:ss" with an optional fraction of 1 to 9 digits, kept
// to milliseconds; and the two joined by "T" or a space, optionally ending in "Z". Parsing checks
// the calendar (month lengths, leap years) and the clock (00:00:00 to 23:59:59) and takes the
// whole text or nothing. Formatting gives one text per value, so texts sort as their values do:
// "yyyy-MM-dd", "HH:mm:ss" or "HH:mm:ss.SSS" when there are milliseconds, and the two joined by a
// space. Timestamps (instants in UTC) are core/time's.
//
// Filter constants and element keys name dates more loosely (NormalizeDate): "yyyy-MM-dd" or
// "M/d/yyyy", with a month of 1 to 12 and a day of 1 to 31 whatever the month.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tessera {

struct ClockTime {
  int hour = 0, minute = 0, second = 0, millis = 0;
};

struct CivilDateTime {
  int year = 0, month = 0, day = 0;
  bool has_time = false;
  ClockTime time;  // midnight without a time
};

std::optional<ClockTime> ParseClockTime(std::string_view text);
// A date, or a date and a time.
std::optional<CivilDateTime> ParseCivilDateTime(std::string_view text);

std::string FormatClockTime(const ClockTime& time);
std::string FormatCivilDate(const CivilDateTime& date);
// The date and its time, midnight for a date without one: "2024-05-01 00:00:00".
std::string FormatCivilDateTime(const CivilDateTime& date);

// "yyyy-MM-dd" for a loosely written date ("2024-5-1", "5/1/2024"); nullopt for anything else.
std::optional<std::string> NormalizeDate(std::string_view text);

}  // namespace tessera
