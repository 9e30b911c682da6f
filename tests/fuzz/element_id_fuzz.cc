// Fuzz harness: element ids (engine/element_id.h), as requests carry them in view filters,
// dashboard filters and element listings.
//
// Contract checked: ParseElementId either yields an ElementId or throws Error(kInvalidInput);
// nothing else escapes. What it yields names a known attribute, and both printed forms of it
// parse back to the same element.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "core/error.h"
#include "engine/element_id.h"
#include "fuzz/fuzz_support.h"

namespace {

using tessera::engine::ElementId;

const std::set<std::string>& KnownAttributes() {
  static const std::set<std::string> known = {"8D679D3711D3E4981000E787EC6DE8A4",
                                              "A0000000000000000000000000000001"};
  return known;
}

bool IsKnown(const std::string& id) { return KnownAttributes().contains(id); }

ElementId Reparse(const std::string& text, std::string_view form) {
  try {
    return tessera::engine::ParseElementId(text, IsKnown);
  } catch (const tessera::Error& error) {
    tessera::fuzz::Finding("a printed element id does not parse",
                           std::string(form) + " form '" + text + "': " + error.what());
  }
}

void ExpectSame(const ElementId& parsed, const ElementId& again, const std::string& text) {
  if (again.attribute_id != parsed.attribute_id || again.key != parsed.key) {
    tessera::fuzz::Finding("an element id does not round-trip", text);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  ElementId parsed;
  try {
    parsed = tessera::engine::ParseElementId(text, IsKnown);
  } catch (const tessera::Error& error) {
    if (error.code() != tessera::ErrorCode::kInvalidInput) {
      tessera::fuzz::Finding("ParseElementId threw another error code", error.what());
    }
    return 0;
  }
  if (!IsKnown(parsed.attribute_id) && text.starts_with('h')) {
    tessera::fuzz::Finding("a parsed element id names an unknown attribute", parsed.attribute_id);
  }
  const std::string hash_form = tessera::engine::FormatElementId(parsed);
  const std::string colon_form = tessera::engine::FormatAttributeElementId(parsed);
  if (IsKnown(parsed.attribute_id)) {
    ExpectSame(parsed, Reparse(hash_form, "h"), hash_form);
  }
  ExpectSame(parsed, Reparse(colon_form, "colon"), colon_form);
  return 0;
}
