// api/dataset/dataset_kind_hint.h
//
// Where a request belongs that named a dataset of the other kind
// (service::instance::WrongDatasetKind: a cube id on a report path, or a report id on a cube path).
// The answer keeps the error's code (404 ERR004: no such report, or no such cube) and its message
// gains "; use <path>": the same request with its "/reports/" and "/cubes/" segments swapped when
// the API has that route for the request's method, else the definition path of what the id names
// (/api/cubes/{id} or /api/reports/{id}). Paths carry the context path.
#pragma once

#include <string_view>

#include "core/error.h"
#include "http/router.h"
#include "service/instance/dataset_kind.h"

namespace tessera::api::dataset {

// `path` is the request's path without the context path.
Error WithEndpointHint(const service::instance::WrongDatasetKind& error, const http::Router& router,
                       std::string_view method, std::string_view path,
                       std::string_view context_path);

}  // namespace tessera::api::dataset
