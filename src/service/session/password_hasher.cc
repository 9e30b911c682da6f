#include "service/session/password_hasher.h"

#include <argon2.h>

#include "core/error.h"
#include "core/random.h"

namespace tessera::service::session {

namespace {

// OWASP's minimum for Argon2id: 19 MiB, 2 passes, 1 lane.
constexpr uint32_t kTimeCost = 2;
constexpr uint32_t kMemoryKib = 19 * 1024;
constexpr uint32_t kLanes = 1;
constexpr size_t kSaltBytes = 16;
constexpr size_t kHashBytes = 32;

}  // namespace

std::string HashPassword(std::string_view password) {
  if (password.empty()) return "";
  std::string salt = RandomBytes(kSaltBytes);
  size_t encoded_length =
      argon2_encodedlen(kTimeCost, kMemoryKib, kLanes, kSaltBytes, kHashBytes, Argon2_id);
  std::string encoded(encoded_length, '\0');
  int rc =
      argon2id_hash_encoded(kTimeCost, kMemoryKib, kLanes, password.data(), password.size(),
                            salt.data(), salt.size(), kHashBytes, encoded.data(), encoded.size());
  if (rc != ARGON2_OK) {
    throw Error(ErrorCode::kInternal,
                std::string("password hashing failed: ") + argon2_error_message(rc));
  }
  encoded.resize(encoded.find('\0'));
  return encoded;
}

bool VerifyPassword(std::string_view encoded_hash, std::string_view password) {
  if (encoded_hash.empty()) return password.empty();
  if (password.empty()) return false;
  std::string encoded(encoded_hash);
  return argon2id_verify(encoded.c_str(), password.data(), password.size()) == ARGON2_OK;
}

}  // namespace tessera::service::session
