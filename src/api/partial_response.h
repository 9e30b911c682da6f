// api/partial_response.h
//
// The general `fields` rule: a comma-separated list of root field names (the parameter may also
// repeat). Each name starts with a letter and holds only letters and digits; anything else is 400
// ERR006 with the reference server's message. An object keeps only the listed root fields, in the
// response's own order; an array applies that to each element.
#pragma once

#include <optional>
#include <set>
#include <string>

#include "core/json.h"
#include "http/message.h"

namespace tessera::api {

using FieldSelection = std::set<std::string, std::less<>>;

// nullopt when `fields` is absent or empty (full response). Throws Error(kInvalidInput).
std::optional<FieldSelection> ParseFieldsParameter(const http::QueryParams& query);

void ApplyFieldSelection(Json& body, const FieldSelection& fields);

}  // namespace tessera::api
