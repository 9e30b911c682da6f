#include "api/dashboard/dashboard_json.h"

#include <map>

#include "api/dataset/definition_json.h"
#include "core/strings.h"
#include "model/object_types.h"

namespace tessera::api::dashboard {

namespace {

using model::SelectionStatus;
using model::Selector;
using model::SelectorType;

struct NamedObject {
  std::string name;
  int type = 0;  // 12 attribute, 4 metric
};

// Names and types of the objects the dashboard's datasets know.
class ObjectNames {
 public:
  explicit ObjectNames(const service::dashboard::DashboardModel& model) {
    for (const auto& [id, dataset] : model.datasets) {
      for (const auto& attribute : dataset.definition.attributes) {
        objects_[attribute.id] = {attribute.name, model::kTypeAttribute};
      }
      for (const auto& metric : dataset.definition.metrics) {
        objects_[metric.id] = {metric.name, model::kTypeMetric};
      }
      if (!dataset.model) continue;
      models_.push_back(dataset.model.get());
    }
  }

  NamedObject Of(const std::string& id) const {
    auto it = objects_.find(id);
    if (it != objects_.end()) return it->second;
    for (const auto* model : models_) {
      if (model->has_attribute(id)) return {model->attribute(id).name, model::kTypeAttribute};
      if (model->has_metric(id)) return {model->metric(id).name, model::kTypeMetric};
    }
    return {"", 0};
  }

 private:
  std::map<std::string, NamedObject, std::less<>> objects_;
  std::vector<const model::SemanticModel*> models_;
};

Json KeysJson(const std::vector<std::string>& keys) {
  Json list = Json::array();
  for (const auto& key : keys) list.push_back({{"key", key}});
  return list;
}

Json ObjectItemJson(const std::string& id, const ObjectNames& names) {
  const NamedObject object = names.Of(id);
  const char* prefix = object.type == model::kTypeAttribute ? "U" : "i";
  return {{"id", prefix + id + ";" + id}, {"name", object.name}};
}

std::string HElementId(const std::string& element_id) {
  const size_t colon = element_id.find(':');
  if (colon == std::string::npos) return element_id;
  return "h" + element_id.substr(colon + 1) + ";" + element_id.substr(0, colon);
}

Json ElementsJson(const model::Selection& selection, const ElementNamer& element_name) {
  Json elements = Json::array();
  for (const auto& element : selection.elements) {
    elements.push_back({{"id", HElementId(element)}, {"name", element_name(element)}});
  }
  return elements;
}

std::string OperatorText(const std::string& op) {
  static const std::map<std::string, std::string, std::less<>> kSymbols = {
      {"Equals", "="},        {"NotEqual", "<>"}, {"Greater", ">"},
      {"GreaterEqual", ">="}, {"Less", "<"},      {"LessEqual", "<="}};
  auto it = kSymbols.find(op);
  return it == kSymbols.end() ? op : it->second;
}

std::string ConstantText(const Json& operand) {
  if (operand.contains("value")) {
    const Json& value = operand["value"];
    return value.is_string() ? value.get<std::string>() : DumpJson(value);
  }
  if (operand.contains("values") && operand["values"].is_array()) {
    std::vector<std::string> values;
    for (const auto& value : operand["values"]) {
      values.push_back(value.is_string() ? value.get<std::string>() : DumpJson(value));
    }
    return JoinStrings(values, ", ");
  }
  return "";
}

std::string ExpressionSummary(const std::string& name, const Json& expression) {
  if (!expression.is_object()) return "";
  const std::string op = expression.value("operator", std::string());
  std::vector<std::string> constants;
  if (expression.contains("operands") && expression["operands"].is_array()) {
    const Json& operands = expression["operands"];
    for (size_t i = 1; i < operands.size(); ++i) constants.push_back(ConstantText(operands[i]));
  }
  if ((op == "Between" || op == "NotBetween") && constants.size() == 2) {
    return name + " " + op + " " + constants[0] + " And " + constants[1];
  }
  return name + " " + OperatorText(op) +
         (constants.empty() ? "" : " " + JoinStrings(constants, ", "));
}

std::string SummaryOf(const Selector& selector, const model::Selection& selection,
                      const ObjectNames& names, const ElementNamer& element_name) {
  if (selection.status == SelectionStatus::kUnfiltered || selection.all_selected) return "";
  switch (selector.type) {
    case SelectorType::kAttributeElementList: {
      std::vector<std::string> values;
      for (const auto& element : selection.elements) values.push_back(element_name(element));
      const bool excluded = selection.status == SelectionStatus::kExcluded;
      return selector.name + (excluded ? " Not In List " : " In List ") + JoinStrings(values, ", ");
    }
    case SelectorType::kObjectReplacement: {
      std::vector<std::string> values;
      for (const auto& id : selection.objects) values.push_back(names.Of(id).name);
      return selector.name + " In List " + JoinStrings(values, ", ");
    }
    case SelectorType::kValueParameter:
      return selection.values.empty() ? "" : selector.name + " = " + selection.values.front();
    default:
      return ExpressionSummary(selector.name, selection.expression);
  }
}

Json CurrentSelectionJson(const service::dashboard::DashboardState& state, const Selector& selector,
                          const model::Selection& selection, const ObjectNames& names,
                          const ElementNamer& element_name) {
  Json json = {{"selectionStatus", std::string(model::SelectionStatusName(selection.status))}};
  switch (selector.type) {
    case SelectorType::kAttributeElementList:
      json["allSelected"] = selection.all_selected;
      json["elements"] = ElementsJson(selection, element_name);
      if (state.dynamic_applied.count(selector.key)) json["dynamicSelectionApplied"] = true;
      break;
    case SelectorType::kObjectReplacement: {
      Json items = Json::array();
      for (const auto& id : selection.objects) items.push_back(ObjectItemJson(id, names));
      json["objectItems"] = std::move(items);
      break;
    }
    case SelectorType::kValueParameter:
      json["values"] = selection.values;
      break;
    default:
      if (selection.expression.is_object()) json["expression"] = selection.expression;
      break;
  }
  return json;
}

Json SelectorJson(const service::dashboard::DashboardState& state, const Selector& selector,
                  const ObjectNames& names, const ElementNamer& element_name) {
  const model::Selection& selection = state.SelectionOf(selector);
  Json json = {{"key", selector.key},
               {"name", selector.name},
               {"summary", SummaryOf(selector, selection, names, element_name)}};
  if (selector.source_id) {
    const NamedObject source = names.Of(*selector.source_id);
    json["source"] = {{"id", *selector.source_id}, {"name", source.name}, {"type", source.type}};
  }
  json["synchronizedAcrossChapter"] = selector.synchronized_across_chapter;
  json["selectorType"] = std::string(model::SelectorTypeName(selector.type));
  json["displayStyle"] = selector.display_style;
  json["hasAllOption"] = selector.has_all_option;
  json["targets"] = KeysJson(selector.targets);
  json["multiSelectionAllowed"] = selector.multi_selection_allowed;
  json["selectionRequired"] = selector.selection_required;
  json["currentSelection"] = CurrentSelectionJson(state, selector, selection, names, element_name);
  if (selector.type == SelectorType::kObjectReplacement) {
    Json available = Json::array();
    for (const auto& id : selector.available_objects)
      available.push_back(ObjectItemJson(id, names));
    json["availableObjectItems"] = std::move(available);
  }
  if (selector.default_dynamic_selection) {
    json["defaultDynamicSelection"] = {
        {"status", selector.default_dynamic_selection->first ? "first_elements" : "last_elements"},
        {"quantity", selector.default_dynamic_selection->quantity}};
  }
  if (selector.type == SelectorType::kValueParameter) {
    json["dataType"] = selector.data_type;
    if (selector.min_value) json["minValue"] = *selector.min_value;
    if (selector.max_value) json["maxValue"] = *selector.max_value;
  }
  if (selector.is_parameter_based()) {
    json["parameterId"] = selector.parameter_id;
    json["isParameterBased"] = true;
  }
  return json;
}

// A chapter filter is its selector plus the legacy members unset, include, multiSelected,
// selections (the current selection's elements or object items) and, when present, expression.
Json ChapterFilterJson(const service::dashboard::DashboardState& state, const Selector& selector,
                       const ObjectNames& names, const ElementNamer& element_name) {
  Json json = SelectorJson(state, selector, names, element_name);
  const model::Selection& selection = state.SelectionOf(selector);
  json["unset"] = selection.status == SelectionStatus::kUnfiltered || selection.all_selected;
  json["include"] = selection.status != SelectionStatus::kExcluded;
  json["multiSelected"] = selector.multi_selection_allowed;
  const Json& current = json["currentSelection"];
  if (current.contains("elements")) {
    json["selections"] = current["elements"];
  } else if (current.contains("objectItems")) {
    json["selections"] = current["objectItems"];
  } else {
    json["selections"] = Json::array();
  }
  if (current.contains("expression")) json["expression"] = current["expression"];
  return json;
}

Json VisualizationJson(const service::dashboard::DashboardState& state,
                       const model::Visualization& viz, const ObjectNames& names,
                       const ElementNamer& element_name) {
  Json json = {{"key", viz.key}, {"name", viz.name}, {"visualizationType", viz.visualization_type}};
  if (viz.as_filter) {
    const model::Selection& selection = state.SelectionOf(*viz.as_filter);
    json["selector"] = {{"visualizationKey", viz.key},
                        {"selectorType", "visualization_as_filter"},
                        {"targets", KeysJson(viz.as_filter->targets)},
                        {"currentSelection", CurrentSelectionJson(state, *viz.as_filter, selection,
                                                                  names, element_name)}};
    json["filteredTargetVisualizations"] = KeysJson(viz.as_filter->targets);
  }
  return json;
}

Json DatasetJson(const service::instance::ResolvedDataset& dataset) {
  const service::instance::DatasetDefinition& definition = dataset.definition;
  Json available = Json::array();
  for (const auto& attribute : definition.attributes)
    available.push_back(dataset::AttributeJsonV2(attribute));
  for (const auto& metric : definition.metrics) available.push_back(dataset::MetricJsonV2(metric));
  Json rows = Json::array();
  for (const auto& attribute : definition.attributes) {
    rows.push_back({{"id", attribute.id}, {"name", attribute.name}, {"type", "attribute"}});
  }
  Json metrics = Json::array();
  for (const auto& metric : definition.metrics) {
    metrics.push_back({{"id", metric.id}, {"name", metric.name}, {"type", "metric"}});
  }
  Json columns = Json::array();
  if (!metrics.empty()) {
    columns.push_back({{"id", "00000000000000000000000000000000"},
                       {"name", "Metrics"},
                       {"type", "templateMetrics"},
                       {"elements", metrics}});
  }
  return {{"id", definition.id}, {"name", definition.name}, {"availableObjects", available},
          {"rows", rows},        {"columns", columns},      {"pageBy", Json::array()}};
}

Json UnitsJson(const model::Visualization& viz, const ObjectNames& names) {
  Json attributes = Json::array();
  for (const auto& id : viz.attribute_ids) {
    attributes.push_back(
        {{"id", id}, {"type", model::kTypeAttribute}, {"name", names.Of(id).name}});
  }
  Json metrics = Json::array();
  for (const auto& id : viz.metric_ids) {
    metrics.push_back({{"id", id}, {"type", model::kTypeMetric}, {"name", names.Of(id).name}});
  }
  return {{"attributes", attributes}, {"metrics", metrics}};
}

}  // namespace

namespace {

// What the walk of a definition carries down to each node.
struct Walk {
  ApiVersion version;
  const service::dashboard::DashboardState& state;
  const ObjectNames& names;
  const ElementNamer& element_name;
};

Json VisualizationNode(const Walk& walk, const model::Visualization& viz) {
  if (walk.version == ApiVersion::kV1) {
    return {{"key", viz.key}, {"name", viz.name}, {"units", UnitsJson(viz, walk.names)}};
  }
  return VisualizationJson(walk.state, viz, walk.names, walk.element_name);
}

Json PageNode(const Walk& walk, const model::Page& page) {
  Json visualizations = Json::array();
  for (const auto& viz : page.visualizations)
    visualizations.push_back(VisualizationNode(walk, viz));
  if (walk.version == ApiVersion::kV1) {
    return {{"key", page.key}, {"name", page.name}, {"visualizations", visualizations}};
  }
  Json selectors = Json::array();
  for (const auto& selector : page.selectors) {
    selectors.push_back(SelectorJson(walk.state, selector, walk.names, walk.element_name));
  }
  return {{"key", page.key},
          {"name", page.name},
          {"visualizations", visualizations},
          {"selectors", selectors},
          {"inCanvasSelectors", selectors},
          {"fields", Json::array()},
          {"panelStacks", Json::array()}};
}

Json ChapterFilterNode(const Walk& walk, const Selector& filter) {
  if (walk.version == ApiVersion::kV2) {
    return ChapterFilterJson(walk.state, filter, walk.names, walk.element_name);
  }
  Json json = {{"key", filter.key},
               {"name", filter.name},
               {"summary",
                SummaryOf(filter, walk.state.SelectionOf(filter), walk.names, walk.element_name)}};
  if (filter.source_id) {
    json["source"] = {{"id", *filter.source_id}, {"type", walk.names.Of(*filter.source_id).type}};
  }
  return json;
}

Json ChapterNode(const Walk& walk, const model::Chapter& chapter) {
  Json pages = Json::array();
  for (const auto& page : chapter.pages) pages.push_back(PageNode(walk, page));
  Json filters = Json::array();
  for (const auto& filter : chapter.filters) filters.push_back(ChapterFilterNode(walk, filter));
  Json json = {
      {"key", chapter.key}, {"name", chapter.name}, {"pages", pages}, {"filters", filters}};
  if (walk.version == ApiVersion::kV1) json["filtersPanelStack"] = {{"key", chapter.key + "-fps"}};
  return json;
}

}  // namespace

Json DashboardDefinition(const service::dashboard::DashboardView& view,
                         const ElementNamer& element_name, ApiVersion version) {
  const model::Dashboard& dashboard = view.model->dashboard;
  const ObjectNames names(*view.model);
  const Walk walk{version, *view.state, names, element_name};
  Json chapters = Json::array();
  for (const auto& chapter : dashboard.chapters) chapters.push_back(ChapterNode(walk, chapter));
  if (version == ApiVersion::kV1) {
    return {{"id", dashboard.id}, {"name", dashboard.name}, {"chapters", chapters}};
  }
  Json datasets = Json::array();
  for (const auto& id : dashboard.dataset_ids) {
    datasets.push_back(DatasetJson(view.model->datasets.at(id)));
  }
  return {{"id", dashboard.id},   {"name", dashboard.name},
          {"hasPrompt", false},   {"currentChapter", view.state->current_chapter},
          {"chapters", chapters}, {"datasets", datasets}};
}

}  // namespace tessera::api::dashboard
