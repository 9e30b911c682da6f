// api/api.h
//
// The REST API of one node: every endpoint family registered on one router, behind the
// middleware of ARCHITECTURE §3 (context path, routing errors, authentication, `fields`, error
// mapping). Handle() is total: any request gets a response, and anything but a tessera::Error
// escaping a handler is logged as a fault and answered 500 ERR001.
#pragma once

#include <functional>
#include <string_view>

#include "api/request_context.h"
#include "http/message.h"
#include "http/router.h"
#include "service/services.h"

namespace tessera::api {

enum class Access { kPublic, kSession };
enum class FieldsRule { kGeneral, kNone };

struct EndpointSpec {
  Access access = Access::kSession;
  FieldsRule fields = FieldsRule::kGeneral;
};

using EndpointHandler = std::function<http::Response(RequestContext&)>;

// Used by each family's Register function.
class Endpoints {
 public:
  Endpoints(http::Router& router, service::Services& services, const ApiOptions& options);
  void Add(std::string_view method, std::string_view path, EndpointSpec spec,
           EndpointHandler handler);

 private:
  http::Router& router_;
  service::Services& services_;
  const ApiOptions& options_;
};

class Api {
 public:
  Api(service::Services& services, ApiOptions options);
  http::Response Handle(const http::Request& request) const;

  // Whether the server should spool this request's body to a file (http::ServerOptions): the
  // package uploads of the shared file store (spec 04 §3.4), which may be gigabytes, and the
  // migration bodies that carry a content list (creation, import, validation, edit), which are
  // parsed from the file item by item.
  static bool SpoolsBody(std::string_view method, std::string_view path);

 private:
  service::Services& services_;
  ApiOptions options_;
  http::Router router_;
};

}  // namespace tessera::api
