// tests/support/raw_connection.h
//
// One TCP connection to a server on loopback, driven byte by byte: for what a well-behaved
// client never sends (half requests, garbage, pipelining, wrong lengths). Every read gives up
// after its timeout.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "http/message.h"

namespace tessera::testing {

class RawConnection {
 public:
  explicit RawConnection(uint16_t port);
  ~RawConnection();

  void Write(std::string_view bytes);
  // The next complete response, or nullopt when the connection closed or timed out first.
  std::optional<http::Response> ReadResponse(
      std::chrono::seconds timeout = std::chrono::seconds(10));
  // Everything that arrives until the server closes the connection; nullopt if it stayed open.
  std::optional<std::string> ReadUntilClosed(
      std::chrono::seconds timeout = std::chrono::seconds(10));

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tessera::testing
