#include "engine/push/pushed_dataset.h"

#include <algorithm>
#include <map>
#include <thread>
#include <tuple>
#include <unordered_map>
#include <variant>

#include "core/error.h"
#include "core/ids.h"
#include "engine/sql/dataset_builder.h"

namespace tessera::engine::push {
namespace {

struct CellHash {
  size_t operator()(const Cell& cell) const { return std::hash<Cell>()(cell); }
};

// An element's form values (one per form of the attribute), by a key value.
using FormMap = std::unordered_map<Cell, std::vector<Cell>, CellHash>;

Cell Normalized(const Cell& cell, model::DataType type) {
  if (type == model::DataType::kReal) {
    if (const auto* integer = std::get_if<int64_t>(&cell)) return static_cast<double>(*integer);
  }
  return cell;
}

// Where the forms of one attribute come from on the rows of one table.
struct AttributeSource {
  enum class Kind { kColumns, kLookup, kBridge, kNull } kind = Kind::kNull;
  std::vector<int> form_columns;  // kColumns: per form, the table's column
  int key_column = -1;            // kLookup: the ID column; kBridge: the shared attribute's
  model::DataType key_type = model::DataType::kText;
  const FormMap* forms = nullptr;  // kLookup, kBridge
};

class PushedDatasetBuilder {
 public:
  PushedDatasetBuilder(const PushModel& model, const std::map<std::string, PushedRows>& tables)
      : model_(model), attribute_count_(model.attributes.size()) {
    for (const auto& [name, rows] : tables) {
      const PushTable* table = model.FindTable(name);
      if (!table) {
        throw Error(ErrorCode::kInvalidInput,
                    "rows were given for table '" + name + "', which the model does not have");
      }
      for (const auto& row : rows) {
        if (row.size() != table->columns.size()) {
          throw Error(ErrorCode::kInvalidInput,
                      "a row of table '" + name + "' has " + std::to_string(row.size()) +
                          " cells; the table has " + std::to_string(table->columns.size()) +
                          " columns");
        }
      }
    }
    static const PushedRows kNoRows;
    for (const auto& table : model.tables) {
      auto it = tables.find(table.name);
      rows_.push_back(it == tables.end() ? &kNoRows : &it->second);
    }
    for (const auto& attribute : model.attributes) {
      std::vector<model::DataType> types;
      for (const auto& form : attribute.forms) types.push_back(FormType(model, form));
      form_types_.push_back(std::move(types));
    }
    PlanSources();
  }

  void Build(sql::DatasetBuilder& builder, size_t threads) const {
    if (IsDirect()) {
      builder.AddRowBlocks(DirectBlocks(), threads);
      return;
    }
    std::vector<Cell> out(builder.ColumnCount());
    for (size_t t = 0; t < model_.tables.size(); ++t) {
      const std::vector<int> metric_columns = MetricColumns(t);
      for (const auto& row : *rows_[t]) {
        size_t slot = 0;
        for (size_t a = 0; a < attribute_count_; ++a) {
          FillForms(t, a, row, out, slot);
          slot += model_.attributes[a].forms.size();
        }
        for (int column : metric_columns) {
          if (column < 0) {
            out[slot++] = Cell();
          } else {
            out[slot++] = row[static_cast<size_t>(column)];
          }
        }
        builder.AddRow(out);
      }
    }
  }

 private:
  // Every value of every row is a cell of the row's table or null, as it is: no attribute is
  // looked up or bridged, and no form but an ID form (which DatasetBuilder normalises the same
  // way) is real-typed.
  bool IsDirect() const {
    for (const auto& table_sources : sources_) {
      for (size_t a = 0; a < attribute_count_; ++a) {
        const AttributeSource::Kind kind = table_sources[a].kind;
        if (kind != AttributeSource::Kind::kColumns && kind != AttributeSource::Kind::kNull) {
          return false;
        }
        for (size_t f = 1; f < form_types_[a].size(); ++f) {
          if (form_types_[a][f] == model::DataType::kReal) return false;
        }
      }
    }
    return true;
  }

  // Per table, its rows and where each value of the dataset's row layout is in them.
  std::vector<sql::DatasetBuilder::RowBlock> DirectBlocks() const {
    std::vector<sql::DatasetBuilder::RowBlock> blocks;
    for (size_t t = 0; t < model_.tables.size(); ++t) {
      sql::DatasetBuilder::RowBlock block{rows_[t], {}};
      for (size_t a = 0; a < attribute_count_; ++a) {
        const AttributeSource& source = sources_[t][a];
        for (size_t f = 0; f < form_types_[a].size(); ++f) {
          block.columns.push_back(
              source.kind == AttributeSource::Kind::kColumns ? source.form_columns[f] : -1);
        }
      }
      for (int column : MetricColumns(t)) block.columns.push_back(column);
      blocks.push_back(std::move(block));
    }
    return blocks;
  }

  int ColumnOf(size_t table, const std::vector<PushExpression>& expressions) const {
    const PushTable& t = model_.tables[table];
    for (const auto& expression : expressions) {
      if (expression.table == t.name) return t.ColumnIndex(expression.column);
    }
    return -1;
  }

  int IdColumn(size_t table, size_t attribute) const {
    return ColumnOf(table, model_.attributes[attribute].forms.front().expressions);
  }

  std::vector<int> FormColumns(size_t table, size_t attribute) const {
    std::vector<int> columns;
    for (const auto& form : model_.attributes[attribute].forms) {
      columns.push_back(ColumnOf(table, form.expressions));
    }
    return columns;
  }

  std::vector<int> MetricColumns(size_t table) const {
    std::vector<int> columns;
    for (const auto& metric : model_.metrics)
      columns.push_back(ColumnOf(table, metric.expressions));
    return columns;
  }

  bool Present(size_t table, size_t attribute) const { return IdColumn(table, attribute) >= 0; }

  // An attribute needs a lookup when some table that has its ID lacks one of its other forms.
  bool NeedsLookup(size_t attribute) const {
    for (size_t t = 0; t < model_.tables.size(); ++t) {
      if (!Present(t, attribute)) continue;
      for (int column : FormColumns(t, attribute)) {
        if (column < 0) return true;
      }
    }
    return false;
  }

  void PlanSources() {
    const size_t table_count = model_.tables.size();
    sources_.assign(table_count, std::vector<AttributeSource>(attribute_count_));
    for (size_t a = 0; a < attribute_count_; ++a) {
      const bool needs_lookup = NeedsLookup(a);
      if (needs_lookup) lookups_[a] = BuildLookup(a);
      for (size_t t = 0; t < table_count; ++t) {
        if (!Present(t, a)) continue;
        AttributeSource& source = sources_[t][a];
        if (needs_lookup) {
          source.kind = AttributeSource::Kind::kLookup;
          source.key_column = IdColumn(t, a);
          source.key_type = form_types_[a][0];
          source.forms = &lookups_.at(a);
        } else {
          source.kind = AttributeSource::Kind::kColumns;
          source.form_columns = FormColumns(t, a);
        }
      }
    }
    // Bridges read the direct sources planned above; a bridged source is never a bridge's origin.
    std::vector<std::vector<AttributeSource>> bridged = sources_;
    for (size_t t = 0; t < table_count; ++t) {
      for (size_t a = 0; a < attribute_count_; ++a) {
        if (!Present(t, a)) PlanBridge(t, a, bridged[t][a]);
      }
    }
    sources_ = std::move(bridged);
  }

  FormMap BuildLookup(size_t attribute) const {
    FormMap lookup;
    const size_t form_count = model_.attributes[attribute].forms.size();
    const std::vector<model::DataType>& types = form_types_[attribute];
    for (size_t t = 0; t < model_.tables.size(); ++t) {
      if (!Present(t, attribute)) continue;
      const std::vector<int> columns = FormColumns(t, attribute);
      for (const auto& row : *rows_[t]) {
        Cell key = Normalized(row[static_cast<size_t>(columns[0])], types[0]);
        auto [it, inserted] = lookup.try_emplace(key, form_count);
        std::vector<Cell>& forms = it->second;
        if (inserted) forms[0] = std::move(key);
        for (size_t f = 1; f < form_count; ++f) {
          if (columns[f] < 0 || !std::holds_alternative<std::monostate>(forms[f])) continue;
          forms[f] = Normalized(row[static_cast<size_t>(columns[f])], types[f]);
        }
      }
    }
    return lookup;
  }

  // Fills `source` for attribute `a`, which table `t` lacks, through a shared attribute.
  void PlanBridge(size_t t, size_t a, AttributeSource& source) {
    for (size_t h = 0; h < model_.tables.size(); ++h) {
      if (h == t || !Present(h, a)) continue;
      for (size_t s = 0; s < attribute_count_; ++s) {
        if (s == a || !Present(t, s) || !Present(h, s)) continue;
        source.kind = AttributeSource::Kind::kBridge;
        source.key_column = IdColumn(t, s);
        source.key_type = form_types_[s][0];
        source.forms = &Bridge(h, s, a);
        return;
      }
    }
  }

  // The forms of `a` by the value of `s`, from the rows of table `h`; first row wins.
  const FormMap& Bridge(size_t h, size_t s, size_t a) {
    auto key = std::make_tuple(h, s, a);
    auto found = bridges_.find(key);
    if (found != bridges_.end()) return found->second;
    FormMap bridge;
    const int shared_column = IdColumn(h, s);
    const model::DataType shared_type = form_types_[s][0];
    std::vector<Cell> forms(model_.attributes[a].forms.size());
    for (const auto& row : *rows_[h]) {
      Cell value = Normalized(row[static_cast<size_t>(shared_column)], shared_type);
      if (std::holds_alternative<std::monostate>(value) || bridge.contains(value)) continue;
      FillForms(h, a, row, forms, 0);
      bridge.emplace(std::move(value), forms);
    }
    return bridges_.emplace(key, std::move(bridge)).first->second;
  }

  // Writes the forms of attribute `a` for `row` of table `t` at out[slot...].
  void FillForms(size_t t, size_t a, const std::vector<Cell>& row, std::vector<Cell>& out,
                 size_t slot) const {
    const AttributeSource& source = sources_[t][a];
    const std::vector<model::DataType>& types = form_types_[a];
    const size_t form_count = types.size();
    switch (source.kind) {
      case AttributeSource::Kind::kColumns:
        for (size_t f = 0; f < form_count; ++f) {
          const Cell& cell = row[static_cast<size_t>(source.form_columns[f])];
          if (types[f] == model::DataType::kReal && std::holds_alternative<int64_t>(cell)) {
            out[slot + f] = Normalized(cell, types[f]);
          } else {
            out[slot + f] = cell;
          }
        }
        return;
      case AttributeSource::Kind::kLookup:
      case AttributeSource::Kind::kBridge: {
        const Cell key = Normalized(row[static_cast<size_t>(source.key_column)], source.key_type);
        auto it = source.forms->find(key);
        for (size_t f = 0; f < form_count; ++f) {
          out[slot + f] = it == source.forms->end() ? Cell() : it->second[f];
        }
        return;
      }
      case AttributeSource::Kind::kNull:
        for (size_t f = 0; f < form_count; ++f) out[slot + f] = Cell();
        return;
    }
  }

  const PushModel& model_;
  const size_t attribute_count_;
  std::vector<const PushedRows*> rows_;                   // per table
  std::vector<std::vector<model::DataType>> form_types_;  // per attribute, per form
  std::vector<std::vector<AttributeSource>> sources_;     // per table, per attribute
  std::map<size_t, FormMap> lookups_;                     // per attribute that needs one
  std::map<std::tuple<size_t, size_t, size_t>, FormMap> bridges_;
};

std::vector<sql::AttributeSpec> AttributeSpecs(const std::string& dataset_id,
                                               const PushModel& model) {
  std::vector<sql::AttributeSpec> specs;
  for (const auto& attribute : model.attributes) {
    sql::AttributeSpec spec;
    spec.id = PushedAttributeId(dataset_id, attribute.name);
    spec.name = attribute.name;
    for (const auto& form : attribute.forms) {
      spec.forms.emplace_back(form.category, FormType(model, form));
    }
    specs.push_back(std::move(spec));
  }
  return specs;
}

std::vector<sql::MetricSpec> MetricSpecs(const std::string& dataset_id, const PushModel& model) {
  std::vector<sql::MetricSpec> specs;
  for (const auto& metric : model.metrics) {
    sql::MetricSpec spec;
    spec.id = PushedMetricId(dataset_id, metric.name);
    spec.name = metric.name;
    spec.function = IsBooleanMetric(model, metric) ? model::AggregateFunction::kMax
                                                   : model::AggregateFunction::kSum;
    specs.push_back(std::move(spec));
  }
  return specs;
}

}  // namespace

std::shared_ptr<const Dataset> BuildPushedDataset(const std::string& dataset_id,
                                                  const PushModel& model,
                                                  const std::map<std::string, PushedRows>& tables) {
  // A publish is a burst of work a client waits for; a few threads shorten it.
  const size_t threads = std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 4);
  PushedDatasetBuilder pushed(model, tables);
  sql::DatasetBuilder builder(AttributeSpecs(dataset_id, model), MetricSpecs(dataset_id, model));
  pushed.Build(builder, threads);
  return std::make_shared<const Dataset>(builder.Finish(threads));
}

std::string PushedAttributeId(std::string_view dataset_id, std::string_view attribute_name) {
  return DeterministicObjectId(std::string(dataset_id) +
                               "attribute:" + std::string(attribute_name));
}

std::string PushedMetricId(std::string_view dataset_id, std::string_view metric_name) {
  return DeterministicObjectId(std::string(dataset_id) + "metric:" + std::string(metric_name));
}

std::string PushedTableId(std::string_view dataset_id, std::string_view table_name) {
  return DeterministicObjectId(std::string(dataset_id) + "table:" + std::string(table_name));
}

}  // namespace tessera::engine::push
