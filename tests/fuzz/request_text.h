// tests/fuzz/request_text.h
//
// The text form of a request in the API harness's inputs, close to HTTP/1.1 so that seeds read
// like the requests they stand for:
//
//   POST /api/v2/reports/${Revenue by Year}/instances?limit=10
//   Content-Type: application/json
//
//   {"viewFilter": {...}}
//
// The first line is the method and the target (path and query, as sent: percent-encoded); header
// lines "Name: value" follow up to an empty line; the rest is the body, as is. `${name}` anywhere
// is replaced by `names`' value for it (an object's id, a token...); an unknown name stays as
// written. A line without a method and a target, or a header line without a colon, makes the
// input unusable (nullopt): the harness skips it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "http/message.h"

namespace tessera::fuzz {

using Names = std::map<std::string, std::string, std::less<>>;

std::optional<http::Request> ParseRequestText(std::string_view text, const Names& names);

// `text` with every known ${name} replaced.
std::string SubstituteNames(std::string_view text, const Names& names);

}  // namespace tessera::fuzz
