#include "api/api.h"

#include <spdlog/spdlog.h>

#include "api/dataset/dataset_kind_hint.h"
#include "api/error_response.h"
#include "api/routes.h"
#include "core/strings.h"
#include "storage/memory_only.h"

namespace tessera::api {

Endpoints::Endpoints(http::Router& router, service::Services& services, const ApiOptions& options,
                     std::map<http::RouteEntry, FieldsDialect>& fields_dialects)
    : router_(router), services_(services), options_(options), fields_dialects_(fields_dialects) {}

namespace {

// Route tags (http::Router) that admission reads.
constexpr uint32_t kNeedsSession = 1;
constexpr uint32_t kTakesUpload = 2;
constexpr uint32_t kAnswersFromMemory = 4;

uint32_t TagsOf(const EndpointSpec& spec) {
  return (spec.access == Access::kSession ? kNeedsSession : 0) |
         (spec.body == BodySize::kUpload ? kTakesUpload : 0) |
         (spec.answers_from_memory ? kAnswersFromMemory : 0);
}

}  // namespace

void Endpoints::Add(std::string_view method, std::string_view path, EndpointSpec spec,
                    EndpointHandler handler) {
  service::Services& services = services_;
  const ApiOptions& options = options_;
  const uint32_t tags = TagsOf(spec);
  router_.Add(
      method, path,
      [&services, &options, spec, handler = std::move(handler)](const http::Request& request,
                                                                const http::PathParams& params) {
        RequestContext context(request, params, services, options);
        if (spec.access == Access::kSession) context.Authenticate();
        context.set_fields(ParseFields(spec.fields, request.query));
        return handler(context);
      },
      tags);
  fields_dialects_[http::RouteEntry{std::string(method), std::string(path)}] = spec.fields;
}

FieldsDialect Api::FieldsDialectOf(const http::RouteEntry& route) const {
  const auto found = fields_dialects_.find(route);
  return found == fields_dialects_.end() ? FieldsDialect::kNone : found->second;
}

Api::Api(service::Services& services, ApiOptions options)
    : services_(services), options_(std::move(options)) {
  Endpoints endpoints(router_, services_, options_, fields_dialects_);
  session::RegisterAuthRoutes(endpoints);
  session::RegisterSessionRoutes(endpoints);
  ops::RegisterStatusRoutes(endpoints);
  project::RegisterProjectRoutes(endpoints);
  object::RegisterObjectRoutes(endpoints);
  object::RegisterFolderRoutes(endpoints);
  object::RegisterSearchRoutes(endpoints);
  security::RegisterUserRoutes(endpoints);
  dataset::RegisterReportRoutes(endpoints);
  dataset::RegisterCubeRoutes(endpoints);
  dataset::RegisterDatasetRoutes(endpoints);
  dataset::RegisterInstanceRoutes(endpoints);
  push::RegisterPushRoutes(endpoints);
  dashboard::RegisterDashboardRoutes(endpoints);
  migration::RegisterMigrationRoutes(endpoints);
  ops::RegisterOpsRoutes(endpoints);
  ops::RegisterDocsRoutes(endpoints);
}

namespace {

bool IsSharedFileUpload(std::string_view method, std::string_view path) {
  constexpr std::string_view kFiles = "/api/mstrServices/library/storage/sharedFileStore/files/";
  constexpr std::string_view kBinary = "/binary";
  if (method != "PUT" || !path.ends_with(kBinary)) return false;
  size_t files = path.find(kFiles);
  return files != std::string_view::npos &&
         path.find('/', files + kFiles.size()) == path.size() - kBinary.size();
}

// POST /api/migrations, PUT /api/migrations/{id}, PUT .../{id}/validation and
// PUT .../{id}/packageInfo: the bodies that carry a package's content list.
bool CarriesAContentList(std::string_view method, std::string_view path) {
  constexpr std::string_view kMigrations = "/api/migrations";
  size_t at = path.find(kMigrations);
  if (at == std::string_view::npos) return false;
  std::string_view rest = path.substr(at + kMigrations.size());  // "", "/{id}", "/{id}/..."
  if (method == "POST") return rest.empty();
  if (method != "PUT" || !rest.starts_with('/')) return false;
  size_t slash = rest.find('/', 1);
  if (slash == 1) return false;  // no id
  std::string_view tail = slash == std::string_view::npos ? "" : rest.substr(slash);
  return tail.empty() || tail == "/validation" || tail == "/packageInfo";
}

}  // namespace

bool Api::IsApiPath(std::string_view path) {
  return path == "/api" || path.starts_with("/api/") || path == "/api-docs" ||
         path.starts_with("/api-docs/") || path.starts_with("/health/") || path == "/metrics";
}

bool Api::IsDataWork(std::string_view method, std::string_view path) {
  for (std::string_view part : {"/instances", "/elements", "/sqlView", "/uploadSessions",
                                "/api/migrations", "/sharedFileStore"}) {
    if (path.find(part) != std::string_view::npos) return true;
  }
  // Rows pushed in one request.
  return method != "GET" && path.find("/api/datasets") != std::string_view::npos;
}

bool Api::SpoolsBody(std::string_view method, std::string_view path) {
  return IsSharedFileUpload(method, path) || CarriesAContentList(method, path);
}

http::Admission Api::Admit(const http::RequestHead& head) const {
  http::Admission admission;
  admission.max_body_bytes = options_.max_request_body_bytes;
  std::string_view path = head.path;
  if (!options_.context_path.empty()) {
    if (!path.starts_with(options_.context_path)) return admission;
    path.remove_prefix(options_.context_path.size());
  }
  const http::RouteMatch match = router_.Match(head.method, path);
  if (match.kind != http::RouteMatch::Kind::kFound) return admission;  // answered 404 or 405
  const std::string route(match.route);
  if (match.tags & kNeedsSession) {
    try {
      services_.sessions.Authenticate(RequiredAuthToken(head.headers));
    } catch (const Error& error) {
      admission.refusal = ErrorResponse(error, head.request_id);
      admission.refusal->route = route;
      return admission;
    }
  }
  if (SpoolsBody(head.method, path)) {
    admission.spools_body = true;
    admission.max_body_bytes = options_.max_spooled_body_bytes;
  } else if (match.tags & kTakesUpload) {
    admission.max_body_bytes = options_.max_upload_body_bytes;
  }
  return admission;
}

namespace {

// Runs the handler `match` found for `path` (the request's path without `context_path`),
// turning what it throws into the error response.
http::Response RunHandler(const http::RouteMatch& match, const http::Request& request,
                          std::string_view path, const http::Router& router,
                          std::string_view context_path) {
  try {
    return (*match.handler)(request, match.params);
  } catch (const storage::StoreNeeded&) {
    throw;
  } catch (const service::instance::WrongDatasetKind& error) {
    return ErrorResponse(
        dataset::WithEndpointHint(error, router, request.method, path, context_path),
        request.request_id);
  } catch (const Error& error) {
    if (error.code() == ErrorCode::kInternal) {
      spdlog::error("request {} {} {} failed: {}", request.request_id, request.method,
                    Abbreviate(request.path), Abbreviate(error.message()));
    }
    return ErrorResponse(error, request.request_id);
  } catch (const nlohmann::json::exception& e) {
    // A value of the wrong type or out of range that a reader took without checking: the
    // request's mistake, not the server's.
    spdlog::warn("request {} {} {}: unchecked JSON value: {}", request.request_id, request.method,
                 Abbreviate(request.path), Abbreviate(e.what()));
    return ErrorResponse(Error(ErrorCode::kInvalidInput,
                               "The request holds a value of the wrong type or out of range (" +
                                   Abbreviate(e.what(), 120) + ")"),
                         request.request_id);
  } catch (const std::exception& e) {
    spdlog::error("request {} {} {} failed with an unexpected fault: {}", request.request_id,
                  request.method, Abbreviate(request.path), Abbreviate(e.what()));
    return InternalErrorResponse(request.request_id);
  }
}

}  // namespace

std::optional<std::string_view> Api::PathInApi(std::string_view path) const {
  if (!options_.context_path.empty()) {
    if (!path.starts_with(options_.context_path)) return std::nullopt;
    path.remove_prefix(options_.context_path.size());
  }
  if (!IsApiPath(path)) return std::nullopt;
  return path;
}

std::optional<http::Response> Api::AnswerFromMemory(const http::Request& request) const {
  std::optional<std::string_view> path = PathInApi(request.path);
  if (!path) return std::nullopt;
  http::RouteMatch match = router_.Match(request.method, *path);
  if (match.kind != http::RouteMatch::Kind::kFound || !(match.tags & kAnswersFromMemory)) {
    return std::nullopt;
  }
  storage::MemoryOnlyScope memory_only;
  try {
    http::Response response = RunHandler(match, request, *path, router_, options_.context_path);
    response.route = std::string(match.route);
    return response;
  } catch (const storage::StoreNeeded&) {
    return std::nullopt;
  }
}

http::Response Api::Handle(const http::Request& request) const {
  std::optional<std::string_view> api_path = PathInApi(request.path);
  if (!api_path) return RouteNotFoundResponse(request.request_id);
  std::string_view path = *api_path;

  http::RouteMatch match = router_.Match(request.method, path);
  if (match.kind == http::RouteMatch::Kind::kNotFound) {
    return RouteNotFoundResponse(request.request_id);
  }
  if (match.kind == http::RouteMatch::Kind::kMethodNotAllowed) {
    return MethodNotAllowedResponse(request.request_id);
  }
  http::Response response = RunHandler(match, request, path, router_, options_.context_path);
  response.route = std::string(match.route);
  return response;
}

}  // namespace tessera::api
