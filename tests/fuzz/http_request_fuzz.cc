// Fuzz harness: what Tessera does with the bytes of an HTTP request before a handler runs --
// Beast's parser configured as http/server.cc configures it, then our own parts: the target
// reduced to its origin form and split into path and query (http::QueryParams), the header
// fields (http::Headers), which bodies are spooled (api::Api::SpoolsBody), the `fields`
// parameter (api/partial_response.h), and the router's matching and percent-decoding
// (http::Router) over every route of the real API.
//
// Input: raw request bytes ("GET /api/projects?fields=id HTTP/1.1\r\nHost: x\r\n\r\n").
//
// Contract checked: nothing throws but the `fields` parser (Error(kInvalidInput)); query
// parameters survive being encoded again; header lookups ignore case; a route found for a path
// is found again with a trailing slash and a lower-case method; a 405 lists sorted methods.
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "api/api.h"
#include "api/partial_response.h"
#include "api/routes.h"
#include "core/error.h"
#include "core/strings.h"
#include "fuzz/fuzz_node.h"
#include "fuzz/fuzz_support.h"
#include "http/message.h"
#include "http/router.h"

namespace {

using namespace tessera;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;

// As http/server.cc: 64 KiB of headers; the body limit is the server's default for requests
// that are not spooled, lowered here to what a fuzz input can hold.
constexpr uint32_t kHeaderLimitBytes = 64 * 1024;
constexpr uint64_t kBodyLimitBytes = 1 << 20;

// Every route of the API, registered on a router of our own: only matching is fuzzed here.
struct Routes {
  std::unique_ptr<fuzz::FuzzNode> node;
  api::ApiOptions options;
  http::Router router;
  std::map<http::RouteEntry, api::FieldsDialect> fields_dialects;
};

Routes& TheRoutes() {
  static Routes routes = [] {
    Routes made;
    made.node = std::make_unique<fuzz::FuzzNode>(
        fuzz::FuzzNodeOptions{.data_dir = fuzz::ScratchDir() / "node"});
    api::Endpoints endpoints(made.router, made.node->services(), made.options,
                             made.fields_dialects);
    for (auto* register_family :
         {api::session::RegisterAuthRoutes, api::session::RegisterSessionRoutes,
          api::ops::RegisterStatusRoutes, api::project::RegisterProjectRoutes,
          api::object::RegisterObjectRoutes, api::object::RegisterFolderRoutes,
          api::object::RegisterSearchRoutes, api::security::RegisterUserRoutes,
          api::dataset::RegisterReportRoutes, api::dataset::RegisterCubeRoutes,
          api::dataset::RegisterDatasetRoutes, api::dataset::RegisterInstanceRoutes,
          api::push::RegisterPushRoutes, api::dashboard::RegisterDashboardRoutes,
          api::migration::RegisterMigrationRoutes}) {
      register_family(endpoints);
    }
    return made;
  }();
  return routes;
}

// Feeds `bytes` to `parser` as the server's reads would, up to the end of the header only when
// `header_only`; the end of `bytes` is the end of the stream. Returns the bytes used.
template <typename Parser>
size_t Feed(Parser& parser, std::string_view bytes, bool header_only, beast::error_code& ec) {
  size_t used = 0;
  while (!parser.is_done() && !(header_only && parser.is_header_done())) {
    size_t n = parser.put(boost::asio::buffer(bytes.data() + used, bytes.size() - used), ec);
    used += n;
    if (ec == bhttp::error::need_more || (!ec && n == 0)) {
      // The stream ends here; Beast's own reads report end_of_stream when nothing came.
      ec = {};
      if (parser.got_some()) {
        parser.put_eof(ec);
      } else {
        ec = bhttp::error::end_of_stream;
      }
      break;
    }
    if (ec) break;
  }
  return used;
}

// As http/server.cc's OriginForm: an absolute-form target reduced to "/path?q".
std::string_view OriginForm(std::string_view target) {
  for (std::string_view scheme : {"http://", "https://"}) {
    if (StartsWithIgnoreCase(target, scheme)) {
      size_t slash = target.find('/', scheme.size());
      return slash == std::string_view::npos ? std::string_view("/") : target.substr(slash);
    }
  }
  return target;
}

// The request as http/server.cc's TakeRequest builds it; nullopt when Beast refuses the bytes.
std::optional<http::Request> ParseRequest(std::string_view bytes) {
  bhttp::request_parser<bhttp::empty_body> header_parser;
  header_parser.header_limit(kHeaderLimitBytes);
  header_parser.body_limit(std::numeric_limits<uint64_t>::max());
  beast::error_code ec;
  size_t used = Feed(header_parser, bytes, /*header_only=*/true, ec);
  if (ec || !header_parser.is_header_done()) return std::nullopt;
  if (auto length = header_parser.content_length(); length && *length > kBodyLimitBytes) {
    return std::nullopt;  // the server answers 413
  }
  bhttp::request_parser<bhttp::string_body> parser(std::move(header_parser));
  parser.body_limit(kBodyLimitBytes);
  parser.eager(true);
  Feed(parser, bytes.substr(used), /*header_only=*/false, ec);
  if (ec || !parser.is_done()) return std::nullopt;

  auto message = parser.release();
  http::Request request;
  request.method = ToUpper(std::string(message.method_string()));
  const std::string raw_target(message.target());
  std::string_view target = OriginForm(raw_target);
  size_t question = target.find('?');
  request.path = std::string(target.substr(0, question));
  if (question != std::string_view::npos) {
    request.query = http::QueryParams::Parse(target.substr(question + 1));
  }
  for (const auto& field : message) {
    request.headers.Add(std::string(field.name_string()), std::string(field.value()));
  }
  request.body = std::move(message.body());
  return request;
}

void CheckQuery(const http::QueryParams& query) {
  std::string encoded;
  for (const auto& [name, value] : query.fields()) {
    if (!encoded.empty()) encoded += '&';
    encoded += PercentEncode(name) + "=" + PercentEncode(value);
  }
  if (http::QueryParams::Parse(encoded).fields() != query.fields()) {
    fuzz::Finding("query parameters do not survive being encoded again", encoded);
  }
  for (const auto& [name, value] : query.fields()) {
    if (query.Get(name) == std::nullopt) fuzz::Finding("a query parameter is not found", name);
    for (const std::string& piece : query.GetList(name)) {
      if (piece.empty()) fuzz::Finding("GetList yields an empty piece", name);
    }
  }
  try {
    api::ParseFieldsParameter(query);
  } catch (const Error& error) {
    if (error.code() != ErrorCode::kInvalidInput) fuzz::Finding("fields threw", error.what());
  }
}

void CheckHeaders(const http::Headers& headers) {
  for (const auto& [name, value] : headers.fields()) {
    if (!headers.Get(ToLower(name)) || !headers.Get(ToUpper(name))) {
      fuzz::Finding("a header is not found in another case", name);
    }
  }
}

void CheckRouting(const http::Request& request) {
  const http::Router& router = TheRoutes().router;
  (void)api::Api::SpoolsBody(request.method, request.path);
  const http::RouteMatch match = router.Match(request.method, request.path);
  if (match.kind == http::RouteMatch::Kind::kFound && match.handler == nullptr) {
    fuzz::Finding("a route is found without a handler", request.path);
  }
  if (match.kind == http::RouteMatch::Kind::kMethodNotAllowed &&
      (match.allowed_methods.empty() ||
       !std::is_sorted(match.allowed_methods.begin(), match.allowed_methods.end()))) {
    fuzz::Finding("a 405 lists no or unsorted methods", request.path);
  }
  if (router.Match(ToLower(request.method), request.path).kind != match.kind) {
    fuzz::Finding("the method's case changes the route", request.method + " " + request.path);
  }
  if (!request.path.empty() && !request.path.ends_with('/')) {
    const http::RouteMatch slashed = router.Match(request.method, request.path + "/");
    if (slashed.kind != match.kind || slashed.params != match.params) {
      fuzz::Finding("a trailing slash changes the route", request.path);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  TheRoutes();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::optional<http::Request> request =
      ParseRequest(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!request) return 0;
  CheckQuery(request->query);
  CheckHeaders(request->headers);
  CheckRouting(*request);
  return 0;
}
