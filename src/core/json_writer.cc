#include "core/json_writer.h"

#include <array>
#include <cassert>
#include <charconv>
#include <cmath>

namespace tessera {
namespace {

constexpr char kHex[] = "0123456789abcdef";
constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Length of the valid UTF-8 sequence starting at text[i], or 0 when it is not one.
size_t Utf8Length(std::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  size_t length = 0;
  uint32_t code = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
    code = lead & 0x1F;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    code = lead & 0x0F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    code = lead & 0x07;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  for (size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    code = code << 6 | (byte(i + k) & 0x3F);
  }
  const bool overlong = (length == 3 && code < 0x800) || (length == 4 && code < 0x10000);
  const bool surrogate = code >= 0xD800 && code <= 0xDFFF;
  if (overlong || surrogate || code > 0x10FFFF) return 0;
  return length;
}

void AppendControl(std::string& out, unsigned char c) {
  switch (c) {
    case '\b':
      out += "\\b";
      return;
    case '\f':
      out += "\\f";
      return;
    case '\n':
      out += "\\n";
      return;
    case '\r':
      out += "\\r";
      return;
    case '\t':
      out += "\\t";
      return;
    default:
      out += "\\u00";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
  }
}

}  // namespace

void JsonWriter::AppendEscaped(std::string& out, std::string_view value) {
  size_t i = 0;
  while (i < value.size()) {
    const unsigned char c = static_cast<unsigned char>(value[i]);
    if (c >= 0x80) {
      const size_t length = Utf8Length(value, i);
      if (length == 0) {
        out += kReplacement;
        ++i;
      } else {
        out.append(value.substr(i, length));
        i += length;
      }
      continue;
    }
    if (c < 0x20) {
      AppendControl(out, c);
    } else if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back(static_cast<char>(c));
    }
    ++i;
  }
}

void JsonWriter::BeforeValue() {
  if (scopes_.empty()) return;
  if (scopes_.back() == Scope::kObject) {
    assert(after_key_ && "a value in an object needs a key");
    after_key_ = false;
    return;
  }
  if (!first_.back()) out_.push_back(',');
  first_.back() = false;
}

void JsonWriter::BeginObject() {
  BeforeValue();
  out_.push_back('{');
  scopes_.push_back(Scope::kObject);
  first_.push_back(true);
}

void JsonWriter::EndObject() {
  assert(!scopes_.empty() && scopes_.back() == Scope::kObject && !after_key_);
  out_.push_back('}');
  scopes_.pop_back();
  first_.pop_back();
}

void JsonWriter::BeginArray() {
  BeforeValue();
  out_.push_back('[');
  scopes_.push_back(Scope::kArray);
  first_.push_back(true);
}

void JsonWriter::EndArray() {
  assert(!scopes_.empty() && scopes_.back() == Scope::kArray);
  out_.push_back(']');
  scopes_.pop_back();
  first_.pop_back();
}

void JsonWriter::Key(std::string_view key) {
  assert(!scopes_.empty() && scopes_.back() == Scope::kObject && !after_key_);
  if (!first_.back()) out_.push_back(',');
  first_.back() = false;
  out_.push_back('"');
  AppendEscaped(out_, key);
  out_ += "\":";
  after_key_ = true;
}

void JsonWriter::String(std::string_view value) {
  BeforeValue();
  out_.push_back('"');
  AppendEscaped(out_, value);
  out_.push_back('"');
}

void JsonWriter::Int(int64_t value) {
  BeforeValue();
  std::array<char, 24> buffer;
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  out_.append(buffer.data(), result.ptr);
}

void JsonWriter::Double(double value) {
  if (!std::isfinite(value)) {
    Null();
    return;
  }
  BeforeValue();
  std::array<char, 32> buffer;
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  out_.append(buffer.data(), result.ptr);
}

void JsonWriter::Bool(bool value) {
  BeforeValue();
  out_ += value ? "true" : "false";
}

void JsonWriter::Null() {
  BeforeValue();
  out_ += "null";
}

void JsonWriter::Raw(std::string_view json) {
  BeforeValue();
  out_.append(json);
}

}  // namespace tessera
