#include "core/ids.h"

#include <cctype>

#include "core/error.h"
#include "core/hash.h"
#include "core/random.h"
#include "core/strings.h"

namespace tessera {

bool IsObjectId(std::string_view text) {
  if (text.size() != 32) return false;
  for (unsigned char c : text) {
    if (!std::isxdigit(c)) return false;
  }
  return true;
}

std::optional<std::string> CanonicalObjectId(std::string_view text) {
  if (!IsObjectId(text)) return std::nullopt;
  return ToUpper(text);
}

std::string RequireObjectId(std::string_view text, std::string_view where) {
  if (auto id = CanonicalObjectId(text)) return *id;
  throw Error(ErrorCode::kInvalidInput, std::string(where) + ": '" + Abbreviate(text, 64) +
                                            "' is not an object id; expected 32 hexadecimal "
                                            "characters");
}

std::string NewObjectId() { return HexEncode(RandomBytes(16), true); }

std::string NewTicketId() { return HexEncode(RandomBytes(16), false); }

std::string NewAuthToken() { return RandomString(26, "abcdefghijklmnopqrstuvwxyz234567"); }

std::string DeterministicObjectId(std::string_view seed) {
  return HexEncode(Sha256(seed).substr(0, 16), true);
}

}  // namespace tessera
