// core/json.h
//
// JSON documents for requests, definitions and packages. Json keeps keys in insertion order, so
// responses list fields in the order the spec shows them. Helpers here read request bodies and
// throw Error(kInvalidInput / kMissingField) naming the offending field.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace tessera {

using Json = nlohmann::ordered_json;

// Parses a request body; throws Error(kInvalidInput, "Invalid JSON: ...") on malformed text.
Json ParseJson(std::string_view text);

// Serialises compactly; invalid UTF-8 in strings is replaced rather than thrown.
std::string DumpJson(const Json& value);

// Field readers for request bodies. `path` names the field in messages ("body.loginMode").
std::optional<std::string> OptionalString(const Json& object, std::string_view key,
                                          std::string_view path);
std::string RequiredString(const Json& object, std::string_view key, std::string_view path);
std::optional<bool> OptionalBool(const Json& object, std::string_view key, std::string_view path);
std::optional<int64_t> OptionalInt(const Json& object, std::string_view key, std::string_view path);

}  // namespace tessera
