#include "core/civil_time.h"

#include <cstdio>

namespace tessera {
namespace {

bool ReadDigits(std::string_view text, size_t& at, size_t count, int& value) {
  if (at + count > text.size()) return false;
  value = 0;
  for (size_t i = 0; i < count; ++i) {
    const char c = text[at + i];
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  at += count;
  return true;
}

bool ReadChar(std::string_view text, size_t& at, char expected) {
  if (at >= text.size() || text[at] != expected) return false;
  ++at;
  return true;
}

bool IsLeapYear(int year) { return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0; }

int DaysInMonth(int year, int month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && IsLeapYear(year) ? 29 : kDays[month - 1];
}

// "HH:mm:ss" and an optional fraction of 1 to 9 digits, from `at`.
bool ReadClockTime(std::string_view text, size_t& at, ClockTime& time) {
  if (!ReadDigits(text, at, 2, time.hour) || !ReadChar(text, at, ':') ||
      !ReadDigits(text, at, 2, time.minute) || !ReadChar(text, at, ':') ||
      !ReadDigits(text, at, 2, time.second)) {
    return false;
  }
  if (time.hour > 23 || time.minute > 59 || time.second > 59) return false;
  time.millis = 0;
  if (ReadChar(text, at, '.')) {
    size_t digits = 0;
    int millis = 0;
    while (at < text.size() && text[at] >= '0' && text[at] <= '9') {
      if (digits < 3) millis = millis * 10 + (text[at] - '0');
      ++digits;
      ++at;
    }
    if (digits == 0 || digits > 9) return false;
    for (size_t i = digits; i < 3; ++i) millis *= 10;
    time.millis = millis;
  }
  return true;
}

}  // namespace

std::optional<ClockTime> ParseClockTime(std::string_view text) {
  ClockTime time;
  size_t at = 0;
  if (!ReadClockTime(text, at, time) || at != text.size()) return std::nullopt;
  return time;
}

std::optional<CivilDateTime> ParseCivilDateTime(std::string_view text) {
  CivilDateTime parts;
  size_t at = 0;
  if (!ReadDigits(text, at, 4, parts.year) || !ReadChar(text, at, '-') ||
      !ReadDigits(text, at, 2, parts.month) || !ReadChar(text, at, '-') ||
      !ReadDigits(text, at, 2, parts.day)) {
    return std::nullopt;
  }
  if (parts.year < 1 || parts.month < 1 || parts.month > 12 || parts.day < 1 ||
      parts.day > DaysInMonth(parts.year, parts.month)) {
    return std::nullopt;
  }
  if (at == text.size()) return parts;
  if (text[at] != 'T' && text[at] != ' ') return std::nullopt;
  ++at;
  if (!ReadClockTime(text, at, parts.time)) return std::nullopt;
  parts.has_time = true;
  ReadChar(text, at, 'Z');
  if (at != text.size()) return std::nullopt;
  return parts;
}

std::string FormatClockTime(const ClockTime& time) {
  char buffer[32];
  if (time.millis != 0) {
    std::snprintf(buffer, sizeof buffer, "%02d:%02d:%02d.%03d", time.hour, time.minute, time.second,
                  time.millis);
  } else {
    std::snprintf(buffer, sizeof buffer, "%02d:%02d:%02d", time.hour, time.minute, time.second);
  }
  return buffer;
}

std::string FormatCivilDate(const CivilDateTime& parts) {
  const bool is_plain = parts.year >= 0 && parts.year <= 9999 && parts.month >= 0 &&
                        parts.month <= 99 && parts.day >= 0 && parts.day <= 99;
  if (is_plain) {  // a million pushed dates are formatted here: without snprintf
    const auto digit = [](int value) { return static_cast<char>('0' + value % 10); };
    return {digit(parts.year / 1000),
            digit(parts.year / 100),
            digit(parts.year / 10),
            digit(parts.year),
            '-',
            digit(parts.month / 10),
            digit(parts.month),
            '-',
            digit(parts.day / 10),
            digit(parts.day)};
  }
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "%04d-%02d-%02d", parts.year, parts.month, parts.day);
  return buffer;
}

std::string FormatCivilDateTime(const CivilDateTime& date) {
  return FormatCivilDate(date) + " " + FormatClockTime(date.time);
}

std::optional<std::string> NormalizeDate(std::string_view text) {
  int year = 0, month = 0, day = 0;
  char extra = 0;
  const std::string copy(text);
  if (std::sscanf(copy.c_str(), "%4d-%2d-%2d%c", &year, &month, &day, &extra) != 3 &&
      std::sscanf(copy.c_str(), "%2d/%2d/%4d%c", &month, &day, &year, &extra) != 3) {
    return std::nullopt;
  }
  if (month < 1 || month > 12 || day < 1 || day > 31 || year < 1) return std::nullopt;
  CivilDateTime date;
  date.year = year;
  date.month = month;
  date.day = day;
  return FormatCivilDate(date);
}

}  // namespace tessera
