// app/json_log_formatter.h
//
// The `log.format = "json"` layout: one JSON object per line, for log collectors:
//   {"time":"2026-11-26T13:45:02.123Z","level":"info","thread":1234,"message":"..."}
// `time` is UTC with milliseconds; `message` is the text the plain layout would show, escaped
// (bytes that are not UTF-8 become U+FFFD), so a line is always valid JSON.
#pragma once

#include <spdlog/formatter.h>

#include <memory>

namespace tessera::app {

class JsonLogFormatter : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& message, spdlog::memory_buf_t& out) override;
  std::unique_ptr<spdlog::formatter> clone() const override;
};

}  // namespace tessera::app
