// model/package/id_repointing.h
//
// Re-pointing references after keep_both saved objects under new ids: every occurrence of an old id
// in a definition — a whole string value, part of a longer string such as an element id
// "h2024;<id>" or an expression "[<id>] - [<id>]", or an object key — becomes the new id. An
// occurrence is a run of exactly 32 hexadecimal characters: a run that is part of a longer hex run
// ("C<id>", "<id>0") is something else and stays as it is. Runs match the map case-insensitively
// and the replacement is written as given (upper case). Numbers, booleans and nulls are untouched.
// When a renamed key meets a key that already holds the new id, the later member in document order
// wins.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>

#include "core/json.h"

namespace tessera::model::package {

// `old_to_new` maps old id -> new id; keys may be in any case.
Json Repoint(const Json& definition, const std::map<std::string, std::string>& old_to_new);

// The same with the map looked up where it is kept: `new_id_of` gets an upper-case id and gives
// its new id, or nullopt when it keeps its id.
using NewIdOf = std::function<std::optional<std::string>(const std::string& upper_id)>;
Json RepointWith(const Json& definition, const NewIdOf& new_id_of);

}  // namespace tessera::model::package
