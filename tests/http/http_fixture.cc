#include "http/http_fixture.h"

#include <stdexcept>

#include "core/ids.h"

namespace tessera::http::testing {
namespace {

Response RoutingError(int status, std::string_view code, std::string_view message) {
  Json body;
  body["code"] = code;
  body["message"] = message;
  body["ticketId"] = NewTicketId();
  return Response::Json(status, DumpJson(body));
}

}  // namespace

ServerOptions TestOptions() {
  ServerOptions options;
  options.host = "127.0.0.1";
  options.port = 0;
  options.io_threads = 2;
  options.access_log = false;
  options.shutdown_grace = std::chrono::seconds(5);
  return options;
}

Response Route(const Router& router, const Request& request) {
  RouteMatch match = router.Match(request.method, request.path);
  switch (match.kind) {
    case RouteMatch::Kind::kFound:
      return (*match.handler)(request, match.params);
    case RouteMatch::Kind::kMethodNotAllowed:
      return RoutingError(405, "ERR001", "HTTP 405 Method Not Allowed");
    case RouteMatch::Kind::kNotFound:
      break;
  }
  return RoutingError(404, "ERR004", "HTTP 404 Not Found");
}

RoutedServer::RoutedServer(Router router, ServerOptions options)
    : router_(std::make_shared<Router>(std::move(router))) {
  server_ = std::make_unique<Server>(
      std::move(options),
      [router = router_](Request request, Respond respond) { respond(Route(*router, request)); });
  server_->Start();
}

RoutedServer::RoutedServer(Dispatch dispatch, ServerOptions options)
    : server_(std::make_unique<Server>(std::move(options), std::move(dispatch))) {
  server_->Start();
}

std::unique_ptr<Client> RoutedServer::NewClient() const {
  return std::make_unique<Client>("127.0.0.1", port());
}

Json BodyJson(const Response& response) { return ParseJson(response.body); }

}  // namespace tessera::http::testing
