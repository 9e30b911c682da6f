// core/time.h
//
// Timestamps. Tessera emits every timestamp in UTC as "yyyy-MM-ddTHH:mm:ss.SSS+0000". On input it
// accepts that format, the same with "Z" or any "+hh:mm", "+hhmm", "-hhmm" offset, and
// "yyyy-MM-ddTHH:mm:ssZ" without a fraction. Dates and times without a zone are core/civil_time's.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tessera {

using Clock = std::chrono::system_clock;
using Timestamp = std::chrono::time_point<Clock, std::chrono::milliseconds>;

Timestamp Now();
std::string FormatTimestamp(Timestamp at);
std::optional<Timestamp> ParseTimestamp(std::string_view text);

int64_t ToUnixMillis(Timestamp at);
Timestamp FromUnixMillis(int64_t millis);

}  // namespace tessera
