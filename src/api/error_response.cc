#include "api/error_response.h"

#include "core/ids.h"
#include "core/json.h"

namespace tessera::api {

namespace {

struct StatusAndCode {
  int status;
  const char* code;
};

StatusAndCode Classify(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInternal:
      return {500, "ERR001"};
    case ErrorCode::kEngine:
      return {500, "ERR002"};
    case ErrorCode::kAuthenticationFailed:
      return {401, "ERR003"};
    case ErrorCode::kLoginModeDisabled:
      return {401, "ERR001"};
    case ErrorCode::kNotFound:
      return {404, "ERR004"};
    case ErrorCode::kMissingParameter:
      return {400, "ERR005"};
    case ErrorCode::kInvalidInput:
      return {400, "ERR006"};
    case ErrorCode::kMissingField:
      return {400, "ERR007"};
    case ErrorCode::kSessionInvalid:
      return {401, "ERR009"};
    case ErrorCode::kNotSupported:
      return {400, "ERR010"};
    case ErrorCode::kEngineUnreachable:
      return {503, "ERR013"};
    case ErrorCode::kInsufficientPrivileges:
      return {403, "ERR014"};
    case ErrorCode::kAlreadyExists:
      return {409, "ERR015"};
    case ErrorCode::kStorageUnavailable:
      return {503, "ERR016"};
    case ErrorCode::kServiceUnavailable:
      return {503, "ERR016"};
    case ErrorCode::kAccessDenied:
      return {403, "ERR017"};
    case ErrorCode::kPayloadTooLarge:
      return {413, "ERR006"};
    case ErrorCode::kTimeout:
      return {503, "ERR001"};
    case ErrorCode::kNothingToDelete:
      return {404, "ERR006"};
    case ErrorCode::kTooManyRequests:
      return {429, "ERR003"};
  }
  return {500, "ERR001"};
}

http::Response Build(int status, const char* code, std::string_view message,
                     std::optional<int64_t> iserver_code, std::string_view ticket_id) {
  Json body = {{"code", code},
               {"message", message},
               {"ticketId", ticket_id.empty() ? NewTicketId() : std::string(ticket_id)}};
  if (iserver_code) body["iServerCode"] = *iserver_code;
  return http::Response::Json(status, DumpJson(body));
}

}  // namespace

http::Response ErrorResponse(const Error& error, std::string_view ticket_id) {
  StatusAndCode mapped = Classify(error.code());
  auto iserver_code = error.iserver_code();
  if (!iserver_code && error.code() == ErrorCode::kTimeout) iserver_code = -2147206497;
  http::Response response =
      Build(mapped.status, mapped.code, error.message(), iserver_code, ticket_id);
  if (auto seconds = error.retry_after_seconds()) {
    response.headers.Set("Retry-After", std::to_string(*seconds));
  }
  return response;
}

http::Response RouteNotFoundResponse(std::string_view ticket_id) {
  return Build(404, "ERR004", "HTTP 404 Not Found", std::nullopt, ticket_id);
}

http::Response MethodNotAllowedResponse(std::string_view ticket_id) {
  return Build(405, "ERR001", "HTTP 405 Method Not Allowed", std::nullopt, ticket_id);
}

http::Response InternalErrorResponse(std::string_view ticket_id) {
  return Build(500, "ERR001", "The server failed to process the request; see its log", std::nullopt,
               ticket_id);
}

}  // namespace tessera::api
