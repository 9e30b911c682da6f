// api/error_response.h
//
// Errors as HTTP answers: every error is JSON {code, message, ticketId [, iServerCode]} with
// Content-Type application/json, never trimmed by `fields`. The status and the ERRnnn code follow
// from the ErrorCode alone. Routing failures (no such path, method not allowed) have their own
// exact messages, which the Python client recognises; nothing else uses them.
#pragma once

#include "core/error.h"
#include "http/message.h"

namespace tessera::api {

// `ticket_id` is the request id of the access log, so an error can be found in the log; a fresh
// one is made when it is empty.
http::Response ErrorResponse(const Error& error, std::string_view ticket_id = {});
http::Response RouteNotFoundResponse(std::string_view ticket_id = {});
http::Response MethodNotAllowedResponse(std::string_view ticket_id = {});
http::Response InternalErrorResponse(std::string_view ticket_id = {});

}  // namespace tessera::api
