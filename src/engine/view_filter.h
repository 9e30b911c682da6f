// engine/view_filter.h
//
// A view filter (a qualification tree, engine/qualification.h) compiled against a Dataset into a
// RowFilter (engine/cube_query.h). It applies to the dataset's rows, before aggregation: a metric
// qualification compares each row's own value, at the dataset's level.
//
// Operands name the dataset's visible attributes, their forms and its metric columns by id
// (forms by engine::FormId of their name, or by name when the id is absent). Supported:
//   And, Or (at least 2 operands), Not (1), and the symbols of engine::CanonicalOperator;
//   In / NotIn            attribute + elements (element ids in either form, engine/element_id.h;
//                         an id whose value does not exist matches nothing), form + constants;
//   Equals, NotEqual, Greater, Less, GreaterEqual, LessEqual, Between, NotBetween
//                         form + constant(s): numeric forms compare numbers, others text (dates as
//                         yyyy-MM-dd, datetimes as yyyy-MM-ddTHH:mm:ss); metric + constant(s);
//   IsNull / IsNotNull    form or metric;
//   Like, Contains, BeginsWith, EndsWith and their Not* forms: form + one Char constant, matched
//                         case-insensitively (Like: `%` and `_` wildcards).
// Constants are {"type":"constant","dataType","value"} / {"type":"constants","dataType","values"}
// with string values (JSON numbers accepted). Date constants may be yyyy-MM-dd or M/d/yyyy.
//
// Errors, Error(kInvalidInput) with these messages: "Invalid operator - X", "There should be N
// operands for operator - X", "The operands type combination of [a, b] is not supported for
// operator - X", "Invalid attribute id - X" (not an id), "Failed to find the attribute X in the
// report or cube." (an id the dataset does not have), the same pair for metrics, "Invalid
// attribute form id - X", "Invalid element id - X" (also: an element of another attribute),
// "Invalid constant data type for metric qualification - X" (allowed: Real, BigDecimal, Int64),
// "Invalid constant data type for attribute form qualification - X" (allowed: Real, BigDecimal,
// Date, Time, TimeStamp, Char), "Invalid constant value - X" for a value its data type or a
// numeric form cannot read, and an unknown operand type naming the known ones.
// Error(kNotSupported) for Rank.* / Percent.* (they apply to computed grids: metric limits),
// comparisons of a metric with another metric, and Date constants on metrics.
// A null tree (or an absent one) keeps every row.
#pragma once

#include "core/json.h"
#include "engine/cube_query.h"
#include "engine/dataset.h"

namespace tessera::engine {

RowFilter CompileViewFilter(const Dataset& dataset, const Json& tree);

}  // namespace tessera::engine
