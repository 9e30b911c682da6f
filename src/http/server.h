// http/server.h
//
// The HTTP/1.1 server on Boost.Beast. A few I/O threads run the sockets; every request is handed
// to the `dispatch` function given at construction, which must answer through the completion
// callback exactly once, from any thread (api/ runs handlers on the compute pool and calls back).
// The server owns transport concerns only:
//   - keep-alive, pipelining-safe (one request at a time per connection);
//   - admission before the body: a request that announces a body is first shown, header only, to
//     `admit`, which may refuse it (answered at once, the body never read, the connection closed
//     after a short linger), choose its body limit and have it spooled. Without `admit`, bodies
//     are read in memory under max_body_bytes;
//   - a body-size limit: a larger body is answered 413 with a JSON error (ERR006) and the
//     connection closed, without reading the body;
//   - spooled bodies: a request admitted with spools_body has its body written to a new file in
//     spool_dir (Request::body_file, never held in memory); the file is removed once the request
//     is released;
//   - connection caps: beyond max_connections open connections, or max_connections_per_address
//     from one client address, a new connection is answered 503 (ERR001) and closed;
//   - behind trusted proxies (load balancers), the client address of a request is the one they
//     report in X-Forwarded-For (http/client_address.h);
//   - file responses (Response::body_file) are streamed from disk in chunks;
//   - a read timeout per request (headers and body) and an idle timeout between requests;
//   - a request id per request (Request::request_id), one access-log line per response and one
//     call of on_exchange (metrics);
//   - graceful shutdown: Stop() stops accepting, lets in-flight requests finish (up to a grace
//     period), then closes every connection.
// What happens on one connection is http/connection.h's; spooling is http/spool_file.h's.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "http/message.h"

namespace tessera::http {

using Respond = std::function<void(Response)>;
using Dispatch = std::function<void(Request, Respond)>;

// What is known of a request once its header is read.
struct RequestHead {
  std::string request_id;
  std::string method;  // upper case
  std::string path;    // raw, without the query string
  Headers headers;
  std::string remote_address;
};

// How to go on with a request's body.
struct Admission {
  std::optional<Response> refusal;  // answered instead, the body unread
  bool spools_body = false;
  uint64_t max_body_bytes = 0;  // 0: ServerOptions::max_body_bytes
};

// Decides on a request with a body, answering through `decide` exactly once, from any thread (so
// the decision may run off the I/O threads).
using Admit = std::function<void(const RequestHead& head, std::function<void(Admission)> decide)>;

// One request answered: reported to ServerOptions::on_exchange once its response is written.
struct Exchange {
  std::string_view method;  // as sent ("-" when the request line could not be read)
  std::string_view route;   // Response::route; empty when no route answered
  int status = 0;
  double seconds = 0;  // from the request's header read to its response written
  uint64_t response_body_bytes = 0;
};

struct ServerOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 8080;  // 0 picks an ephemeral port; see Server::port()
  int io_threads = 2;
  uint64_t max_body_bytes = 256ull << 20;
  Admit admit;            // empty: every body is admitted under max_body_bytes
  std::string spool_dir;  // empty: the system's temporary directory
  // 0: the process's open-file limit less a reserve for the files the node itself opens.
  size_t max_connections = 0;
  size_t max_connections_per_address = 256;  // not applied to trusted proxies
  // Canonical addresses of the proxies whose X-Forwarded-For names the client
  // (http/client_address.h): a request's remote_address and its access-log line show the client,
  // not the proxy, and the proxies' own connections are not capped per address.
  std::vector<std::string> trusted_proxies;
  std::chrono::seconds read_timeout{60};
  std::chrono::seconds idle_timeout{120};
  std::chrono::seconds shutdown_grace{10};
  bool access_log = true;
  // Called on an I/O thread after every response is written (metrics); must be quick.
  std::function<void(const Exchange&)> on_exchange;
};

class Server {
 public:
  Server(ServerOptions options, Dispatch dispatch);
  ~Server();  // Stop()s if still running
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds and starts the I/O threads. Throws std::runtime_error when the address cannot be bound.
  void Start();
  uint16_t port() const;  // the bound port, valid after Start()
  size_t OpenConnections() const;
  // Graceful; idempotent. Idle connections close at once; requests already dispatched get up to
  // shutdown_grace to be answered (with "Connection: close"); later answers are ignored. Must not
  // be called from a dispatch callback running on an I/O thread (it joins those threads).
  void Stop();
  void Wait();  // blocks until Stop() has finished

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tessera::http
