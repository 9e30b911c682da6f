// app/remote_server.h
//
// A running server that a command line tool talks to over its REST API (`tessera migrate`):
// its URL, and a session logged in with a user name and password.
//
// Contract:
//   - ParseServerUrl accepts http://HOST[:PORT][/PATH] (port 80 by default; PATH is the server's
//     context path, a trailing "/" ignored) and throws std::invalid_argument naming the `flag`
//     and the accepted form otherwise (https is refused: the client speaks plain HTTP only).
//   - The constructor logs in (standard login mode). A server that cannot be reached is
//     std::runtime_error "cannot reach <url>: <why>"; a refused login is std::runtime_error
//     "<url> refused the login of '<user>': <the server's message>".
//   - Call() sends one request with the session's token (and the project header when given) and
//     returns the JSON body of a 2xx answer (null when it has none). Any other answer throws
//     std::runtime_error "<url>: <the server's message> (HTTP <status>, <code>)"; a broken
//     connection "cannot reach <url>: <why>".
//   - The destructor logs out, ignoring failures.
//   - A command that waits on the server polls every kPollInterval and gives up after
//     kGiveUpAfter. StringField reads a string member of an answer ("" when absent or another
//     type).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/json.h"

namespace tessera::http {
class Client;
}

namespace tessera::app {

struct ServerUrl {
  std::string host;
  uint16_t port = 80;
  std::string base_path;  // "" or "/PATH", without a trailing "/"
  std::string text;       // http://HOST:PORT/PATH/, the server's environment id in migrations
};

inline constexpr auto kPollInterval = std::chrono::milliseconds(200);
inline constexpr auto kGiveUpAfter = std::chrono::minutes(30);

std::string StringField(const Json& object, const char* key);

ServerUrl ParseServerUrl(const std::string& url, const std::string& flag);

class RemoteServer {
 public:
  RemoteServer(ServerUrl url, const std::string& username, const std::string& password);
  ~RemoteServer();
  RemoteServer(const RemoteServer&) = delete;
  RemoteServer& operator=(const RemoteServer&) = delete;

  const ServerUrl& url() const { return url_; }

  // `target`: path and query below the context path ("/api/projects").
  Json Call(std::string_view method, const std::string& target, const Json& body = nullptr,
            const std::string& project_id = "");

 private:
  ServerUrl url_;
  std::unique_ptr<http::Client> client_;
  std::string token_;
};

}  // namespace tessera::app
