#include "service/instance/instance_request.h"

#include <map>
#include <set>

#include "core/error.h"
#include "core/strings.h"
#include "engine/metric_limits.h"
#include "engine/view_filter.h"

namespace tessera::service::instance {

namespace {

[[noreturn]] void Invalid(std::string message) {
  throw Error(ErrorCode::kInvalidInput, std::move(message));
}

const AttributeDefinition* FindAttribute(const std::vector<AttributeDefinition>& attributes,
                                         const std::string& id) {
  for (const auto& attribute : attributes) {
    if (attribute.id == id) return &attribute;
  }
  return nullptr;
}

// A form of `attribute` named by id (any case) or by name.
const FormDefinition* FindForm(const AttributeDefinition& attribute, const std::string& key) {
  for (const auto& form : attribute.forms) {
    if (EqualsIgnoreCase(form.id, key) || form.name == key) return &form;
  }
  return nullptr;
}

std::string FailedToFind(std::string_view kind, const std::string& id) {
  return "Failed to find the " + std::string(kind) + " " + id + " in the report or cube.";
}

AttributeDefinition DisplayedForms(const AttributeDefinition& attribute,
                                   const std::vector<std::string>& forms) {
  if (forms.empty()) return attribute;
  AttributeDefinition shown{attribute.id, attribute.name, {}};
  std::set<std::string> seen;
  for (const auto& key : forms) {
    const FormDefinition* form = FindForm(attribute, key);
    if (!form) Invalid("Invalid attribute form id - " + key);
    if (seen.insert(form->id).second) shown.forms.push_back(*form);
  }
  return shown;
}

std::vector<AttributeDefinition> GridAttributes(const DatasetDefinition& definition,
                                                const InstanceRequest& request) {
  if (!request.requested_objects) return definition.attributes;
  std::map<std::string, const RequestedAttribute*> requested;
  for (const auto& item : request.requested_objects->attributes) {
    if (!FindAttribute(definition.attributes, item.id)) Invalid(FailedToFind("attribute", item.id));
    requested.emplace(item.id, &item);
  }
  std::vector<AttributeDefinition> grid;
  for (const auto& attribute : definition.attributes) {
    auto found = requested.find(attribute.id);
    if (found != requested.end()) grid.push_back(DisplayedForms(attribute, found->second->forms));
  }
  return grid;
}

GridMetric GridMetricOf(const MetricDefinition& metric, const model::SemanticModel* model) {
  GridMetric grid{metric, "", {}};
  if (model && model->has_metric(metric.id)) {
    grid.format_string = model->metric(metric.id).format_string;
    if (!grid.format_string.empty()) grid.format = model::NumberFormat::Parse(grid.format_string);
  }
  return grid;
}

std::vector<GridMetric> GridMetrics(const DatasetDefinition& definition,
                                    const model::SemanticModel* model,
                                    const InstanceRequest& request) {
  std::set<std::string> requested;
  if (request.requested_objects) {
    for (const auto& id : request.requested_objects->metric_ids) {
      bool known = false;
      for (const auto& metric : definition.metrics) known = known || metric.id == id;
      if (!known) Invalid(FailedToFind("metric", id));
      requested.insert(id);
    }
  }
  std::vector<GridMetric> grid;
  for (const auto& metric : definition.metrics) {
    if (!request.requested_objects || requested.contains(metric.id)) {
      grid.push_back(GridMetricOf(metric, model));
    }
  }
  return grid;
}

// ---- sorting ----

size_t GridAttributeIndex(const InstanceGrid& grid, const std::string& id) {
  for (size_t a = 0; a < grid.attributes.size(); ++a) {
    if (grid.attributes[a].id == id) return a;
  }
  return grid.attributes.size();
}

// The grid attribute a sort item names, with its full definition (every form sortable).
const AttributeDefinition& SortAttribute(const DatasetDefinition& definition,
                                         const InstanceGrid& grid, const std::string& id,
                                         size_t* grid_index) {
  *grid_index = GridAttributeIndex(grid, id);
  const AttributeDefinition* full = FindAttribute(definition.attributes, id);
  if (*grid_index == grid.attributes.size() || !full) {
    Invalid("Failed to find the attribute " + id + " in the template");
  }
  return *full;
}

Json NamedRef(const std::string& id, const std::string& name) {
  return {{"id", id}, {"name", name}};
}

void AddFormSort(const DatasetDefinition& definition, InstanceGrid& grid, const SortItem& item,
                 Json& echo) {
  size_t index = 0;
  const AttributeDefinition& attribute = SortAttribute(definition, grid, item.attribute_id, &index);
  const FormDefinition* form = FindForm(attribute, item.form);
  if (!form) Invalid("Failed to find the attribute form " + item.form + " in the template");
  grid.sort.push_back({GridSort::Kind::kAttributeForm, index, form->name, item.descending});
  echo.push_back({{"type", "form"},
                  {"attribute", NamedRef(attribute.id, attribute.name)},
                  {"form", NamedRef(form->id, form->name)},
                  {"order", SortOrderName(item.descending)}});
}

void AddAttributeSort(const DatasetDefinition& definition, InstanceGrid& grid, const SortItem& item,
                      Json& echo) {
  size_t index = 0;
  const AttributeDefinition& attribute = SortAttribute(definition, grid, item.attribute_id, &index);
  grid.sort.push_back({GridSort::Kind::kAttributeForm, index, attribute.forms.front().name, false});
  echo.push_back({{"type", "attribute"}, {"attribute", NamedRef(attribute.id, attribute.name)}});
}

void AddMetricSort(InstanceGrid& grid, const SortItem& item, Json& echo) {
  size_t index = grid.metrics.size();
  for (size_t m = 0; m < grid.metrics.size(); ++m) {
    if (grid.metrics[m].metric.id == item.metric_id) index = m;
  }
  if (index == grid.metrics.size()) {
    Invalid("Failed to find the metric " + item.metric_id + " in the template");
  }
  grid.sort.push_back({GridSort::Kind::kMetric, index, "", item.descending});
  echo.push_back({{"type", "metric"},
                  {"metric", NamedRef(item.metric_id, grid.metrics[index].metric.name)},
                  {"order", SortOrderName(item.descending)}});
}

void AddSubtotalsPosition(const SortItem& item, Json& echo) {
  echo.push_back(
      {{"type", "subtotalsPosition"},
       {"subtotalsPosition", item.subtotals_position ? Json(*item.subtotals_position) : Json()}});
}

void AddRowItem(const DatasetDefinition& definition, InstanceGrid& grid, const SortItem& item,
                Json& echo) {
  switch (item.kind) {
    case SortItem::Kind::kForm:
      return AddFormSort(definition, grid, item, echo);
    case SortItem::Kind::kAttribute:
      return AddAttributeSort(definition, grid, item, echo);
    case SortItem::Kind::kMetric:
      return AddMetricSort(grid, item, echo);
    case SortItem::Kind::kSubtotalsPosition:
      return AddSubtotalsPosition(item, echo);
  }
}

void ApplySorting(const DatasetDefinition& definition, InstanceGrid& grid,
                  const std::optional<Sorting>& sorting) {
  grid.sort.clear();
  Json rows = Json::array();
  Json columns = Json::array();
  if (sorting) {
    for (const SortItem& item : sorting->rows) AddRowItem(definition, grid, item, rows);
    columns = sorting->columns;
  }
  grid.sorting = {{"rows", rows}, {"columns", columns}, {"pageBy", Json::array()}};
}

// ---- the engine query ----

// A request for metric `id`: its dataset column, or the formula of a compound metric.
engine::MetricRequest RequestOf(const std::string& id, const std::string& name, bool hidden,
                                const engine::Dataset& dataset, const model::SemanticModel* model) {
  engine::MetricRequest request{id, name, dataset.MetricIndex(id), {}, hidden};
  if (request.column >= 0) return request;
  if (!model || !model->has_metric(id) || !model->metric(id).is_compound) {
    Invalid("Metric '" + name + "' (" + id +
            ") is not in the published data; publish the cube again");
  }
  request.formula = model->metric(id).expression;
  return request;
}

// The grid's metrics, returned in grid order, then the components their formulas use, hidden.
std::vector<engine::MetricRequest> MetricRequests(const InstanceGrid& grid,
                                                  const engine::Dataset& dataset,
                                                  const model::SemanticModel* model) {
  std::vector<engine::MetricRequest> requests;
  std::set<std::string> added;
  for (const auto& metric : grid.metrics) {
    added.insert(metric.metric.id);
    requests.push_back(RequestOf(metric.metric.id, metric.metric.name, false, dataset, model));
  }
  for (size_t r = 0; r < requests.size(); ++r) {
    if (requests[r].column >= 0) continue;
    for (const auto& reference : requests[r].formula.References()) {
      if (!added.insert(reference).second) continue;
      const std::string name = model->has_metric(reference) ? model->metric(reference).name : "";
      requests.push_back(RequestOf(reference, name, true, dataset, model));
    }
  }
  return requests;
}

}  // namespace

InstanceGrid ResolveGrid(const DatasetDefinition& definition, const model::SemanticModel* model,
                         const InstanceRequest& request) {
  InstanceGrid grid;
  grid.attributes = GridAttributes(definition, request);
  grid.metrics = GridMetrics(definition, model, request);
  grid.subtotals_visible = request.subtotals_visible;
  ApplySorting(definition, grid, request.sorting);
  return grid;
}

InstanceGrid ResortGrid(const DatasetDefinition& definition, InstanceGrid grid,
                        const std::optional<Sorting>& sorting) {
  ApplySorting(definition, grid, sorting);
  return grid;
}

engine::CubeQuery QueryOfGrid(const InstanceGrid& grid, const InstanceRequest& request,
                              const engine::Dataset& dataset, const model::SemanticModel* model,
                              const Json& extra_filter) {
  engine::CubeQuery query;
  for (const auto& attribute : grid.attributes) {
    const int index = dataset.AttributeIndex(attribute.id);
    if (index < 0 || dataset.attribute(index).hidden) {
      Invalid("Attribute '" + attribute.name + "' (" + attribute.id +
              ") is not in the published data; publish the cube again");
    }
    query.attributes.push_back(index);
  }
  query.metrics = MetricRequests(grid, dataset, model);
  std::vector<std::string> returned_ids;
  for (const auto& metric : grid.metrics) returned_ids.push_back(metric.metric.id);

  query.filter = engine::CompileViewFilter(dataset, request.view_filter);
  if (!extra_filter.is_null()) {
    query.filter = engine::RowFilter::Combine(
        engine::RowFilter::Kind::kAnd,
        {std::move(query.filter), engine::CompileViewFilter(dataset, extra_filter)});
  }
  query.limit_filter = engine::CompileMetricLimits(request.metric_limits, returned_ids);
  for (const auto& sort : grid.sort) {
    engine::SortKey key;
    key.descending = sort.descending;
    key.index = static_cast<int>(sort.index);
    if (sort.kind == GridSort::Kind::kMetric) {
      key.kind = engine::SortKey::Kind::kMetric;
    } else {
      const auto& dictionary = dataset.attribute(query.attributes[sort.index]).dictionary;
      key.form = std::max(0, dictionary.FormIndex(sort.form_name));
    }
    query.sort.push_back(key);
  }
  return query;
}

}  // namespace tessera::service::instance
