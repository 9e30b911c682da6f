// api/grid/grid_params.h
//
// The query parameters of a grid page, shared by report, cube and dashboard visualization results:
// `offset` (0 or more, default 0) and `limit` (1 or more, or -1 for every row; default 1000),
// Error(kInvalidInput) otherwise. (The v2 `fields` exclusions are a dialect of
// api/partial_response.h.)
#pragma once

#include "api/grid/grid_result.h"
#include "api/request_context.h"

namespace tessera::api::grid {

GridPage PageOf(const RequestContext& context);

}  // namespace tessera::api::grid
