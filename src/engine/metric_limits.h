// engine/metric_limits.h
//
// The metricLimits of an instance request compiled into the MetricLimit of a CubeQuery
// (engine/cube_query.h): conditions on the aggregated grid rows, applied after aggregation, so a
// limit keeps or drops whole rows of the grid.
//
// `limits` is an object {"<metric id>": expression, ...}; the expressions use the grammar of view
// filters (engine/view_filter.h) restricted to metric leaves whose first operand is the metric of
// their key: Equals, NotEqual, Greater, Less, GreaterEqual, LessEqual (and symbols), Between,
// NotBetween, IsNull, IsNotNull with Real / BigDecimal / Int64 constants; Rank.Top and
// Rank.Bottom with a count; Percent.Top and Percent.Bottom with "20%" or a fraction "0.2" (a
// value above 1 without `%` is read as a percentage); combined with And, Or and Not. Several keys
// are ANDed. `returned_metric_ids` are the ids of the query's returned metrics, in order; the
// compiled leaves refer to positions in it. A null or empty object limits nothing (nullopt).
//
// Errors, Error(kInvalidInput): "Invalid metric id - X" (a key that is not an id), "Failed to find
// the metric X in the report or cube." (a metric the grid does not return), "In metric limits,
// target object must be metric, but the first operand is <type> for key X", "In metric limits,
// the metric id X is in a first operand and should be same with corresponding key Y", a limits
// value that is not an object, and the operator, operand-count, data-type and value errors of
// view filters. Error(kNotSupported) for the other Rank.* / Percent.* operators.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/json.h"
#include "engine/cube_query.h"

namespace tessera::engine {

std::optional<MetricLimit> CompileMetricLimits(const Json& limits,
                                               const std::vector<std::string>& returned_metric_ids);

}  // namespace tessera::engine
