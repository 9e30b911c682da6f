// tests/http/http_fixture.h
//
// Real HTTP for the http/ tests: a Server on an ephemeral loopback port that routes through a
// Router and answers 404 (ERR004) for an unknown route and 405 (ERR001) for a known route asked
// with another method, and a raw socket for what a well-behaved client never sends (half
// requests, garbage, pipelining).
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
#include "support/raw_connection.h"

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

using ::tessera::testing::RawConnection;

}  // namespace tessera::http::testing
