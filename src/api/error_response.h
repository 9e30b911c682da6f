// api/error_response.h
//
// Errors as HTTP answers (spec 01 §3): every error is JSON {code, message, ticketId
// [, iServerCode]} with Content-Type application/json, never trimmed by `fields`. The status and
// the ERRnnn code follow from the ErrorCode (spec 01 §3.2). Routing failures have their own exact
// messages, which the Python client recognises (spec 01 §3.3); nothing else uses them.
#pragma once

#include "core/error.h"
#include "http/message.h"

namespace tessera::api {

http::Response ErrorResponse(const Error& error);
http::Response RouteNotFoundResponse();
http::Response MethodNotAllowedResponse();
http::Response InternalErrorResponse();

}  // namespace tessera::api
