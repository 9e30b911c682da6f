// api/openapi_document.h
//
// The API reference, embedded at build time: the OpenAPI 3.1 document merged from
// src/api/openapi/ (base.json and one file of paths per endpoint family) and the page that
// browses it. The texts are fixed for the life of the process; the document is valid JSON (the
// build fails otherwise) whose `paths` name every route of the API and nothing else, which
// tests/api/ops/openapi_api_test.cc checks against the router.
#pragma once

#include <string_view>

namespace tessera::api {

// The OpenAPI document as merged, with `servers` naming no context path.
std::string_view OpenApiDocumentText();
// A self-contained HTML page (no script or style from elsewhere) that fetches
// "<its own path>/openapi.json" and lists every operation with its parameters and schemas.
std::string_view ApiDocsPageText();

}  // namespace tessera::api
