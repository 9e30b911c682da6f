// api/grid_params.h
//
// The query parameters of a grid page, shared by report, cube and dashboard visualization results:
// `offset` (0 or more, default 0) and `limit` (1 or more, or -1 for every row; default 1000),
// Error(kInvalidInput) otherwise; and the v2 `fields` exclusions -data.metricValues.raw, .formatted
// and .extras (other rules are ignored).
#pragma once

#include "api/grid_result.h"
#include "api/request_context.h"

namespace tessera::api {

GridPage PageOf(const RequestContext& context);
MetricValueParts PartsOf(const RequestContext& context);

}  // namespace tessera::api
