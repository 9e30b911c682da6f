#include "service/instance_request.h"

#include <set>

#include "core/error.h"
#include "core/strings.h"
#include "engine/metric_limits.h"
#include "engine/view_filter.h"

namespace tessera::service {

namespace {

[[noreturn]] void Invalid(std::string message) {
  throw Error(ErrorCode::kInvalidInput, std::move(message));
}

const Json& Member(const Json& object, std::string_view key) {
  static const Json kNull;
  if (!object.is_object()) return kNull;
  auto found = object.find(key);
  return found == object.end() ? kNull : *found;
}

// An optional list member: null or absent = empty.
const Json& ListMember(const Json& object, std::string_view key, std::string_view path) {
  static const Json kEmpty = Json::array();
  const Json& value = Member(object, key);
  if (value.is_null()) return kEmpty;
  if (!value.is_array()) Invalid(std::string(path) + " must be an array");
  return value;
}

std::string IdOf(const Json& item, std::string_view path) {
  const Json& id = Member(item, "id");
  if (!id.is_string() || id.get<std::string>().empty()) {
    Invalid(std::string(path) + " must be an object with a non-empty string \"id\"");
  }
  return ToUpper(id.get<std::string>());
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

AttributeDefinition DisplayedForms(const AttributeDefinition& attribute, const Json& request) {
  const Json& forms = ListMember(request, "forms", "requestedObjects.attributes[].forms");
  if (forms.empty()) return attribute;
  AttributeDefinition shown{attribute.id, attribute.name, {}};
  std::set<std::string> seen;
  for (const auto& item : forms) {
    IdOf(item, "requestedObjects.attributes[].forms[]");
    const std::string key = item["id"].get<std::string>();
    const FormDefinition* form = FindForm(attribute, key);
    if (!form) Invalid("Invalid attribute form id - " + key);
    if (seen.insert(form->id).second) shown.forms.push_back(*form);
  }
  return shown;
}

std::vector<AttributeDefinition> GridAttributes(const DatasetDefinition& definition,
                                                const InstanceRequest& request) {
  if (request.all_objects) return definition.attributes;
  std::map<std::string, Json> requested;
  for (const auto& item :
       ListMember(request.requested_objects, "attributes", "requestedObjects.attributes")) {
    const std::string id = IdOf(item, "requestedObjects.attributes[]");
    if (!FindAttribute(definition.attributes, id)) Invalid(FailedToFind("attribute", id));
    requested.emplace(id, item);  // the first request of an attribute wins
  }
  std::vector<AttributeDefinition> grid;
  for (const auto& attribute : definition.attributes) {
    auto found = requested.find(attribute.id);
    if (found != requested.end()) grid.push_back(DisplayedForms(attribute, found->second));
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
  if (!request.all_objects) {
    for (const auto& item :
         ListMember(request.requested_objects, "metrics", "requestedObjects.metrics")) {
      const std::string id = IdOf(item, "requestedObjects.metrics[]");
      bool known = false;
      for (const auto& metric : definition.metrics) known = known || metric.id == id;
      if (!known) Invalid(FailedToFind("metric", id));
      requested.insert(id);
    }
  }
  std::vector<GridMetric> grid;
  for (const auto& metric : definition.metrics) {
    if (request.all_objects || requested.contains(metric.id)) {
      grid.push_back(GridMetricOf(metric, model));
    }
  }
  return grid;
}

// ---- sorting (spec 02 §3.6) ----

std::string ItemPath(std::string_view axis, size_t i) {
  return "the sorting " + std::string(axis) + " array[" + std::to_string(i) + "]";
}

std::string SortItemType(const Json& item) {
  const Json& type = Member(item, "type");
  if (type.is_string()) return type.get<std::string>();
  if (!type.is_null()) Invalid("Incorrect node type in the sorting array: \"type\" must be text");
  if (item.contains("metric")) return "metric";
  if (item.contains("form")) return "form";
  if (item.contains("attribute")) return "attribute";
  if (item.contains("subtotalsPosition")) return "subtotalsPosition";
  return "";
}

bool ParseOrder(const Json& item, const std::string& path) {
  const Json& order = Member(item, "order");
  if (order.is_null()) return false;
  if (!order.is_string()) Invalid("Incorrect order in " + path + ": ascending or descending");
  const std::string text = order.get<std::string>();
  if (EqualsIgnoreCase(text, "ascending")) return false;
  if (EqualsIgnoreCase(text, "descending")) return true;
  Invalid("Incorrect order '" + text + "' in " + path + ": ascending or descending");
}

void CheckSubtotalsPosition(const Json& item, bool allow_mixed, const std::string& type) {
  const Json& position = Member(item, "subtotalsPosition");
  if (position.is_null()) return;
  const std::string text = position.is_string() ? position.get<std::string>() : position.dump();
  if (text == "first" || text == "last" || text == "inherit") return;
  if (text == "mixed") {
    if (allow_mixed) return;
    Invalid("Subtotals position 'mixed' cannot be applied for sort of type " + type + ".");
  }
  Invalid("Unknown subtotals position value " + text + ".");
}

size_t GridAttributeIndex(const InstanceGrid& grid, const std::string& id) {
  for (size_t a = 0; a < grid.attributes.size(); ++a) {
    if (grid.attributes[a].id == id) return a;
  }
  return grid.attributes.size();
}

// The attribute of `grid` a sort item names, with its full definition (every form sortable).
const AttributeDefinition& SortAttribute(const DatasetDefinition& definition,
                                         const InstanceGrid& grid, const Json& item,
                                         const std::string& path, size_t* grid_index) {
  const Json& attribute = Member(item, "attribute");
  if (!attribute.is_object() || !Member(attribute, "id").is_string()) {
    Invalid("Attribute ID should not be null or empty in " + path);
  }
  const std::string id = ToUpper(attribute["id"].get<std::string>());
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

void AddFormSort(const DatasetDefinition& definition, InstanceGrid& grid, const Json& item,
                 const std::string& path, Json& echo) {
  size_t index = 0;
  const AttributeDefinition& attribute = SortAttribute(definition, grid, item, path, &index);
  const Json& form_ref = Member(item, "form");
  if (!form_ref.is_object() || !Member(form_ref, "id").is_string()) {
    Invalid("Attribute form ID should not be null or empty in " + path);
  }
  const FormDefinition* form = FindForm(attribute, form_ref["id"].get<std::string>());
  if (!form) {
    Invalid("Failed to find the attribute form " + form_ref["id"].get<std::string>() +
            " in the template");
  }
  const bool descending = ParseOrder(item, path);
  CheckSubtotalsPosition(item, false, "form");
  grid.sort.push_back({GridSort::Kind::kAttributeForm, index, form->name, descending});
  echo.push_back({{"type", "form"},
                  {"attribute", NamedRef(attribute.id, attribute.name)},
                  {"form", NamedRef(form->id, form->name)},
                  {"order", descending ? "descending" : "ascending"}});
}

void AddAttributeSort(const DatasetDefinition& definition, InstanceGrid& grid, const Json& item,
                      const std::string& path, Json& echo) {
  if (item.contains("order") || item.contains("subtotalsPosition")) {
    Invalid("Incorrect node type in " + path +
            ": an attribute sort takes neither \"order\" nor \"subtotalsPosition\"");
  }
  size_t index = 0;
  const AttributeDefinition& attribute = SortAttribute(definition, grid, item, path, &index);
  grid.sort.push_back({GridSort::Kind::kAttributeForm, index, attribute.forms.front().name, false});
  echo.push_back({{"type", "attribute"}, {"attribute", NamedRef(attribute.id, attribute.name)}});
}

void AddMetricSort(InstanceGrid& grid, const Json& item, size_t i, const std::string& path,
                   Json& echo) {
  const Json& metric = Member(item, "metric");
  if (!metric.is_object() || !Member(metric, "id").is_string() ||
      metric["id"].get<std::string>().empty()) {
    Invalid("Metric ID should not be null or empty in the sorting array[" + std::to_string(i) +
            "]");
  }
  const std::string id = ToUpper(metric["id"].get<std::string>());
  size_t index = grid.metrics.size();
  for (size_t m = 0; m < grid.metrics.size(); ++m) {
    if (grid.metrics[m].metric.id == id) index = m;
  }
  if (index == grid.metrics.size()) Invalid("Failed to find the metric " + id + " in the template");
  if (!ListMember(item, "elements", path + ".elements").empty()) {
    Invalid("Metric sort by elements in " + path + " applies to cross-tab grids only");
  }
  const bool descending = ParseOrder(item, path);
  CheckSubtotalsPosition(item, true, "metric");
  grid.sort.push_back({GridSort::Kind::kMetric, index, "", descending});
  echo.push_back({{"type", "metric"},
                  {"metric", NamedRef(id, grid.metrics[index].metric.name)},
                  {"order", descending ? "descending" : "ascending"}});
}

void AddRowItems(const DatasetDefinition& definition, InstanceGrid& grid, const Json& items,
                 Json& echo) {
  for (size_t i = 0; i < items.size(); ++i) {
    const Json& item = items[i];
    const std::string path = ItemPath("rows", i);
    if (!item.is_object()) Invalid("Incorrect node type in " + path + ": an object is expected");
    const std::string type = SortItemType(item);
    if (type == "form") {
      AddFormSort(definition, grid, item, path, echo);
    } else if (type == "attribute") {
      AddAttributeSort(definition, grid, item, path, echo);
    } else if (type == "metric") {
      AddMetricSort(grid, item, i, path, echo);
    } else if (type == "subtotalsPosition") {
      if (i != 0) Invalid("Incorrect node type in " + path + ": subtotalsPosition comes first");
      CheckSubtotalsPosition(item, false, "subtotalsPosition");
      echo.push_back({{"type", "subtotalsPosition"},
                      {"subtotalsPosition", Member(item, "subtotalsPosition")}});
    } else {
      Invalid("Incorrect node type '" + type + "' in " + path +
              ": form, attribute, metric or subtotalsPosition");
    }
  }
}

Json CheckedColumns(const Json& items) {
  for (size_t i = 0; i < items.size(); ++i) {
    if (i != 0 || SortItemType(items[i]) != "subtotalsPosition") {
      Invalid("Incorrect node type in " + ItemPath("columns", i) +
              ": the columns hold only the metrics, sorted by the rows");
    }
    CheckSubtotalsPosition(items[i], false, "subtotalsPosition");
  }
  return items;
}

void CheckedPageBy(const Json& items) {
  for (const auto& item : items) {
    if (SortItemType(item) == "metric") Invalid("Metric sort cannot be applied in page-by.");
  }
  if (!items.empty()) Invalid("Incorrect node type in the sorting pageBy array: no page-by");
}

void ApplySorting(const DatasetDefinition& definition, InstanceGrid& grid, const Json& sorting) {
  grid.sort.clear();
  Json rows = Json::array();
  Json columns = Json::array();
  if (sorting.is_array()) {
    AddRowItems(definition, grid, sorting, rows);
  } else if (sorting.is_object()) {
    AddRowItems(definition, grid, ListMember(sorting, "rows", "sorting.rows"), rows);
    columns = CheckedColumns(ListMember(sorting, "columns", "sorting.columns"));
    CheckedPageBy(ListMember(sorting, "pageBy", "sorting.pageBy"));
  } else if (!sorting.is_null()) {
    Invalid("sorting must be an object {\"rows\",\"columns\",\"pageBy\"} or an array");
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

InstanceRequest ParseInstanceRequest(const Json& body) {
  if (!body.is_null() && !body.is_object()) Invalid("The request body must be a JSON object");
  RequireKnownKeys(body, kInstanceBodyKeys, "a report or cube instance body");
  InstanceRequest request;
  if (body.is_object() && body.contains("requestedObjects")) {
    request.all_objects = false;
    request.requested_objects = body["requestedObjects"];
    if (!request.requested_objects.is_null() && !request.requested_objects.is_object()) {
      Invalid("requestedObjects must be an object {\"attributes\": [...], \"metrics\": [...]}");
    }
  }
  request.view_filter = Member(body, "viewFilter");
  if (!request.view_filter.is_null() && !request.view_filter.is_object()) {
    Invalid("viewFilter must be an expression object");
  }
  request.metric_limits = Member(body, "metricLimits");
  if (!request.metric_limits.is_null() && !request.metric_limits.is_object()) {
    Invalid("metricLimits must be an object keyed by metric id");
  }
  request.sorting = Member(body, "sorting");
  const Json& subtotals = Member(body, "subtotals");
  if (subtotals.is_object() && Member(subtotals, "visible").is_boolean()) {
    request.subtotals_visible = subtotals["visible"].get<bool>();
  } else if (!subtotals.is_null() && !subtotals.is_object()) {
    Invalid("subtotals must be an object {\"visible\": true|false}");
  }
  if (!ListMember(body, "currentPageBy", "currentPageBy").empty()) {
    Invalid("currentPageBy must be empty: this report has no page-by attributes");
  }
  return request;
}

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
                        const Json& sorting) {
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

}  // namespace tessera::service
