// engine/element_id.h
//
// Element ids name one element of one attribute in requests and responses:
// "h<ID form value>;<attribute id>[;<display text>]" (minted by Tessera) and
// "<attribute id>:<ID form value>" (what the Python client sends). Values are percent-encoded
// for ';', '%' and control characters. In the "h" form the attribute id is the last segment that
// is 32 hex characters and names a known attribute; segments after it are ignored.
// Parsing is total: it yields an ElementId or throws Error(kInvalidInput,
// "Invalid element id - <text>").
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace tessera::engine {

struct ElementId {
  std::string attribute_id;  // canonical upper case
  std::string key;           // the ID form's value, as text (decoded)
};

using IsKnownAttribute = std::function<bool(const std::string& attribute_id)>;

ElementId ParseElementId(std::string_view text, const IsKnownAttribute& is_known);
std::string FormatElementId(const ElementId& element);  // always the "h" form
// The "<attribute id>:<ID form value>" form of attribute element listings, which ParseElementId
// reads back.
std::string FormatAttributeElementId(const ElementId& element);

}  // namespace tessera::engine
