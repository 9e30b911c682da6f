// api/api.h
//
// The REST API of one node: every endpoint family registered on one router, behind the
// same middleware (context path, routing errors, authentication, `fields`, error mapping). Handle()
// is total: any request gets a response, and anything but a tessera::Error escaping a handler is
// logged as a fault and answered 500 ERR001. A report or cube id of the other kind is answered with
// the path that serves it (api/dataset/dataset_kind_hint.h).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string_view>
#include <vector>

#include "api/request_context.h"
#include "http/message.h"
#include "http/router.h"
#include "http/server.h"
#include "service/services.h"

namespace tessera::api {

enum class Access { kPublic, kSession };
// kSmall bodies (most) are limited to ApiOptions::max_request_body_bytes; kUpload bodies (rows
// pushed to datasets) to ApiOptions::max_upload_body_bytes.
enum class BodySize { kSmall, kUpload };

struct EndpointSpec {
  Access access = Access::kSession;
  FieldsDialect fields = FieldsDialect::kRootFields;  // api/partial_response.h
  BodySize body = BodySize::kSmall;
  // The handler may run on an I/O thread under storage::MemoryOnlyScope (Api::AnswerFromMemory):
  // it must meet that scope's contract (nothing changed before the store is read).
  bool answers_from_memory = false;
};

using EndpointHandler = std::function<http::Response(RequestContext&)>;

// Used by each family's Register function.
class Endpoints {
 public:
  Endpoints(http::Router& router, service::Services& services, const ApiOptions& options,
            std::map<http::RouteEntry, FieldsDialect>& fields_dialects);
  void Add(std::string_view method, std::string_view path, EndpointSpec spec,
           EndpointHandler handler);

 private:
  http::Router& router_;
  service::Services& services_;
  const ApiOptions& options_;
  std::map<http::RouteEntry, FieldsDialect>& fields_dialects_;
};

class Api {
 public:
  Api(service::Services& services, ApiOptions options);
  http::Response Handle(const http::Request& request) const;
  // The answer Handle() would give, when it can be made from what the services keep in memory
  // without waiting (a validated session, the project snapshot): for the routes registered with
  // answers_from_memory, run under storage::MemoryOnlyScope. Nullopt when the request is not of
  // such a route or its answer needs the store; Handle() it on a thread that may wait then.
  // Never blocks on the store, so an I/O thread may call it.
  std::optional<http::Response> AnswerFromMemory(const http::Request& request) const;

  // Decides on a request's body from its header alone (http::Admit): a request that needs a
  // session and whose token is missing or no longer valid is refused 401 before a byte of its
  // body is read; the package uploads of the shared file store, which may be gigabytes, and the
  // migration bodies that carry a content list (creation, import, validation, edit), which are
  // parsed from the file item by item, are spooled to disk under max_spooled_body_bytes; pushed
  // rows get max_upload_body_bytes; every other body max_request_body_bytes.
  http::Admission Admit(const http::RequestHead& head) const;
  // Whether a request computes on data -- instances and their pages, elements, visualizations,
  // SQL views, pushed rows, migrations -- rather than reading metadata. The node runs the two
  // kinds on separate pools, so a cheap call never queues behind a heavy one.
  static bool IsDataWork(std::string_view method, std::string_view path);
  // Whether `path` (after the context path) is this API's: /api..., /api-docs..., /health/... or
  // /metrics.
  static bool IsApiPath(std::string_view path);
  // Every route of the API, method and template, as the OpenAPI document must list them.
  std::vector<http::RouteEntry> Routes() const { return router_.Routes(); }
  // The `fields` dialect of a route of Routes(), as the OpenAPI document must describe it.
  FieldsDialect FieldsDialectOf(const http::RouteEntry& route) const;
  // Whether Admit spools the body of such a request to disk.
  static bool SpoolsBody(std::string_view method, std::string_view path);

 private:
  // `path` without the context path, when it is one of this API's paths.
  std::optional<std::string_view> PathInApi(std::string_view path) const;

  service::Services& services_;
  ApiOptions options_;
  http::Router router_;
  std::map<http::RouteEntry, FieldsDialect> fields_dialects_;
};

}  // namespace tessera::api
