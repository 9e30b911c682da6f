#include "engine/sql/dataset_builder.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <unordered_map>

#include "core/error.h"

namespace tessera::engine::sql {
namespace {

struct CellHash {
  size_t operator()(const Cell& cell) const { return std::hash<Cell>()(cell); }
};

class AttributeBuilder {
 public:
  explicit AttributeBuilder(const AttributeSpec& spec) : spec_(spec), forms_(spec.forms.size()) {}

  // The row's element, given its forms at row[first...].
  void Add(const std::vector<Cell>& row, size_t first) {
    const Cell& id = row[first];
    if (codes_.empty() || id != last_id_) {
      last_code_ = CodeOf(NormalizedId(id), row, first);
      last_id_ = id;
    }
    codes_.push_back(last_code_);
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

  uint32_t CodeOf(const Cell& id, const std::vector<Cell>& row, size_t first) {
    auto [it, inserted] = codes_by_id_.try_emplace(id, static_cast<uint32_t>(forms_[0].size()));
    if (inserted) {
      forms_[0].push_back(id);
      for (size_t form = 1; form < forms_.size(); ++form) forms_[form].push_back(row[first + form]);
    }
    return it->second;
  }

  std::vector<uint32_t> IdOrder() const { return SortedOrder(forms_[0]); }

  std::vector<FormValues> FormsIn(const std::vector<uint32_t>& order) {
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
  std::vector<std::vector<Cell>> forms_;  // per form, by first-seen element
  std::unordered_map<Cell, uint32_t, CellHash> codes_by_id_;
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
    const std::optional<double> value = NumberOf(row[first]);
    if (!value && valid_.empty()) valid_.assign((values_.size() + 64) / 64 + 1, ~uint64_t{0});
    values_.push_back(value.value_or(0));
    if (!valid_.empty()) SetValid(values_.size() - 1, value.has_value());
    if (spec_.with_count) counts_.push_back(NumberOf(row[first + 1]).value_or(0));
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
      values_.shrink_to_fit();
      counts_.shrink_to_fit();
      column.values = std::make_shared<std::vector<double>>(std::move(values_));
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

Dataset DatasetBuilder::Finish() {
  std::vector<AttributeColumn> attributes;
  for (auto& attribute : state_->attributes) attributes.push_back(attribute.Finish());
  std::vector<MetricColumn> metrics;
  for (auto& metric : state_->metrics) {
    metrics.push_back(metric.Finish(state_->rows, metrics, attributes));
  }
  return Dataset(state_->rows, std::move(attributes), std::move(metrics));
}

}  // namespace tessera::engine::sql
