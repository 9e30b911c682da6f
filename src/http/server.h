// http/server.h
//
// The HTTP/1.1 server on Boost.Beast. A few I/O threads run the sockets; every request is handed
// to the `dispatch` function given at construction, which must answer through the completion
// callback exactly once, from any thread (api/ runs handlers on the compute pool and calls back).
// The server owns transport concerns only:
//   - keep-alive, pipelining-safe (one request at a time per connection);
//   - a body-size limit: a larger body is answered 413 with the spec's JSON error (ERR006) and the
//     connection closed, without reading the body;
//   - spooled bodies: a request `spools_body` selects has its body written to a new file in
//     spool_dir (Request::body_file, never held in memory) under the larger limit
//     max_spooled_body_bytes; the file is removed once the request is released;
//   - file responses (Response::body_file) are streamed from disk in chunks;
//   - a read timeout per request (headers and body) and an idle timeout between requests;
//   - a request id per request (Request::request_id) and one access-log line per response;
//   - graceful shutdown: Stop() stops accepting, lets in-flight requests finish (up to a grace
//     period), then closes every connection.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "http/message.h"

namespace tessera::http {

using Respond = std::function<void(Response)>;
using Dispatch = std::function<void(Request, Respond)>;

struct ServerOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 8080;  // 0 picks an ephemeral port; see Server::port()
  int io_threads = 2;
  uint64_t max_body_bytes = 256ull << 20;
  // Given the method and the raw path (no query string), whether the body is spooled to a file.
  std::function<bool(std::string_view method, std::string_view path)> spools_body;
  uint64_t max_spooled_body_bytes = 4ull << 30;
  std::string spool_dir;  // empty: the system's temporary directory
  std::chrono::seconds read_timeout{60};
  std::chrono::seconds idle_timeout{120};
  std::chrono::seconds shutdown_grace{10};
  bool access_log = true;
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
