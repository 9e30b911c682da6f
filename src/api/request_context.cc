#include "api/request_context.h"

#include "core/json_file.h"

#include "core/error.h"
#include "core/ids.h"
#include "core/strings.h"

namespace tessera::api {

RequestContext::RequestContext(const http::Request& request, const http::PathParams& params,
                               service::Services& services, const ApiOptions& options)
    : request_(request), params_(params), services_(services), options_(options) {}

std::optional<std::string_view> RequestContext::Header(std::string_view name) const {
  return request_.headers.Get(name);
}

void RequestContext::Authenticate() {
  session_ = services_.sessions.Authenticate(RequiredAuthToken(request_.headers));
}

std::string RequestContext::OptionalProjectId() {
  auto header = Header("X-MSTR-ProjectID");
  if (!header) header = Header("X-SVC-ProjectID");
  if (!header || Trim(*header).empty()) return "";
  return services_.projects.ResolveHeader(principal(), *header);
}

std::string RequestContext::RequiredProjectId(std::string_view needed_for) {
  std::string project_id = OptionalProjectId();
  if (project_id.empty()) {
    throw Error(ErrorCode::kMissingParameter,
                "The X-MSTR-ProjectID header is required for " +
                    std::string(needed_for.empty() ? "this request" : needed_for) +
                    ": send the id of the project (GET /api/projects lists them)");
  }
  return project_id;
}

const std::string& RequestContext::PathParam(std::string_view name) const {
  auto it = params_.find(name);
  if (it == params_.end())
    throw Error(ErrorCode::kInternal, "route has no parameter " + std::string(name));
  return it->second;
}

std::string RequestContext::PathObjectId(std::string_view name, std::string_view what) const {
  const std::string& raw = PathParam(name);
  auto id = CanonicalObjectId(raw);
  if (!id) {
    throw Error(ErrorCode::kNotFound, std::string(what) + " '" + raw +
                                          "' was not found: an id is 32 hexadecimal characters");
  }
  return *id;
}

std::optional<std::string_view> RequestContext::Query(std::string_view name) const {
  return request_.query.Get(name);
}

bool RequestContext::QueryBool(std::string_view name, bool fallback) const {
  auto value = Query(name);
  if (!value || value->empty()) return fallback;
  auto parsed = ParseBool(*value);
  if (!parsed) {
    throw Error(ErrorCode::kInvalidInput, std::string(name) + ": '" + std::string(*value) +
                                              "' is not a boolean; expected true or false");
  }
  return *parsed;
}

std::optional<int64_t> RequestContext::QueryInt(std::string_view name) const {
  auto value = Query(name);
  if (!value || value->empty()) return std::nullopt;
  auto parsed = ParseInt(*value);
  if (!parsed) {
    throw Error(ErrorCode::kInvalidInput,
                std::string(name) + ": '" + std::string(*value) + "' is not an integer");
  }
  return parsed;
}

int64_t RequestContext::RequiredQueryInt(std::string_view name) const {
  auto value = QueryInt(name);
  if (!value) {
    throw Error(ErrorCode::kMissingParameter,
                "The query parameter '" + std::string(name) + "' is required");
  }
  return *value;
}

std::vector<int> RequestContext::QueryIntList(std::string_view name) const {
  std::vector<int> values;
  for (const auto& piece : request_.query.GetList(name)) {
    auto parsed = ParseInt(piece);
    if (!parsed || *parsed < 0 || *parsed > 1'000'000) {
      throw Error(ErrorCode::kInvalidInput,
                  std::string(name) + ": '" + piece + "' is not an object type code");
    }
    values.push_back(static_cast<int>(*parsed));
  }
  return values;
}

service::object::Page RequestContext::PageParams() const {
  service::object::Page page;
  page.offset = QueryInt("offset").value_or(0);
  page.limit = QueryInt("limit").value_or(-1);
  if (page.offset < 0) {
    throw Error(ErrorCode::kInvalidInput,
                "offset: must be 0 or more, got " + std::to_string(page.offset));
  }
  if (page.limit < -1) {
    throw Error(ErrorCode::kInvalidInput,
                "limit: must be -1 (no limit) or more, got " + std::to_string(page.limit));
  }
  return page;
}

namespace {

// Whether a request has no body, or only whitespace.
bool HasNoBody(const http::Request& request) {
  if (request.body_file) return IsBlankFile(request.body_file->path());
  return Trim(request.body).empty();
}

Json RequireObject(Json body) {
  if (!body.is_object())
    throw Error(ErrorCode::kInvalidInput, "The request body must be a JSON object");
  return body;
}

}  // namespace

Json RequestContext::BodyJson() const {
  if (HasNoBody(request_)) return Json::object();
  if (request_.body_file) return RequireObject(ParseJsonFile(request_.body_file->path()));
  return RequireObject(ParseJson(request_.body));
}

StreamedArray RequestContext::BodyJsonStreaming(
    const std::vector<std::string>& array_path,
    const std::function<void(Json element)>& on_element) const {
  if (HasNoBody(request_)) return {Json::object(), false};
  StreamedArray parsed =
      request_.body_file
          ? ParseJsonFileStreamingArray(request_.body_file->path(), array_path, on_element)
          : ParseJsonStreamingArray(request_.body, array_path, on_element);
  parsed.document = RequireObject(std::move(parsed.document));
  return parsed;
}

http::Response RequestContext::Reply(int status, Json body) const {
  if (fields_.root_fields) ApplyFieldSelection(body, *fields_.root_fields);
  return http::Response::Json(status, DumpJson(body));
}

http::Response RequestContext::NoContent() { return http::Response::Empty(204); }

std::string_view RequiredAuthToken(const http::Headers& headers) {
  auto token = headers.Get("X-MSTR-AuthToken");
  if (!token) token = headers.Get("X-SVC-AuthToken");
  const std::string_view trimmed = token ? Trim(*token) : std::string_view();
  if (trimmed.empty()) {
    throw Error(ErrorCode::kSessionInvalid,
                "No authentication token: send X-MSTR-AuthToken (from POST /api/auth/login)");
  }
  return trimmed;
}

void SetTotalCount(http::Response& response, int64_t total) {
  response.headers.Set("X-MSTR-Total-Count", std::to_string(total));
  response.headers.Set("X-SVC-Total-Count", std::to_string(total));
}

}  // namespace tessera::api
