// tests/support/exchange_recorder.h
//
// Records the HTTP exchanges of the API tests for the OpenAPI validator
// (tests/openapi/validate_records.py), which checks each one against the API reference.
//
// Contract: when the environment variable TESSERA_OPENAPI_RECORD_DIR is set (CMake sets it for
// the API test runs), RecordExchange appends one JSON line per exchange to
// "<dir>/exchanges-<pid>.jsonl" (one file per process, created with the directory when missing):
//   {"test", "method", "target", "status", "contentType", "requestContentType",
//    "requestBody", "responseBody"}
// where `target` is the path and query as sent and a body is kept as text when it is JSON of at
// most kMaxRecordedBodyBytes and the bodies the test kept so far total at most
// kMaxRecordedBodyBytesPerTest, else null (with "responseBodyBytes" its size): a test that pages
// through a million rows gets its first pages checked, not every one of them. Unset, it does
// nothing. Thread-safe. A failure to write fails the running test rather than losing records.
#pragma once

#include <cstddef>
#include <string_view>

#include "http/message.h"

namespace tessera::testing {

inline constexpr size_t kMaxRecordedBodyBytes = size_t{1} << 20;
inline constexpr size_t kMaxRecordedBodyBytesPerTest = size_t{8} << 20;

void RecordExchange(std::string_view method, std::string_view target,
                    const http::Headers& request_headers, std::string_view request_body,
                    const http::Response& response);

}  // namespace tessera::testing
