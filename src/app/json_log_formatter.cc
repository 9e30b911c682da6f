#include "app/json_log_formatter.h"

#include <fmt/chrono.h>
#include <spdlog/details/log_msg.h>

#include <chrono>
#include <string>

#include "core/json.h"

namespace tessera::app {
namespace {

std::string UtcTime(std::chrono::system_clock::time_point time) {
  const auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(time.time_since_epoch()).count() % 1000;
  return fmt::format("{:%Y-%m-%dT%H:%M:%S}.{:03}Z",
                     fmt::gmtime(std::chrono::system_clock::to_time_t(time)), millis);
}

}  // namespace

void JsonLogFormatter::format(const spdlog::details::log_msg& message, spdlog::memory_buf_t& out) {
  Json line = {{"time", UtcTime(message.time)},
               {"level", std::string(spdlog::level::to_string_view(message.level).data(),
                                     spdlog::level::to_string_view(message.level).size())},
               {"thread", message.thread_id},
               {"message", std::string(message.payload.data(), message.payload.size())}};
  const std::string text = line.dump(-1, ' ', false, Json::error_handler_t::replace);
  out.append(text.data(), text.data() + text.size());
  out.push_back('\n');
}

std::unique_ptr<spdlog::formatter> JsonLogFormatter::clone() const {
  return std::make_unique<JsonLogFormatter>();
}

}  // namespace tessera::app
