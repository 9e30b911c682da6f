// tests/http/http_fixture.h
//
// Real HTTP for the http/ tests: a Server on an ephemeral loopback port that routes through a
// Router and answers the spec's routing errors (spec 01 §3.3), and a raw socket for what a
// well-behaved client never sends (half requests, garbage, pipelining).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/json.h"
#include "http/client.h"
#include "http/router.h"
#include "http/server.h"

namespace tessera::http::testing {

// 127.0.0.1, port 0, two I/O threads, no access log, short grace.
ServerOptions TestOptions();

// What api/ will do with a RouteMatch: the handler's response, or 404 ERR004 / 405 ERR001.
Response Route(const Router& router, const Request& request);

// A started server whose dispatch is Route() on the I/O thread.
class RoutedServer {
 public:
  explicit RoutedServer(Router router, ServerOptions options = TestOptions());
  // A started server with any dispatch.
  RoutedServer(Dispatch dispatch, ServerOptions options);

  uint16_t port() const { return server_->port(); }
  Server& server() { return *server_; }
  std::unique_ptr<Client> NewClient() const;

 private:
  std::shared_ptr<Router> router_;
  std::unique_ptr<Server> server_;
};

Json BodyJson(const Response& response);

// One TCP connection driven byte by byte. Every read gives up after `timeout`.
class RawConnection {
 public:
  explicit RawConnection(uint16_t port);
  ~RawConnection();

  void Write(std::string_view bytes);
  // The next complete response, or nullopt when the connection closed or timed out first.
  std::optional<Response> ReadResponse(std::chrono::seconds timeout = std::chrono::seconds(10));
  // Everything that arrives until the server closes the connection; nullopt if it stayed open.
  std::optional<std::string> ReadUntilClosed(
      std::chrono::seconds timeout = std::chrono::seconds(10));

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tessera::http::testing
