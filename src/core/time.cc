#include "core/time.h"

#include <cstdio>
#include <ctime>

#include "core/strings.h"

namespace tessera {

namespace {

std::optional<int> Digits(std::string_view text, size_t pos, size_t count) {
  if (pos + count > text.size()) return std::nullopt;
  int value = 0;
  for (size_t i = pos; i < pos + count; ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

// Offset text after the seconds/fraction: "Z", "+hhmm", "+hh:mm", "-hhmm", "-hh:mm".
std::optional<int> OffsetMinutes(std::string_view text) {
  if (text == "Z") return 0;
  if (text.size() != 5 && text.size() != 6) return std::nullopt;
  int sign = text[0] == '+' ? 1 : text[0] == '-' ? -1 : 0;
  if (sign == 0) return std::nullopt;
  auto hours = Digits(text, 1, 2);
  size_t minute_pos = text.size() == 6 ? 4 : 3;
  if (text.size() == 6 && text[3] != ':') return std::nullopt;
  auto minutes = Digits(text, minute_pos, 2);
  if (!hours || !minutes || *hours > 23 || *minutes > 59) return std::nullopt;
  return sign * (*hours * 60 + *minutes);
}

}  // namespace

Timestamp Now() { return std::chrono::time_point_cast<std::chrono::milliseconds>(Clock::now()); }

std::string FormatTimestamp(Timestamp at) {
  int64_t millis = at.time_since_epoch().count();
  int64_t seconds = millis / 1000;
  int64_t fraction = millis % 1000;
  if (fraction < 0) {
    fraction += 1000;
    seconds -= 1;
  }
  time_t t = static_cast<time_t>(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buffer[96];
  std::snprintf(buffer, sizeof buffer, "%04d-%02d-%02dT%02d:%02d:%02d.%03d+0000", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(fraction));
  return buffer;
}

std::optional<Timestamp> ParseTimestamp(std::string_view text) {
  // yyyy-MM-ddTHH:mm:ss
  if (text.size() < 20 || text[4] != '-' || text[7] != '-' || text[10] != 'T' || text[13] != ':' ||
      text[16] != ':') {
    return std::nullopt;
  }
  auto year = Digits(text, 0, 4), month = Digits(text, 5, 2), day = Digits(text, 8, 2);
  auto hour = Digits(text, 11, 2), minute = Digits(text, 14, 2), second = Digits(text, 17, 2);
  if (!year || !month || !day || !hour || !minute || !second) return std::nullopt;
  if (*month < 1 || *month > 12 || *day < 1 || *day > 31 || *hour > 23 || *minute > 59 ||
      *second > 60) {
    return std::nullopt;
  }
  size_t pos = 19;
  int millis = 0;
  if (text[pos] == '.') {
    size_t start = ++pos;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') ++pos;
    size_t count = pos - start;
    if (count == 0 || count > 9) return std::nullopt;
    auto fraction = Digits(text, start, count < 3 ? count : 3);
    millis = *fraction;
    for (size_t i = count; i < 3; ++i) millis *= 10;
  }
  auto offset = OffsetMinutes(text.substr(pos));
  if (!offset) return std::nullopt;

  std::chrono::year_month_day date{std::chrono::year(*year), std::chrono::month(*month),
                                   std::chrono::day(*day)};
  if (!date.ok()) return std::nullopt;
  auto days = std::chrono::sys_days(date);
  auto at = std::chrono::time_point_cast<std::chrono::milliseconds>(days) +
            std::chrono::hours(*hour) + std::chrono::minutes(*minute - *offset) +
            std::chrono::seconds(*second) + std::chrono::milliseconds(millis);
  return Timestamp(at.time_since_epoch());
}

int64_t ToUnixMillis(Timestamp at) { return at.time_since_epoch().count(); }

Timestamp FromUnixMillis(int64_t millis) { return Timestamp(std::chrono::milliseconds(millis)); }

}  // namespace tessera
