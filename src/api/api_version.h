// api/api_version.h
//
// The two generations of the REST API's answers: v1 (/api/...) and v2 (/api/v2/...). Writers of
// an answer both versions give walk it once and switch on the version where the shapes differ.
#pragma once

namespace tessera::api {

enum class ApiVersion { kV1, kV2 };

}  // namespace tessera::api
