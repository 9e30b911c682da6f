// engine/sql/dataset_builder.h
//
// Builds a Dataset row by row, from a warehouse result (it is a RowSink) or from rows pushed by a
// client. The row layout is fixed by the specs given at construction:
//
//   for each attribute, one value per form (forms in the spec's order, the ID form first);
//   then for each metric its value, and for an avg metric with `with_count` its count after it
//   (metrics that share another's values, count rows, or count distinct codes of an attribute
//   take no column).
//
// Rows with the same ID value of an attribute share one element; the element keeps the form values
// of the first row that named it. A metric value that is null (or not a number) is a null. Finish()
// orders each dictionary by the ID form, renumbers the codes and narrows them. Memory while
// building: 4 bytes per row per attribute plus the metric columns, whatever the source.
//
// Errors: Error(kInvalidInput) for a row of the wrong length, a count_distinct metric naming an
// attribute that is not among the specs, or an attribute without forms.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/dataset.h"
#include "engine/warehouse/warehouse.h"

namespace tessera::engine::sql {

struct AttributeSpec {
  std::string id;
  std::string name;
  std::vector<std::pair<std::string, model::DataType>> forms;  // ID form first
  bool hidden = false;
};

struct MetricSpec {
  std::string id;
  std::string name;
  model::AggregateFunction function = model::AggregateFunction::kSum;
  std::string format_string;
  bool with_count = false;           // avg: a count column follows the value
  std::string counted_attribute_id;  // count_distinct: the attribute whose codes are counted
  // Takes no column of the row: shares the values (and nulls) of the earlier metric with this id.
  std::string shares_values_of;
  bool counts_rows = false;  // count: takes no column; 1 per row
};

class DatasetBuilder : public warehouse::RowSink {
 public:
  DatasetBuilder(std::vector<AttributeSpec> attributes, std::vector<MetricSpec> metrics);
  ~DatasetBuilder() override;

  size_t ColumnCount() const;
  void AddRow(const std::vector<Cell>& row);
  size_t row_count() const;

  // Stored rows read through a column map: value i of row r is (*rows)[r][columns[i]], or null
  // where columns[i] < 0. `columns` has ColumnCount() entries.
  struct RowBlock {
    const std::vector<std::vector<Cell>>* rows = nullptr;
    std::vector<int> columns;
  };
  // The same as AddRow of every row of every block, in order, but each attribute and metric is
  // filled on its own, on up to `threads` threads, and no row is copied. Error(kInvalidInput)
  // for a column map of the wrong width or a row too short for it, before any row is added.
  void AddRowBlocks(const std::vector<RowBlock>& blocks, size_t threads);

  // `threads`: the attributes' dictionaries are ordered on up to that many threads.
  Dataset Finish(size_t threads = 1);

  // RowSink: OnColumns checks the column count; OnRow is AddRow.
  void OnColumns(const std::vector<std::string>& names) override;
  void OnRow(const std::vector<warehouse::SqlValue>& row) override { AddRow(row); }

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace tessera::engine::sql
