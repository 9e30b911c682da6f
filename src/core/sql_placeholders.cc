#include "core/sql_placeholders.h"

#include <optional>

namespace tessera {

std::string NumberPostgresPlaceholders(std::string_view sql) {
  std::string out;
  out.reserve(sql.size() + 16);
  int next = 1;
  std::optional<char> quote;  // the quote character of the literal or identifier we are inside
  for (char c : sql) {
    if (quote) {
      if (c == *quote) quote.reset();  // a doubled quote closes and reopens: same result
      out += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      out += c;
    } else if (c == '?') {
      out += '$' + std::to_string(next++);
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace tessera
