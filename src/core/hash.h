// core/hash.h
//
// Digests: SHA-256 over bytes, as raw bytes or as hex text.
#pragma once

#include <string>
#include <string_view>

namespace tessera {

std::string Sha256(std::string_view data);
std::string HexEncode(std::string_view bytes, bool upper_case);
std::string Sha256Hex(std::string_view data);  // lower case, 64 characters

}  // namespace tessera
