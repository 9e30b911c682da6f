// core/strings.h
//
// Small text helpers shared by every layer. Parsing functions are total: they return
// std::nullopt for text they do not accept instead of throwing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera {

std::string ToLower(std::string_view text);
std::string ToUpper(std::string_view text);
bool EqualsIgnoreCase(std::string_view a, std::string_view b);
bool ContainsIgnoreCase(std::string_view haystack, std::string_view needle);
bool StartsWithIgnoreCase(std::string_view text, std::string_view prefix);
bool EndsWithIgnoreCase(std::string_view text, std::string_view suffix);
std::string_view Trim(std::string_view text);

// Splits on `separator`; empty pieces are kept ("a,,b" -> {"a", "", "b"}).
std::vector<std::string> Split(std::string_view text, char separator);

// `text` cut to at most `max_chars` bytes (then ending in "...(N bytes)"), for logs and
// messages that quote what a client sent.
std::string Abbreviate(std::string_view text, size_t max_chars = 200);

// `text` in single quotes, as messages quote what a client sent: 'abc'.
std::string Quoted(std::string_view text);

// Appends `item` unless `items` holds it already (small lists: a linear search).
void AppendIfAbsent(std::vector<std::string>& items, const std::string& item);

std::string JoinStrings(const std::vector<std::string>& pieces, std::string_view separator);

// Booleans as real clients send them: true/True/TRUE/1 and false/False/FALSE/0.
std::optional<bool> ParseBool(std::string_view text);

// A whole decimal integer, optionally signed; no white space, no trailing garbage.
std::optional<int64_t> ParseInt(std::string_view text);

// Percent-decodes `text`; '+' stays '+' unless `plus_is_space`. nullopt on a malformed escape.
std::optional<std::string> PercentDecode(std::string_view text, bool plus_is_space);

std::string PercentEncode(std::string_view text);

}  // namespace tessera
