#include "engine/element_id.h"

#include "core/error.h"
#include "core/ids.h"
#include "core/strings.h"

namespace tessera::engine {

namespace {

[[noreturn]] void ThrowInvalid(std::string_view text) {
  throw Error(ErrorCode::kInvalidInput, "Invalid element id - " + std::string(text));
}

std::string EncodeKey(std::string_view key) {
  std::string out;
  for (unsigned char c : key) {
    if (c == ';' || c == '%' || c < 0x20 || c == 0x7f) {
      static constexpr char kHex[] = "0123456789ABCDEF";
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out;
}

std::string DecodeKey(std::string_view key, std::string_view whole) {
  auto decoded = PercentDecode(key, false);
  if (!decoded) ThrowInvalid(whole);
  return *decoded;
}

ElementId ParseHashForm(std::string_view text, const IsKnownAttribute& is_known) {
  std::vector<std::string> segments = Split(text.substr(1), ';');
  for (size_t i = segments.size(); i-- > 1;) {
    auto id = CanonicalObjectId(segments[i]);
    if (!id || !is_known(*id)) continue;
    std::string key;
    for (size_t k = 0; k < i; ++k) {
      if (k > 0) key += ';';
      key += DecodeKey(segments[k], text);
    }
    return {*id, key};
  }
  ThrowInvalid(text);
}

}  // namespace

ElementId ParseElementId(std::string_view text, const IsKnownAttribute& is_known) {
  if (text.size() > 1 && text[0] == 'h') return ParseHashForm(text, is_known);
  auto colon = text.find(':');
  if (colon == std::string_view::npos) ThrowInvalid(text);
  auto id = CanonicalObjectId(text.substr(0, colon));
  if (!id) ThrowInvalid(text);
  return {*id, DecodeKey(text.substr(colon + 1), text)};
}

std::string FormatElementId(const ElementId& element) {
  return "h" + EncodeKey(element.key) + ";" + element.attribute_id;
}

std::string FormatAttributeElementId(const ElementId& element) {
  return element.attribute_id + ":" + EncodeKey(element.key);
}

}  // namespace tessera::engine
