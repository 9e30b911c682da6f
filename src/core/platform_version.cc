#include "core/platform_version.h"

#include <charconv>

#include "core/error.h"
#include "core/strings.h"

namespace tessera {

namespace {

[[noreturn]] void Refuse(std::string_view text, std::string_view reason) {
  throw Error(ErrorCode::kInvalidInput, "'" + std::string(text) +
                                            "' is not a platform version: " + std::string(reason) +
                                            "; expected 1 to 4 numbers separated by dots, such "
                                            "as 11.6.0200.0001");
}

uint64_t ParseComponent(std::string_view text, std::string_view component) {
  if (component.empty()) Refuse(text, "a component is empty");
  uint64_t value = 0;
  const char* end = component.data() + component.size();
  auto [stop, error] = std::from_chars(component.data(), end, value);
  if (error == std::errc::result_out_of_range) Refuse(text, "a component is too large");
  if (error != std::errc() || stop != end) {
    Refuse(text, Quoted(component) + " is not a non-negative integer");
  }
  return value;
}

}  // namespace

PlatformVersion ParsePlatformVersion(std::string_view text) {
  PlatformVersion version;
  size_t count = 0;
  size_t start = 0;
  while (true) {
    size_t dot = text.find('.', start);
    std::string_view component =
        text.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (count == version.components.size()) Refuse(text, "more than 4 components");
    version.components[count++] = ParseComponent(text, component);
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return version;
}

std::string Format(const PlatformVersion& version) {
  std::string text;
  for (uint64_t component : version.components) {
    if (!text.empty()) text += '.';
    text += std::to_string(component);
  }
  return text;
}

}  // namespace tessera
