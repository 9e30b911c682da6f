// engine/push/pushed_dataset.h
//
// The Dataset a pushed dataset becomes when published: its model (engine/push/push_model.h) and the
// rows of each of its tables (engine/push/pushed_table.h), built with DatasetBuilder.
//
//   attributes  one per model attribute, in model order, with the id PushedAttributeId; forms
//               named by category (ID first), typed by their columns (FormType);
//   metrics     one per model metric, in model order, with the id PushedMetricId; a sum, or a
//               max for a metric over BOOL columns (0/1, so "any true");
//   rows        every table contributes its own rows, tables in model order (a UNION ALL, never
//               a join, so no row and no metric value is ever counted twice).
//
// On a row of table T:
//   - a metric that has a column in T takes it; any other metric is null;
//   - an attribute whose ID form has a column in T takes its forms from T's columns. A form
//     without a column in T takes the value another table gives the same ID element (the first
//     non-null, tables in model order, rows in order); a form column in a table that lacks the
//     attribute's ID column is not read;
//   - an attribute T lacks is filled through an attribute T shares with a table H that has it:
//     the element of the first row of H whose shared attribute has the row's value (H the first
//     table in model order that has both, the shared attribute the first in model order). A null
//     shared value, or one H never has, makes the attribute null; with no such H the attribute
//     is null on every row of T.
// Integer cells of a real-typed form become reals, so a join key pushed as INTEGER in one table
// and DOUBLE in another is one element.
//
// Rows are expected as ParseChunk and ApplyUpdatePolicy give them: one cell per column of the
// table, typed by the column. A table missing from `tables` has no rows. Errors,
// Error(kInvalidInput): a table the model does not have, or a row of the wrong width.
//
// Cost: when no attribute needs a lookup or a bridge (one table, the common case) the rows are
// read in place, each attribute and metric on its own thread (DatasetBuilder::AddRowBlocks, up to
// four threads); otherwise each row is assembled and added in turn. Lookups (maps from an ID or
// shared value to an element's forms) are built only for attributes that need them.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "engine/dataset.h"
#include "engine/push/push_model.h"
#include "engine/push/pushed_table.h"

namespace tessera::engine::push {

std::shared_ptr<const Dataset> BuildPushedDataset(const std::string& dataset_id,
                                                  const PushModel& model,
                                                  const std::map<std::string, PushedRows>& tables);

// Stable ids: DeterministicObjectId (core/ids.h) of dataset_id + "attribute:" + name, of
// dataset_id + "metric:" + name, and of dataset_id + "table:" + name. 32 upper-case hex.
std::string PushedAttributeId(std::string_view dataset_id, std::string_view attribute_name);
std::string PushedMetricId(std::string_view dataset_id, std::string_view metric_name);
std::string PushedTableId(std::string_view dataset_id, std::string_view table_name);

}  // namespace tessera::engine::push
