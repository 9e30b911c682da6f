// core/json.h
//
// JSON documents for requests, definitions and packages. Json keeps keys in insertion order, so
// a response lists its fields in the order the code writes them (the order clients show them).
// Helpers here read request bodies and throw Error(kInvalidInput / kMissingField) naming the
// offending field.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera {

using Json = nlohmann::ordered_json;

// Documents from outside nest at most this deep (objects and arrays), so nothing that walks them
// recursively can run out of stack.
inline constexpr int kMaxJsonDepth = 256;

// Parses a request body; throws Error(kInvalidInput, "Invalid JSON: ...") on malformed text, a
// number out of range, or nesting deeper than kMaxJsonDepth. Messages quote at most a short
// prefix of the input.
Json ParseJson(std::string_view text);

// The parser callback behind ParseJson's depth limit, calling `inner` (if any) for what it
// lets through; and the Error(kInvalidInput) that a parser's exception becomes.
Json::parser_callback_t DepthLimitedCallback(Json::parser_callback_t inner = nullptr);
[[noreturn]] void ThrowInvalidJson(const std::exception& parse_failure);

// Parses like ParseJson, except that the elements of the array at `array_path` (the object keys
// leading to it from the root) go to `on_element` one by one as they are parsed and are not kept:
// the document holds an empty array there, so a long list never exists whole. Returns whether
// such an array was found (false when the path is absent or holds something else, which the
// document then keeps). An exception from `on_element` ends the parse and propagates.
struct StreamedArray {
  Json document;
  bool found = false;
};
StreamedArray ParseJsonStreamingArray(std::string_view text,
                                      const std::vector<std::string>& array_path,
                                      const std::function<void(Json element)>& on_element);

// Serialises compactly; invalid UTF-8 in strings is replaced rather than thrown.
std::string DumpJson(const Json& value);

// Field paths name a value of a request body in messages: MemberPath("body", "a") is "body.a"
// (MemberPath("", "a") is "a"), ElementPath("body.a", 3) is "body.a[3]".
std::string MemberPath(std::string_view path, std::string_view key);
std::string ElementPath(std::string_view path, size_t index);

// `object[key]`, or nullptr when `object` is not an object or the member is absent or null (the
// Python client drops None values, so null means absent).
const Json* FindMember(const Json& object, std::string_view key);

// Error(kInvalidInput) "<path>: <what>"; Error(kMissingField) "<path>: required field is missing".
[[noreturn]] void FailAt(std::string_view path, std::string_view what);
[[noreturn]] void FailMissingAt(std::string_view path);

// Checks of a value already found at `path`: the value, or Error(kInvalidInput) "<path>: expected
// an object" (a string, an integer, true or false; "an array", or "an array of <items>" when
// `items` says what it holds).
const Json& ExpectObject(const Json& value, std::string_view path);
const Json& ExpectArray(const Json& value, std::string_view path, std::string_view items = {});
const std::string& ExpectString(const Json& value, std::string_view path);
int64_t ExpectInt(const Json& value, std::string_view path);
bool ExpectBool(const Json& value, std::string_view path);

// Field readers for request bodies. `path` names the field in messages ("body.loginMode").
std::optional<std::string> OptionalString(const Json& object, std::string_view key,
                                          std::string_view path);
std::string RequiredString(const Json& object, std::string_view key, std::string_view path);
std::optional<bool> OptionalBool(const Json& object, std::string_view key, std::string_view path);
std::optional<int64_t> OptionalInt(const Json& object, std::string_view key, std::string_view path);
// `object[key]` when it is an object; an empty object when absent or null (so reads of its members
// find nothing); Error(kInvalidInput) "<path>.<key>: expected an object" otherwise.
const Json& ObjectOrEmpty(const Json& object, std::string_view key, std::string_view path);

// Refuses a key of `object` that is not in `accepted` with Error(kInvalidInput) naming it and
// listing the accepted keys: "'viewFiltr' is not a key of <what>; accepted keys: a, b, c". A
// value that is not an object passes (its shape is the caller's to check).
void RequireKnownKeys(const Json& object, const std::vector<std::string_view>& accepted,
                      std::string_view what);

}  // namespace tessera
