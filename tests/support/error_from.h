// tests/support/error_from.h
//
// The tessera::Error a call throws, for tests that check the code and message of a refusal:
// nullopt when the call returns (any other exception propagates).
#pragma once

#include <functional>
#include <optional>

#include "core/error.h"

namespace tessera::testing {

inline std::optional<Error> ErrorFrom(const std::function<void()>& call) {
  try {
    call();
  } catch (const Error& error) {
    return error;
  }
  return std::nullopt;
}

}  // namespace tessera::testing
