// core/json_writer.h
//
// A streaming JSON writer for result grids, which may hold millions of cells: no DOM is built. It
// appends compact JSON text to a string, placing commas itself, so callers write values in order:
// BeginObject(); Key("a"); Int(1); EndObject();
//
// Contract:
//   - Strings are escaped per RFC 8259; invalid UTF-8 bytes become U+FFFD, so the output is
//     always valid JSON text.
//   - Double() writes the shortest text that reads back as the same double; NaN and infinities
//     are written as null (JSON has no such numbers).
//   - Key() is only valid directly inside an object and must precede each member's value;
//     Raw() inserts an already-serialised JSON value as the next value.
//   - Misuse (a key outside an object, a value without a key in an object, unbalanced End...)
//     is a programming error, caught by assert in debug builds; the writer does not validate in
//     release builds.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tessera {

class JsonWriter {
 public:
  explicit JsonWriter(std::string& out) : out_(out) {}

  void BeginObject();
  void EndObject();
  void BeginArray();
  void EndArray();
  void Key(std::string_view key);

  void String(std::string_view value);
  void Int(int64_t value);
  void Double(double value);
  void Bool(bool value);
  void Null();
  void Raw(std::string_view json);

  // Appends `value` escaped, without quotes or separators.
  static void AppendEscaped(std::string& out, std::string_view value);

 private:
  enum class Scope : uint8_t { kObject, kArray };

  void BeforeValue();

  std::string& out_;
  std::vector<Scope> scopes_;
  std::vector<bool> first_;  // per scope: nothing written in it yet
  bool after_key_ = false;
};

}  // namespace tessera
