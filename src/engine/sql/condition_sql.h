// engine/sql/condition_sql.h
//
// SQL conditions from qualification trees already checked by SplitByLevel (qualification.h):
// RowCondition for attribute and form qualifications (WHERE), GroupCondition for metric
// qualifications (HAVING). Every constant becomes a bound parameter converted to the column's
// type; an element that cannot be of that type matches nothing (an element list naming no element
// of the attribute selects no row), and a form constant that cannot is Error(kInvalidInput).
#pragma once

#include <string>

#include "core/json.h"
#include "engine/sql/select_builder.h"

namespace tessera::engine::sql {

std::string RowCondition(SelectBuilder& builder, const Json& tree);
std::string GroupCondition(SelectBuilder& builder, const Json& tree);

// `text` as a value of a column of `type`: integers, reals, dates "yyyy-MM-dd" (M/d/yyyy is
// accepted), text as is. nullopt when it cannot be one.
std::optional<warehouse::SqlValue> ValueOfType(const std::string& text, model::DataType type);

}  // namespace tessera::engine::sql
