#include "engine/sql/dataset_builder.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <functional>
#include <numeric>
#include <thread>

#include "core/error.h"
#include "engine/element_index.h"
#include "engine/huge_pages.h"

namespace tessera::engine::sql {
namespace {

// A row block's rows are separate allocations: a pass down one column of a million of them waits
// on memory at every row unless it asks for the cells a few rows ahead.
constexpr size_t kPrefetchRows = 16;

void PrefetchCell(const std::vector<std::vector<Cell>>& rows, size_t row, int column) {
  if (row < rows.size() && column >= 0) __builtin_prefetch(rows[row].data() + column);
}

class AttributeBuilder {
 public:
  explicit AttributeBuilder(const AttributeSpec& spec) : spec_(spec), forms_(spec.forms.size()) {}

  // The row's element, given its forms at row[first...].
  void Add(const std::vector<Cell>& row, size_t first) {
    const Cell& id = row[first];
    if (codes_.empty() || id != last_id_) {
      last_code_ = CodeOfId(id, [&](size_t form) -> const Cell& { return row[first + form]; });
      last_id_ = id;
    }
    codes_.push_back(last_code_);
  }

  // Add of every row of `block`, whose rows outlive the call, so the last ID is not copied.
  void AddBlock(const DatasetBuilder::RowBlock& block, size_t first) {
    static const Cell kNull;
    const int* columns = block.columns.data() + first;
    auto form_of = [&](const std::vector<Cell>& row, size_t form) -> const Cell& {
      return columns[form] < 0 ? kNull : row[static_cast<size_t>(columns[form])];
    };
    codes_.reserve(codes_.size() + block.rows->size());
    const Cell* last_id = codes_.empty() ? nullptr : &last_id_;
    const auto& rows = *block.rows;
    for (size_t r = 0; r < rows.size(); ++r) {
      PrefetchCell(rows, r + kPrefetchRows, columns[0]);
      const auto& row = rows[r];
      const Cell& id = form_of(row, 0);
      if (!last_id || id != *last_id) {
        last_code_ = CodeOfId(id, [&](size_t form) -> const Cell& { return form_of(row, form); });
        last_id = &id;
      }
      codes_.push_back(last_code_);
    }
    if (last_id) last_id_ = *last_id;
  }

  AttributeColumn Finish() {
    const std::vector<uint32_t> order = IdOrder();
    std::vector<uint32_t> renumbered(order.size());
    for (uint32_t code = 0; code < order.size(); ++code) renumbered[order[code]] = code;
    for (auto& code : codes_) code = renumbered[code];
    AttributeColumn column{spec_.id, spec_.name, spec_.hidden, Dictionary(FormsIn(order)),
                           CodeColumn(codes_, order.size())};
    codes_ = {};
    return column;
  }

 private:
  // Equal numbers are one element whether a row gives them as integer or real: the ID takes the
  // ID form's declared type where it can.
  Cell NormalizedId(const Cell& id) const {
    const model::DataType type = spec_.forms[0].second;
    if (const auto* real = std::get_if<double>(&id)) {
      if (type == model::DataType::kInteger && std::trunc(*real) == *real &&
          std::abs(*real) < 9.0e15) {
        return static_cast<int64_t>(*real);
      }
    } else if (const auto* integer = std::get_if<int64_t>(&id)) {
      if (type == model::DataType::kReal) return static_cast<double>(*integer);
    }
    return id;
  }

  // The code of the element `id` names (before NormalizedId), added with the forms of the row
  // when new; `form_at(f)` is the row's value of form f.
  template <class FormAt>
  uint32_t CodeOfId(const Cell& id, FormAt form_at) {
    const bool is_kept =
        std::holds_alternative<std::string>(id) || std::holds_alternative<std::monostate>(id);
    return is_kept ? CodeOf(id, form_at) : CodeOf(NormalizedId(id), form_at);
  }

  // `form_at(f)` is the row's value of form f.
  template <class FormAt>
  uint32_t CodeOf(const Cell& id, FormAt form_at) {
    const auto [code, is_new] = ids_.Intern(id);
    if (is_new) {
      for (size_t form = 1; form < forms_.size(); ++form) forms_[form].push_back(form_at(form));
    }
    return code;
  }

  std::vector<uint32_t> IdOrder() const { return SortedOrder(ids_.cells()); }

  std::vector<FormValues> FormsIn(const std::vector<uint32_t>& order) {
    forms_[0] = ids_.TakeCells();
    std::vector<FormValues> forms;
    for (size_t form = 0; form < forms_.size(); ++form) {
      FormValues values{spec_.forms[form].first, spec_.forms[form].second, {}, {}};
      values.values.reserve(order.size());
      for (uint32_t old_code : order) values.values.push_back(std::move(forms_[form][old_code]));
      forms.push_back(std::move(values));
    }
    return forms;
  }

  const AttributeSpec& spec_;
  ElementIndex ids_;                      // the ID form's values, by first-seen element
  std::vector<std::vector<Cell>> forms_;  // per form but the ID form, by first-seen element
  std::vector<uint32_t> codes_;
  Cell last_id_;
  uint32_t last_code_ = 0;
};

std::optional<double> NumberOf(const Cell& cell) {
  if (const auto* real = std::get_if<double>(&cell)) return *real;
  if (const auto* integer = std::get_if<int64_t>(&cell)) return static_cast<double>(*integer);
  return std::nullopt;
}

class MetricBuilder {
 public:
  explicit MetricBuilder(const MetricSpec& spec) : spec_(spec) {}

  bool TakesColumn() const {
    return spec_.shares_values_of.empty() && !spec_.counts_rows &&
           !(spec_.function == model::AggregateFunction::kCountDistinct &&
             !spec_.counted_attribute_id.empty());
  }
  size_t ColumnCount() const { return TakesColumn() ? (spec_.with_count ? 2 : 1) : 0; }

  void Add(const std::vector<Cell>& row, size_t first) {
    if (!TakesColumn()) return;
    AddValue(row[first]);
    if (spec_.with_count) counts_.push_back(NumberOf(row[first + 1]).value_or(0));
  }

  // Add of every row of `block`.
  void AddBlock(const DatasetBuilder::RowBlock& block, size_t first) {
    if (!TakesColumn()) return;
    static const Cell kNull;
    const int value_column = block.columns[first];
    const int count_column = spec_.with_count ? block.columns[first + 1] : -1;
    values_.reserve(values_.size() + block.rows->size());
    const auto& rows = *block.rows;
    for (size_t r = 0; r < rows.size(); ++r) {
      PrefetchCell(rows, r + kPrefetchRows, value_column);
      const auto& row = rows[r];
      AddValue(value_column < 0 ? kNull : row[static_cast<size_t>(value_column)]);
      if (spec_.with_count) {
        counts_.push_back(
            count_column < 0 ? 0 : NumberOf(row[static_cast<size_t>(count_column)]).value_or(0));
      }
    }
  }

  MetricColumn Finish(size_t row_count, const std::vector<MetricColumn>& earlier,
                      const std::vector<AttributeColumn>& attributes) {
    MetricColumn column;
    column.id = spec_.id;
    column.name = spec_.name;
    column.function = spec_.function;
    column.format_string = spec_.format_string;
    if (!spec_.shares_values_of.empty()) {
      ShareValuesOf(column, earlier);
    } else if (TakesColumn()) {
      counts_.shrink_to_fit();
      column.values = std::make_shared<std::vector<double>>(IntoColumnBuffer(std::move(values_)));
      if (!valid_.empty()) {
        valid_.resize((row_count + 63) / 64);
        column.valid = std::make_shared<std::vector<uint64_t>>(std::move(valid_));
      }
      if (spec_.with_count)
        column.counts = std::make_shared<std::vector<double>>(std::move(counts_));
    }
    if (!spec_.counted_attribute_id.empty()) column.counted_attribute = AttributeOf(attributes);
    return column;
  }

 private:
  void AddValue(const Cell& cell) {
    const std::optional<double> value = NumberOf(cell);
    if (!value && valid_.empty()) valid_.assign((values_.size() + 64) / 64 + 1, ~uint64_t{0});
    values_.push_back(value.value_or(0));
    if (!valid_.empty()) SetValid(values_.size() - 1, value.has_value());
  }

  void SetValid(size_t row, bool valid) {
    if (row / 64 >= valid_.size()) valid_.resize(valid_.size() * 2, ~uint64_t{0});
    const uint64_t bit = uint64_t{1} << (row & 63);
    valid_[row / 64] = valid ? (valid_[row / 64] | bit) : (valid_[row / 64] & ~bit);
  }

  void ShareValuesOf(MetricColumn& column, const std::vector<MetricColumn>& earlier) const {
    for (const auto& other : earlier) {
      if (other.id != spec_.shares_values_of) continue;
      column.values = other.values;
      column.valid = other.valid;
      return;
    }
    throw Error(ErrorCode::kInvalidInput, "metric '" + spec_.name + "' shares the values of '" +
                                              spec_.shares_values_of +
                                              "', which is not an earlier metric");
  }

  int AttributeOf(const std::vector<AttributeColumn>& attributes) const {
    for (size_t i = 0; i < attributes.size(); ++i) {
      if (attributes[i].id == spec_.counted_attribute_id) return static_cast<int>(i);
    }
    throw Error(ErrorCode::kInvalidInput, "metric '" + spec_.name + "' counts attribute '" +
                                              spec_.counted_attribute_id +
                                              "', which is not an attribute of the dataset");
  }

  const MetricSpec& spec_;
  std::vector<double> values_;
  std::vector<uint64_t> valid_;
  std::vector<double> counts_;
};

// task(i) for every i < task_count, on this thread and up to threads - 1 more, each thread
// taking the next task not yet taken. The fault of the first failing task, in task order, is
// thrown once all have ended.
void RunTasks(size_t task_count, size_t threads, const std::function<void(size_t)>& task) {
  std::vector<std::exception_ptr> faults(task_count);
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < task_count; i = next++) {
      try {
        task(i);
      } catch (...) {
        faults[i] = std::current_exception();
      }
    }
  };
  std::vector<std::thread> helpers;
  for (size_t t = 1; t < std::min(threads, task_count); ++t) helpers.emplace_back(work);
  work();
  for (auto& helper : helpers) helper.join();
  for (const auto& fault : faults) {
    if (fault) std::rethrow_exception(fault);
  }
}

}  // namespace

struct DatasetBuilder::State {
  std::vector<AttributeSpec> attribute_specs;
  std::vector<MetricSpec> metric_specs;
  std::vector<AttributeBuilder> attributes;
  std::vector<MetricBuilder> metrics;
  size_t column_count = 0;
  size_t rows = 0;
};

DatasetBuilder::DatasetBuilder(std::vector<AttributeSpec> attributes,
                               std::vector<MetricSpec> metrics)
    : state_(std::make_unique<State>()) {
  state_->attribute_specs = std::move(attributes);
  state_->metric_specs = std::move(metrics);
  for (const auto& spec : state_->attribute_specs) {
    if (spec.forms.empty()) {
      throw Error(ErrorCode::kInvalidInput, "attribute '" + spec.name + "' has no forms");
    }
    state_->attributes.emplace_back(spec);
    state_->column_count += spec.forms.size();
  }
  for (const auto& spec : state_->metric_specs) {
    state_->metrics.emplace_back(spec);
    state_->column_count += state_->metrics.back().ColumnCount();
    const auto& attribute_specs = state_->attribute_specs;
    if (!spec.counted_attribute_id.empty() &&
        std::none_of(attribute_specs.begin(), attribute_specs.end(),
                     [&](const AttributeSpec& a) { return a.id == spec.counted_attribute_id; })) {
      throw Error(ErrorCode::kInvalidInput, "metric '" + spec.name + "' counts attribute '" +
                                                spec.counted_attribute_id +
                                                "', which is not an attribute of the dataset");
    }
  }
}

DatasetBuilder::~DatasetBuilder() = default;

size_t DatasetBuilder::ColumnCount() const { return state_->column_count; }
size_t DatasetBuilder::row_count() const { return state_->rows; }

void DatasetBuilder::OnColumns(const std::vector<std::string>& names) {
  if (names.size() != state_->column_count) {
    throw Error(ErrorCode::kInvalidInput, "the result has " + std::to_string(names.size()) +
                                              " columns; the dataset needs " +
                                              std::to_string(state_->column_count));
  }
}

void DatasetBuilder::AddRow(const std::vector<Cell>& row) {
  if (row.size() != state_->column_count) {
    throw Error(ErrorCode::kInvalidInput, "a row has " + std::to_string(row.size()) +
                                              " values; the dataset needs " +
                                              std::to_string(state_->column_count));
  }
  size_t column = 0;
  for (size_t i = 0; i < state_->attributes.size(); ++i) {
    state_->attributes[i].Add(row, column);
    column += state_->attribute_specs[i].forms.size();
  }
  for (auto& metric : state_->metrics) {
    metric.Add(row, column);
    column += metric.ColumnCount();
  }
  ++state_->rows;
}

void DatasetBuilder::AddRowBlocks(const std::vector<RowBlock>& blocks, size_t threads) {
  for (const auto& block : blocks) {
    if (block.columns.size() != state_->column_count) {
      throw Error(ErrorCode::kInvalidInput,
                  "a row block has " + std::to_string(block.columns.size()) +
                      " columns; the dataset needs " + std::to_string(state_->column_count));
    }
    int widest = -1;
    for (int column : block.columns) widest = std::max(widest, column);
    for (const auto& row : *block.rows) {
      if (static_cast<int>(row.size()) <= widest) {
        throw Error(ErrorCode::kInvalidInput, "a row has " + std::to_string(row.size()) +
                                                  " values; the row block reads " + "its value " +
                                                  std::to_string(widest + 1));
      }
    }
  }
  std::vector<size_t> firsts;  // per attribute, then per metric: its first column
  size_t column = 0;
  for (const auto& spec : state_->attribute_specs) {
    firsts.push_back(column);
    column += spec.forms.size();
  }
  for (const auto& metric : state_->metrics) {
    firsts.push_back(column);
    column += metric.ColumnCount();
  }
  const size_t attribute_count = state_->attributes.size();
  RunTasks(firsts.size(), threads, [&](size_t task) {
    for (const auto& block : blocks) {
      if (task < attribute_count) {
        state_->attributes[task].AddBlock(block, firsts[task]);
      } else {
        state_->metrics[task - attribute_count].AddBlock(block, firsts[task]);
      }
    }
  });
  for (const auto& block : blocks) state_->rows += block.rows->size();
}

Dataset DatasetBuilder::Finish(size_t threads) {
  std::vector<AttributeColumn> attributes(state_->attributes.size());
  RunTasks(attributes.size(), threads,
           [&](size_t i) { attributes[i] = state_->attributes[i].Finish(); });
  std::vector<MetricColumn> metrics;
  for (auto& metric : state_->metrics) {
    metrics.push_back(metric.Finish(state_->rows, metrics, attributes));
  }
  return Dataset(state_->rows, std::move(attributes), std::move(metrics));
}

}  // namespace tessera::engine::sql
