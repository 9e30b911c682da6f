// core/json_scanner.h
//
// A cursor over JSON text for the hot paths that read large, plainly shaped documents (pushed
// rows, upload bodies) faster than a document or a SAX parse. It reads tokens one at a time and
// never reports an error: a Read or Consume that finds anything else than a well-formed token of
// the kind asked returns false, and the caller gives the whole text to the full parser
// (core/json.h), whose answer -- value or error -- is the one that counts.
//
// Contract: what the scanner accepts it reads exactly as nlohmann::json does.
//   - white space is space, tab, line feed and carriage return;
//   - a string has its escapes decoded (\uXXXX with surrogate pairs, as UTF-8); a control
//     character, an invalid escape, a lone surrogate or bytes that are not UTF-8 are refused;
//   - a number follows the JSON grammar; it is kInteger when it has a minus sign and no fraction
//     or exponent and fits int64, kUnsigned when it has neither sign, fraction nor exponent and
//     fits uint64, and otherwise kReal, the correctly rounded double (refused when not finite);
//     `token` is the number as written.
// A byte order mark, which nlohmann skips, is refused. Not thread-safe; cheap to make.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tessera {

struct JsonNumber {
  enum class Kind { kInteger, kUnsigned, kReal } kind = Kind::kInteger;
  int64_t integer = 0;
  uint64_t unsigned_integer = 0;
  double real = 0;
  std::string_view token;  // into the scanned text
};

class JsonScanner {
 public:
  explicit JsonScanner(std::string_view text) : text_(text) {}

  // Skips white space, then the character `c` if it is next.
  bool Consume(char c);
  // The next character after white space, or '\0' at the end.
  char PeekAfterSpace();
  // Whether only white space is left.
  bool AtEnd();

  // A string after white space. `value` views the text when the string has no escapes, else
  // `storage`, which then holds the decoded string.
  bool ReadString(std::string_view& value, std::string& storage);
  bool ReadNumber(JsonNumber& number);
  // `word` ("true", "false" or "null") after white space.
  bool ReadLiteral(std::string_view word);

 private:
  void SkipSpace();
  bool ReadEscape(std::string& out);
  bool ReadHex4(uint32_t& value);

  std::string_view text_;
  size_t at_ = 0;
};

}  // namespace tessera
