#include "engine/rollup_set.h"

#include <algorithm>
#include <numeric>

#include "engine/cube_executor.h"
#include "engine/group_aggregator.h"
#include "engine/row_selection.h"

namespace tessera::engine {
namespace {

using model::AggregateFunction;

bool Holds(const std::vector<int>& sorted, int value) {
  return std::binary_search(sorted.begin(), sorted.end(), value);
}

// How a roll-up column is made from the aggregated columns of its source.
struct ColumnPlan {
  enum class Kind { kValue, kRows, kAvg, kDistinct };
  Kind kind = Kind::kValue;
  int base_metric = -1;
  const MetricColumn* source = nullptr;
  size_t first_group_column = 0;  // in the aggregation; an avg uses two
};

// The base metrics a roll-up to `grain` can keep.
std::vector<int> MetricsAtGrain(const Dataset& base, const std::vector<int>& grain) {
  std::vector<int> metrics;
  for (size_t m = 0; m < base.metrics().size(); ++m) {
    const MetricColumn& column = base.metric(m);
    if (column.function == AggregateFunction::kCountDistinct) {
      if (column.counted_attribute < 0 || !Holds(grain, column.counted_attribute)) continue;
    } else if (column.values == nullptr && column.function != AggregateFunction::kCount) {
      continue;  // no values to roll up
    }
    metrics.push_back(static_cast<int>(m));
  }
  return metrics;
}

MetricColumn Described(const MetricColumn& source, AggregateFunction function) {
  MetricColumn column;
  column.id = source.id;
  column.name = source.name;
  column.format_string = source.format_string;
  column.function = function;
  return column;
}

// The columns the source is aggregated with: each metric's own, an avg as two sums.
std::vector<MetricColumn> AggregatedColumns(std::vector<ColumnPlan>& plans, size_t source_rows) {
  std::vector<MetricColumn> columns;
  std::shared_ptr<const std::vector<double>> ones;
  for (ColumnPlan& plan : plans) {
    const MetricColumn& source = *plan.source;
    plan.first_group_column = columns.size();
    switch (plan.kind) {
      case ColumnPlan::Kind::kDistinct:
        break;  // counted from the kept attribute's codes; nothing to aggregate
      case ColumnPlan::Kind::kValue:
      case ColumnPlan::Kind::kRows:
        columns.push_back(source);
        break;
      case ColumnPlan::Kind::kAvg: {
        MetricColumn sum = Described(source, AggregateFunction::kSum);
        sum.values = source.values;
        sum.valid = source.valid;
        MetricColumn count = Described(source, AggregateFunction::kSum);
        count.valid = source.valid;
        if (source.counts) {
          count.values = source.counts;
        } else if (!source.valid) {
          count.function = AggregateFunction::kCount;  // 1 per row, every row has a value
        } else {
          if (!ones) ones = std::make_shared<const std::vector<double>>(source_rows, 1.0);
          count.values = ones;
        }
        columns.push_back(std::move(sum));
        columns.push_back(std::move(count));
        break;
      }
    }
  }
  return columns;
}

std::shared_ptr<const std::vector<uint64_t>> ValidOf(const std::vector<uint8_t>& present) {
  if (std::all_of(present.begin(), present.end(), [](uint8_t p) { return p != 0; })) {
    return nullptr;
  }
  std::vector<uint64_t> words((present.size() + 63) / 64, 0);
  for (size_t g = 0; g < present.size(); ++g) {
    if (present[g]) words[g >> 6] |= uint64_t{1} << (g & 63);
  }
  return std::make_shared<const std::vector<uint64_t>>(std::move(words));
}

std::shared_ptr<const std::vector<double>> ValuesOf(std::vector<double>& values) {
  return std::make_shared<const std::vector<double>>(std::move(values));
}

MetricColumn RolledUpColumn(const ColumnPlan& plan, Groups& groups, int counted_attribute) {
  const MetricColumn& source = *plan.source;
  const size_t c = plan.first_group_column;
  MetricColumn column = Described(source, source.function);
  switch (plan.kind) {
    case ColumnPlan::Kind::kDistinct:
      column.counted_attribute = counted_attribute;
      break;
    case ColumnPlan::Kind::kValue:
    case ColumnPlan::Kind::kRows:
      column.values = ValuesOf(groups.values[c]);
      column.valid = ValidOf(groups.present[c]);
      break;
    case ColumnPlan::Kind::kAvg:
      column.values = ValuesOf(groups.values[c]);
      column.valid = ValidOf(groups.present[c]);
      column.counts = ValuesOf(groups.values[c + 1]);
      break;
  }
  return column;
}

std::vector<int> NormalGrain(const Dataset& base, std::vector<int> grain) {
  const int attributes = static_cast<int>(base.attributes().size());
  std::erase_if(grain, [&](int a) { return a < 0 || a >= attributes; });
  std::sort(grain.begin(), grain.end());
  grain.erase(std::unique(grain.begin(), grain.end()), grain.end());
  return grain;
}

// Whether `rollup` holds every attribute of `grain` and every metric of `metrics`.
bool Holds(const Rollup& rollup, const std::vector<int>& grain, const std::vector<int>& metrics) {
  for (int a : grain) {
    if (rollup.attribute_of_base[a] < 0) return false;
  }
  for (int m : metrics) {
    if (rollup.metric_of_base[m] < 0) return false;
  }
  return true;
}

// Adds the attributes a row filter names to `attributes`; false when it compares metric values
// or names an attribute out of range.
bool AddFilterAttributes(const RowFilter& filter, size_t attribute_count,
                         std::vector<int>& attributes) {
  switch (filter.kind) {
    case RowFilter::Kind::kMetric:
      return false;
    case RowFilter::Kind::kCodes:
      if (filter.attribute < 0 || static_cast<size_t>(filter.attribute) >= attribute_count) {
        return false;
      }
      attributes.push_back(filter.attribute);
      return true;
    case RowFilter::Kind::kAnd:
    case RowFilter::Kind::kOr:
    case RowFilter::Kind::kNot:
      for (const auto& child : filter.children) {
        if (!AddFilterAttributes(child, attribute_count, attributes)) return false;
      }
      return true;
  }
  return false;
}

void MapFilter(RowFilter& filter, const Rollup& rollup) {
  if (filter.kind == RowFilter::Kind::kCodes) {
    filter.attribute = rollup.attribute_of_base[filter.attribute];
  }
  for (auto& child : filter.children) MapFilter(child, rollup);
}

CubeQuery MappedQuery(const CubeQuery& query, const Rollup& rollup) {
  CubeQuery mapped = query;
  for (int& attribute : mapped.attributes) attribute = rollup.attribute_of_base[attribute];
  for (auto& request : mapped.metrics) {
    if (request.column >= 0) request.column = rollup.metric_of_base[request.column];
  }
  MapFilter(mapped.filter, rollup);
  return mapped;
}

}  // namespace

std::vector<int> VisibleGrain(const Dataset& base) {
  std::vector<int> grain;
  for (size_t a = 0; a < base.attributes().size(); ++a) {
    if (!base.attribute(a).hidden) grain.push_back(static_cast<int>(a));
  }
  return grain;
}

Rollup BuildRollup(const Dataset& base, const Dataset& source, const Rollup* source_rollup,
                   const std::vector<int>& grain_wanted, ThreadPool* pool) {
  const std::vector<int> grain = NormalGrain(base, grain_wanted);
  auto source_attribute = [&](int base_index) {
    return source_rollup ? source_rollup->attribute_of_base[base_index] : base_index;
  };
  auto base_attribute = [&](int source_index) {
    return source_rollup ? source_rollup->base_attributes[source_index] : source_index;
  };

  std::vector<AttributeColumn> grouped;
  for (int a : grain) grouped.push_back(source.attribute(source_attribute(a)));

  std::vector<ColumnPlan> plans;
  for (int m : MetricsAtGrain(base, grain)) {
    const int source_metric = source_rollup ? source_rollup->metric_of_base[m] : m;
    if (source_metric < 0) continue;
    ColumnPlan plan;
    plan.base_metric = m;
    plan.source = &source.metric(source_metric);
    if (plan.source->function == AggregateFunction::kCountDistinct) {
      plan.kind = ColumnPlan::Kind::kDistinct;
    } else if (plan.source->function == AggregateFunction::kAvg) {
      plan.kind = ColumnPlan::Kind::kAvg;
    } else if (plan.source->CountsRows()) {
      plan.kind = ColumnPlan::Kind::kRows;
    }
    plans.push_back(plan);
  }

  std::vector<MetricColumn> columns = AggregatedColumns(plans, source.row_count());
  std::vector<int> group_attributes(grain.size());
  std::iota(group_attributes.begin(), group_attributes.end(), 0);
  std::vector<int> group_columns(columns.size());
  std::iota(group_columns.begin(), group_columns.end(), 0);
  Groups groups;
  {
    const Dataset shadow(source.row_count(), std::move(grouped), std::move(columns));
    const RowSelector all(shadow, RowFilter::All());
    groups = AggregateGroups(shadow, group_attributes, group_columns, all, pool);
  }

  Rollup rollup;
  rollup.base_attributes = grain;
  rollup.attribute_of_base.assign(base.attributes().size(), -1);
  rollup.metric_of_base.assign(base.metrics().size(), -1);
  std::vector<AttributeColumn> attributes;
  for (size_t i = 0; i < grain.size(); ++i) {
    const AttributeColumn& from = source.attribute(source_attribute(grain[i]));
    AttributeColumn column{from.id, from.name, from.hidden, from.dictionary,
                           CodeColumn(groups.codes[i], from.dictionary.size())};
    groups.codes[i] = {};
    attributes.push_back(std::move(column));
    rollup.attribute_of_base[grain[i]] = static_cast<int>(i);
  }
  std::vector<MetricColumn> metrics;
  for (const ColumnPlan& plan : plans) {
    const int counted =
        plan.kind == ColumnPlan::Kind::kDistinct
            ? rollup.attribute_of_base[base_attribute(plan.source->counted_attribute)]
            : -1;
    rollup.metric_of_base[plan.base_metric] = static_cast<int>(metrics.size());
    metrics.push_back(RolledUpColumn(plan, groups, counted));
  }
  rollup.dataset =
      std::make_shared<const Dataset>(groups.count, std::move(attributes), std::move(metrics));
  return rollup;
}

RollupSet RollupSet::Build(const Dataset& base, const std::vector<std::vector<int>>& grains,
                           const RollupOptions& options, ThreadPool* pool) {
  std::vector<std::vector<int>> wanted;
  for (const auto& grain : grains) {
    std::vector<int> normal = NormalGrain(base, grain);
    if (normal.size() == base.attributes().size()) continue;  // the base itself
    if (std::find(wanted.begin(), wanted.end(), normal) != wanted.end()) continue;
    wanted.push_back(std::move(normal));
  }
  // Finest first, so coarser grains roll up from them rather than from the base.
  std::stable_sort(wanted.begin(), wanted.end(),
                   [](const auto& a, const auto& b) { return a.size() > b.size(); });

  const double max_rows = options.max_row_share * static_cast<double>(base.row_count());
  const double max_bytes = options.max_memory_share * static_cast<double>(base.MemoryBytes());
  RollupSet set;
  size_t bytes = 0;
  for (const auto& grain : wanted) {
    const std::vector<int> metrics = MetricsAtGrain(base, grain);
    const Rollup* source = nullptr;
    for (const Rollup& built : set.rollups_) {
      if (!Holds(built, grain, metrics)) continue;
      if (!source || built.dataset->row_count() < source->dataset->row_count()) source = &built;
    }
    Rollup rollup = BuildRollup(base, source ? *source->dataset : base, source, grain, pool);
    const size_t rollup_bytes = rollup.dataset->MemoryBytes();
    if (static_cast<double>(rollup.dataset->row_count()) > max_rows) continue;
    if (static_cast<double>(bytes + rollup_bytes) > max_bytes) continue;
    bytes += rollup_bytes;
    set.rollups_.push_back(std::move(rollup));
  }
  std::stable_sort(set.rollups_.begin(), set.rollups_.end(), [](const auto& a, const auto& b) {
    return a.dataset->row_count() < b.dataset->row_count();
  });
  return set;
}

const Rollup* RollupSet::Choose(const Dataset& base, const CubeQuery& query) const {
  if (rollups_.empty()) return nullptr;
  const size_t attribute_count = base.attributes().size();
  std::vector<int> attributes;
  for (int a : query.attributes) {
    if (a < 0 || static_cast<size_t>(a) >= attribute_count) return nullptr;
    attributes.push_back(a);
  }
  if (!AddFilterAttributes(query.filter, attribute_count, attributes)) return nullptr;
  std::vector<int> metrics;
  for (const auto& request : query.metrics) {
    if (request.column < 0) continue;
    if (static_cast<size_t>(request.column) >= base.metrics().size()) return nullptr;
    const MetricColumn& column = base.metric(request.column);
    if (query.attributes.empty() && column.function == AggregateFunction::kCount &&
        column.CountsRows()) {
      return nullptr;
    }
    metrics.push_back(request.column);
  }
  for (const Rollup& rollup : rollups_) {
    if (Holds(rollup, attributes, metrics)) return &rollup;
  }
  return nullptr;
}

size_t RollupSet::MemoryBytes() const {
  size_t bytes = 0;
  for (const Rollup& rollup : rollups_) bytes += rollup.dataset->MemoryBytes();
  return bytes;
}

ResultSet ExecuteCubeQuery(const std::shared_ptr<const Dataset>& base, const RollupSet* rollups,
                           const CubeQuery& query, ThreadPool* pool) {
  const Rollup* rollup = rollups && base ? rollups->Choose(*base, query) : nullptr;
  if (!rollup) return ExecuteCubeQuery(base, query, pool);
  ResultSet result = ExecuteCubeQuery(rollup->dataset, MappedQuery(query, *rollup), pool);
  result.dataset = base;
  result.attributes = query.attributes;
  result.metrics.clear();
  for (const auto& request : query.metrics) {
    if (!request.hidden) result.metrics.push_back(request);
  }
  return result;
}

}  // namespace tessera::engine
