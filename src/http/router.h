// http/router.h
//
// Maps a method and a path to a handler. Routes are templates of literal and "{name}" segments:
//   router.Add("GET", "/api/v2/reports/{reportId}/instances/{instanceId}", handler);
// Matching tolerates what real clients send: a trailing slash ("/x/" == "/x"), percent-encoded
// segments (decoded before matching, so "/api/projects/My%20Project" binds
// projectIdOrName = "My Project"), and repeated slashes are not collapsed. Literal segments win
// over parameters at the same position. The result says whether the path is unknown (404) or
// known under another method (405, with the allowed methods sorted), so the caller can answer
// each with its own error. Methods compare case-insensitively; HEAD without its own route uses
// GET's.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "http/message.h"

namespace tessera::http {

using PathParams = std::map<std::string, std::string, std::less<>>;

// A handler gets the request and its bound path parameters.
using Handler = std::function<Response(const Request&, const PathParams&)>;

struct RouteMatch {
  enum class Kind { kFound, kNotFound, kMethodNotAllowed };
  Kind kind = Kind::kNotFound;
  const Handler* handler = nullptr;  // set when kFound; owned by the router
  uint32_t tags = 0;                 // set when kFound: what the route was added with
  std::string_view route;            // set when kFound: its template; owned by the router
  PathParams params;
  std::vector<std::string> allowed_methods;  // set when kMethodNotAllowed
};

// One registered route: its method (upper case) and its template as added.
struct RouteEntry {
  std::string method;
  std::string path_template;
  friend bool operator==(const RouteEntry&, const RouteEntry&) = default;
  friend auto operator<=>(const RouteEntry&, const RouteEntry&) = default;
};

class Router {
 public:
  Router();
  ~Router();
  Router(Router&&) noexcept;
  Router& operator=(Router&&) noexcept;

  // Throws std::invalid_argument for a malformed template or a duplicate method + template.
  // `tags` are the caller's flags for the route, given back by Match.
  void Add(std::string_view method, std::string_view path_template, Handler handler,
           uint32_t tags = 0);

  // `path` is the raw (encoded) request path. A segment that fails to decode never matches.
  RouteMatch Match(std::string_view method, std::string_view path) const;

  // Every route added, sorted by template then method (HEAD's implicit use of GET is not listed).
  std::vector<RouteEntry> Routes() const;

 private:
  struct Node;
  std::unique_ptr<Node> root_;
};

}  // namespace tessera::http
