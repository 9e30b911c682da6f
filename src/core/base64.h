// core/base64.h
//
// Base64 of RFC 4648 §4 (the standard alphabet A-Z a-z 0-9 + /), as the datasets push API carries
// the chunks of a pushed table's rows. Decoding accepts text with or without "=" padding and
// ignores white space (spaces, tabs, line breaks) anywhere; any other character outside the
// alphabet, padding before the end, more than two "=" or a length that cannot be base64 (one
// character left over in the last group) makes it return std::nullopt. Bits left over after the
// last byte are ignored, as most encoders and decoders do. Encoding always pads.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tessera {

std::optional<std::string> DecodeBase64(std::string_view text);
std::string EncodeBase64(std::string_view bytes);

}  // namespace tessera
