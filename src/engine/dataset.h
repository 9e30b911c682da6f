// engine/dataset.h
//
// A Dataset: the in-memory columnar table that published cubes, report results and pushed data
// become; every view filter, selector and visualization is evaluated on one. Immutable once built
// (engine/sql/dataset_builder.h), so it is shared read-only between threads and instances
// (std::shared_ptr<const Dataset>).
//
//  - Attribute columns are dictionary-encoded (engine/dictionary.h, engine/code_column.h).
//    A hidden attribute is one the dataset keeps only for a count-distinct metric; it is not
//    offered to requests.
//  - Metric columns hold, per row, what dynamic aggregation needs to roll the metric up to any
//    subset of the attributes:
//      sum, count      `values` (a count is the row's count), rolled up by sum;
//      min, max        `values`, rolled up by min / max;
//      avg             `values` = the row's sum and `counts` = the row's count (empty `counts`:
//                      1 for every row with a value), rolled up as sum(values) / sum(counts);
//      count_distinct  the codes of `counted_attribute` (a column of the dataset, hidden or not);
//                      without one (-1), `values` holds the row's count, exact only at the
//                      dataset's full grain and null at any other level.
//    A null value is a row whose bit in `valid` is 0; an empty `valid` means no nulls. A count
//    metric with no `values` counts rows (1 per row). Columns may share one buffer of values
//    (e.g. the sum, min, max and avg of one fact at the fact's grain); memory counts it once.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/code_column.h"
#include "engine/dictionary.h"
#include "model/semantic.h"

namespace tessera::engine {

struct AttributeColumn {
  std::string id;
  std::string name;
  bool hidden = false;
  Dictionary dictionary;
  CodeColumn codes;
};

struct MetricColumn {
  std::string id;
  std::string name;
  model::AggregateFunction function = model::AggregateFunction::kSum;
  std::string format_string;
  std::shared_ptr<const std::vector<double>> values;
  std::shared_ptr<const std::vector<uint64_t>> valid;  // bit i of word i/64; null = no nulls
  std::shared_ptr<const std::vector<double>> counts;   // avg only; null = 1 per valid row
  int counted_attribute = -1;                          // count_distinct only

  bool IsValid(size_t row) const { return !valid || (((*valid)[row >> 6] >> (row & 63)) & 1) != 0; }
  bool HasNulls() const { return valid != nullptr; }
  bool CountsRows() const { return values == nullptr; }
};

class Dataset {
 public:
  Dataset() = default;
  Dataset(size_t row_count, std::vector<AttributeColumn> attributes,
          std::vector<MetricColumn> metrics);

  size_t row_count() const { return row_count_; }
  const std::vector<AttributeColumn>& attributes() const { return attributes_; }
  const std::vector<MetricColumn>& metrics() const { return metrics_; }
  const AttributeColumn& attribute(size_t index) const { return attributes_[index]; }
  const MetricColumn& metric(size_t index) const { return metrics_[index]; }

  int AttributeIndex(std::string_view id) const;  // -1 when absent
  int MetricIndex(std::string_view id) const;     // -1 when absent

  // Whether the values of metric `index` hold no -0.0. A sum of such values that starts at -0.0
  // is still -0.0 only when nothing was added to it.
  bool HoldsNoNegativeZero(size_t index) const { return no_negative_zero_[index] != 0; }

  // Bytes held: codes, metric columns and dictionaries.
  size_t MemoryBytes() const;
  // Bytes of codes and metric values alone, as if stored without overhead.
  size_t RawBytes() const;

 private:
  size_t row_count_ = 0;
  std::vector<AttributeColumn> attributes_;
  std::vector<MetricColumn> metrics_;
  std::vector<uint8_t> no_negative_zero_;  // per metric
};

}  // namespace tessera::engine
