#include "storage/sql_connection.h"

#include <charconv>

namespace tessera::storage {

int64_t AsInt(const SqlValue& value) {
  if (std::holds_alternative<std::monostate>(value)) return 0;
  if (const auto* number = std::get_if<int64_t>(&value)) return *number;
  if (const auto* real = std::get_if<double>(&value)) return static_cast<int64_t>(*real);
  const auto& text = std::get<std::string>(value);
  int64_t parsed = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), parsed);
  if (error != std::errc() || end != text.data() + text.size()) {
    throw SqlError(SqlError::Kind::kOther, "expected an integer column, got '" + text + "'");
  }
  return parsed;
}

double AsDouble(const SqlValue& value) {
  if (std::holds_alternative<std::monostate>(value)) return 0;
  if (const auto* number = std::get_if<int64_t>(&value)) return static_cast<double>(*number);
  if (const auto* real = std::get_if<double>(&value)) return *real;
  const auto& text = std::get<std::string>(value);
  double parsed = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), parsed);
  if (error != std::errc() || end != text.data() + text.size()) {
    throw SqlError(SqlError::Kind::kOther, "expected a numeric column, got '" + text + "'");
  }
  return parsed;
}

std::string AsText(const SqlValue& value) {
  if (std::holds_alternative<std::monostate>(value)) return "";
  if (const auto* text = std::get_if<std::string>(&value)) return *text;
  throw SqlError(SqlError::Kind::kOther, "expected a text column, got a number");
}

Json AsJson(const SqlValue& value, std::string_view column) {
  Json json = Json::parse(AsText(value), nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) {
    throw SqlError(SqlError::Kind::kOther, std::string(column) + " holds invalid JSON");
  }
  return json;
}

}  // namespace tessera::storage
