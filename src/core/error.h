// core/error.h
//
// The one error type that crosses layers. Code throws tessera::Error where a failure is found;
// only api/ catches it and maps the code to an HTTP status and a JSON error body
// (api/error_response.h). The message is written for the person who made the request: what was
// wrong and what is accepted. Anything else that escapes a handler is a fault (500) and a bug.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace tessera {

// Meanings, not statuses: api/ decides the status of each.
enum class ErrorCode {
  kInternal,                // ERR001, a fault
  kEngine,                  // ERR002
  kAuthenticationFailed,    // ERR003
  kLoginModeDisabled,       // ERR001 with 401: a login mode this server does not accept
  kNotFound,                // ERR004
  kMissingParameter,        // ERR005 (header or query parameter)
  kInvalidInput,            // ERR006
  kMissingField,            // ERR007 (JSON body)
  kSessionInvalid,          // ERR009
  kNotSupported,            // ERR010
  kEngineUnreachable,       // ERR013
  kInsufficientPrivileges,  // ERR014
  kAlreadyExists,           // ERR015
  kStorageUnavailable,      // ERR016, the storage service cannot be used
  kServiceUnavailable,      // ERR016, another required service is not configured
  kAccessDenied,            // ERR017, the object's ACL refuses
  kPayloadTooLarge,         // ERR006 with 413
  kTimeout,                 // ERR001 with 503-class meaning: the request took too long
  kNothingToDelete,         // ERR006 with 404: deleting what is gone (a migration package)
  kTooManyRequests,         // ERR003 with 429 and Retry-After: login attempts throttled
};

// How long a refused client should wait before trying again (Retry-After).
struct RetryAfter {
  int64_t seconds = 0;
};

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, std::string message)
      : std::runtime_error(std::move(message)), code_(code) {}
  Error(ErrorCode code, std::string message, int64_t iserver_code)
      : std::runtime_error(std::move(message)), code_(code), iserver_code_(iserver_code) {}

  Error(ErrorCode code, std::string message, RetryAfter retry_after)
      : std::runtime_error(std::move(message)), code_(code), retry_after_(retry_after.seconds) {}

  ErrorCode code() const { return code_; }
  std::string_view message() const { return what(); }
  std::optional<int64_t> iserver_code() const { return iserver_code_; }
  std::optional<int64_t> retry_after_seconds() const { return retry_after_; }

 private:
  ErrorCode code_;
  std::optional<int64_t> iserver_code_;
  std::optional<int64_t> retry_after_;
};

// The seed's message for every call that needs the storage service while it cannot be used.
inline constexpr std::string_view kStorageUnavailableMessage =
    "The API requires Storage Service. Please contact your administrator.";

// The error of a request that breaks a rule of what is accepted; `message` says which and what is.
[[noreturn]] inline void ThrowInvalidInput(const std::string& message) {
  throw Error(ErrorCode::kInvalidInput, message);
}

inline Error StorageUnavailableError() {
  return Error(ErrorCode::kStorageUnavailable, std::string(kStorageUnavailableMessage));
}

}  // namespace tessera
