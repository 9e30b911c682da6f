// api/request_context.h
//
// Everything a handler needs about one request: the request, its path parameters, the
// authenticated session (for endpoints that require one), and readers that turn query
// parameters, headers and bodies into values or a clear 4xx error. Reply() is where the general
// `fields` rule (kRootFields) is applied, so every endpoint that declares the rule gets it the
// same way.
#pragma once

#include <chrono>
#include <functional>

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "api/partial_response.h"
#include "core/json.h"
#include "core/prometheus_text.h"
#include "http/message.h"
#include "http/router.h"
#include "service/object/object_service.h"
#include "service/services.h"

namespace tessera::api {

struct ApiOptions {
  std::string context_path;  // "" or "/Something", without a trailing slash
  std::string version = "11.6.0200.0001";
  // With Prefer: respond-async, how long a v2 instance creation runs before answering 202.
  std::chrono::milliseconds async_instance_after{1000};
  std::string node_name = "tessera";  // this node in the cluster monitors (host:port)
  uint64_t max_request_body_bytes = 4ull << 20;
  uint64_t max_upload_body_bytes = 256ull << 20;
  uint64_t max_spooled_body_bytes = 4ull << 30;
  // Operations (/health, /metrics).
  std::string tessera_version;  // this server's own version, beside the reported `version`
  // Adds what the node itself holds (HTTP exchanges, threads, connections, the process) to
  // /metrics; empty: only the services' figures.
  std::function<void(PrometheusText&)> node_metrics;
  std::string metrics_token;  // when set, /metrics requires "Authorization: Bearer <token>"
};

class RequestContext {
 public:
  RequestContext(const http::Request& request, const http::PathParams& params,
                 service::Services& services, const ApiOptions& options);

  const http::Request& request() const { return request_; }
  service::Services& services() { return services_; }
  const ApiOptions& options() const { return options_; }

  // Throws Error(kSessionInvalid): RequiredAuthToken's message without a token, the session
  // service's for an unknown or expired one.
  void Authenticate();
  const service::session::Session& session() const { return *session_; }
  const service::session::Principal& principal() const { return session_->principal; }
  // `fields` in the endpoint's dialect, parsed before the handler runs (api/partial_response.h).
  void set_fields(FieldsParameter fields) { fields_ = std::move(fields); }
  const FieldsParameter& fields() const { return fields_; }

  // The project named by X-MSTR-ProjectID (or X-SVC-ProjectID): required, or "" when absent.
  // Without the header RequiredProjectId throws Error(kMissingParameter) naming the header, what
  // needs it (`needed_for`, e.g. "objects of type 3"; "this request" when empty) and where project
  // ids come from; a header naming no project is Error(kInvalidInput).
  std::string RequiredProjectId(std::string_view needed_for = {});
  std::string OptionalProjectId();

  std::optional<std::string_view> Header(std::string_view name) const;
  const std::string& PathParam(std::string_view name) const;
  // A path parameter that must be an object id; canonical upper case. kNotFound otherwise.
  std::string PathObjectId(std::string_view name, std::string_view what) const;

  std::optional<std::string_view> Query(std::string_view name) const;
  bool QueryBool(std::string_view name, bool fallback) const;
  std::optional<int64_t> QueryInt(std::string_view name) const;
  int64_t RequiredQueryInt(std::string_view name) const;
  std::vector<int> QueryIntList(std::string_view name) const;
  service::object::Page PageParams() const;  // offset >= 0, limit >= -1

  Json BodyJson() const;  // an object; kInvalidInput otherwise
  // BodyJson, with the elements of the array at `array_path` given to `on_element` one by one
  // rather than kept (core/json.h ParseJsonStreamingArray).
  StreamedArray BodyJsonStreaming(const std::vector<std::string>& array_path,
                                  const std::function<void(Json element)>& on_element) const;

  http::Response Reply(int status, Json body) const;
  static http::Response NoContent();

 private:
  const http::Request& request_;
  const http::PathParams& params_;
  service::Services& services_;
  const ApiOptions& options_;
  std::shared_ptr<const service::session::Session> session_;
  FieldsParameter fields_;
};

// Answers with X-MSTR-Total-Count (and X-SVC-Total-Count) set.
void SetTotalCount(http::Response& response, int64_t total);

// The session token a request carries in X-MSTR-AuthToken (or X-SVC-AuthToken), trimmed. A
// request without one, or with only white space, is refused Error(kSessionInvalid) with a message
// saying the token is missing and where it comes from; a token that is present but unknown or
// expired is the session service's to refuse (it keeps the expiry message).
std::string_view RequiredAuthToken(const http::Headers& headers);

}  // namespace tessera::api
