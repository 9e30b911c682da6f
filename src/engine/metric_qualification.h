// engine/metric_qualification.h
//
// The expression of a dashboard metric-qualification selector compiled into the `group_filter` of
// a CubeQuery (engine/cube_query.h): a condition on the aggregated groups of the target
// visualization, evaluated at the level of its row attributes. The metric
// qualified need not be shown: the caller adds it to the query as a hidden request and passes the
// ids of all the query's requests, hidden ones included, in order; the compiled leaves refer to
// positions in `request_ids` (ids are compared case-insensitively as object ids).
//
// Grammar: a node is {"operator": O, "operands": [...]}; O may be And, Or (two or more nodes),
// Not (one node), or a leaf whose first operand is {"type":"metric","id":M} and whose other
// operands are numeric constants {"type":"constant","dataType":"Real"|"BigDecimal"|"Int64",
// "value":"1000"} (a string or a JSON number):
//   Equals NotEqual Greater Less GreaterEqual LessEqual (and = != > < >= <=)   one constant
//   Between NotBetween                          two constants, bounds inclusive
//   In NotIn                                    one
//   {"type":"constants","dataType":..,"values":[..]}
//                                               operand, or one or more constant operands
//   IsNull IsNotNull                            no constant
//   Rank.S and Percent.S, S one of Top Bottom ExcludeTop ExcludeBottom Equals DifferentFrom
//                                               (one constant), Between NotBetween (two)
// A null value satisfies only IsNull. Rank amounts are whole numbers; Percent amounts are "40%",
// a fraction "0.4", or a number above 1 without `%` read as a percentage ("1" is 100%).
//
// Ranks (engine/cube_query.h): a group's rank is 1 + the number of groups with a strictly better
// value, among all aggregated groups, so ties share a rank; groups with a null value have no rank
// and no Rank/Percent operator keeps them. Top n keeps ranks 1..n, counted from the greatest
// value; Bottom n the same from the smallest; ExcludeTop / ExcludeBottom keep the other ranked
// groups. Between a b keeps ranks a..b counted from the top (Between 0 b is Top b), Equals n is
// Between n n (it keeps nothing when tied groups skip rank n), NotBetween and DifferentFrom keep
// the other ranked groups. A Percent amount p stands for the rank ceil(p × N / 100), N being the
// number of ranked groups: Percent.S is Rank.S with its amounts so converted (Percent.Top 20 of 10
// groups is Rank.Top 2; Percent.Between 20 40 is Rank.Between 2 4).
//
// Errors, all Error(kInvalidInput): an unknown operator ("Invalid operator - X"), a first operand
// that is not a metric, a metric not in `request_ids`, a wrong number of operands
// ("There should be N operands for operator - X"), other operand types ("The operands type
// combination of [...] is not supported for operator - X"), and non-numeric constants, a constant
// data type other than the three above, or a rank that is not a whole number ("Invalid constant
// value - X").
#pragma once

#include <string>
#include <vector>

#include "core/json.h"
#include "engine/cube_query.h"

namespace tessera::engine {

MetricLimit CompileMetricQualification(const Json& expression,
                                       const std::vector<std::string>& request_ids);

}  // namespace tessera::engine
