#include "db/value.h"

#include <charconv>

namespace tessera::db {

void AssignText(Value& cell, std::string_view text) {
  if (auto* existing = std::get_if<std::string>(&cell)) {
    existing->assign(text);
  } else {
    cell = std::string(text);
  }
}

std::string FormatNumber(const Value& value) {
  char buffer[64];
  char* end = buffer;
  if (const auto* number = std::get_if<int64_t>(&value)) {
    end = std::to_chars(buffer, buffer + sizeof buffer, *number).ptr;
  } else {
    end = std::to_chars(buffer, buffer + sizeof buffer, std::get<double>(value)).ptr;
  }
  return std::string(buffer, end);
}

}  // namespace tessera::db
