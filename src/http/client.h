// http/client.h
//
// A small synchronous HTTP/1.1 client over one keep-alive connection, for tests, tools and the
// load benchmark. It reconnects transparently when the server closed the connection between
// requests. Not thread-safe: one Client per thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "http/message.h"

namespace tessera::http {

class Client {
 public:
  Client(std::string host, uint16_t port);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // `target` is path + query, already encoded. Throws std::runtime_error on transport failure.
  Response Send(std::string_view method, std::string_view target, const Headers& headers = {},
                std::string_view body = {});

  // Bounds connecting and each request's write and read; 60 seconds unless set.
  void set_timeout(std::chrono::milliseconds timeout);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tessera::http
