// db/value.h
//
// One value of a statement parameter or a result cell, the same for SQLite and PostgreSQL: null,
// a 64-bit integer, a double, or text. Booleans are the integers 0 and 1; a BLOB reads as text.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

namespace tessera::db {

using Value = std::variant<std::monostate, int64_t, double, std::string>;

// Sets `cell` to `text`, reusing the cell's string buffer when it already holds text, so a row
// read again for every result row allocates nothing once its cells have grown.
void AssignText(Value& cell, std::string_view text);

// The shortest decimal text of an integer or a double value that reads back as the same number
// ("12", "0.1", "1e+300"). `value` must hold a number.
std::string FormatNumber(const Value& value);

}  // namespace tessera::db
