#include "service/dashboard/visualization_query.h"

#include <algorithm>

#include "core/strings.h"
#include "engine/metric_qualification.h"

namespace tessera::service::dashboard {

namespace {

using model::SelectionStatus;
using model::Selector;
using model::SelectorType;

bool HasAttribute(const instance::DatasetDefinition& dataset, const std::string& id) {
  return std::any_of(dataset.attributes.begin(), dataset.attributes.end(),
                     [&](const instance::AttributeDefinition& a) { return a.id == id; });
}

bool HasMetric(const instance::DatasetDefinition& dataset, const std::string& id) {
  return std::any_of(dataset.metrics.begin(), dataset.metrics.end(),
                     [&](const instance::MetricDefinition& m) { return m.id == id; });
}

bool HasObject(const instance::DatasetDefinition& dataset, const std::string& id) {
  return HasAttribute(dataset, id) || HasMetric(dataset, id);
}

// A metric of the model the dataset does not hold may still be computed from those it holds.
bool CanShow(const instance::ResolvedDataset& dataset, const std::string& id) {
  return HasObject(dataset.definition, id) || (dataset.model && dataset.model->has_metric(id));
}

bool Targets(const Selector& selector, const std::string& key) {
  return std::find(selector.targets.begin(), selector.targets.end(), key) != selector.targets.end();
}

// The attribute ids an expression tree names (attribute operands and form operands).
void CollectAttributes(const Json& node, std::vector<std::string>& ids) {
  if (node.is_array()) {
    for (const auto& child : node) CollectAttributes(child, ids);
    return;
  }
  if (!node.is_object()) return;
  const std::string type = node.value("type", std::string());
  if (type == "attribute" && node.contains("id") && node["id"].is_string()) {
    ids.push_back(ToUpper(node["id"].get<std::string>()));
  }
  if (type == "form" && node.contains("attribute") && node["attribute"].is_object()) {
    const Json& attribute = node["attribute"];
    if (attribute.contains("id") && attribute["id"].is_string()) {
      ids.push_back(ToUpper(attribute["id"].get<std::string>()));
    }
  }
  if (node.contains("operands")) CollectAttributes(node["operands"], ids);
}

bool HoldsSource(const Selector& selector, const instance::DatasetDefinition& dataset) {
  if (selector.type == SelectorType::kVisualizationAsFilter) return true;  // checked per expression
  if (!selector.source_id) return true;
  return HasObject(dataset, *selector.source_id);
}

Json AndOf(std::vector<Json> conditions) {
  if (conditions.empty()) return Json();
  if (conditions.size() == 1) return std::move(conditions.front());
  return Json{{"operator", "And"}, {"operands", std::move(conditions)}};
}

std::string ValueOfElement(const std::string& element) {
  const size_t colon = element.find(':');
  return colon == std::string::npos ? element : element.substr(colon + 1);
}

std::string ElementSummary(const Selector& selector, const model::Selection& selection) {
  std::vector<std::string> values;
  for (const auto& element : selection.elements) values.push_back(ValueOfElement(element));
  const char* verb = selection.status == SelectionStatus::kExcluded ? " Not In List " : " In List ";
  return selector.name + verb + JoinStrings(values, ", ");
}

void AppendSummary(std::string& summary, const std::string& part) {
  if (part.empty()) return;
  if (!summary.empty()) summary += " And ";
  summary += part;
}

// Rule 1: object replacements and object parameters.
void ReplaceObjects(const model::Dashboard& dashboard, const DashboardState& state,
                    const model::Visualization& visualization,
                    const instance::ResolvedDataset& dataset,
                    std::vector<std::string>& template_ids) {
  const model::Chapter* chapter = dashboard.ChapterOfVisualization(visualization.key);
  for (const Selector* selector : dashboard.SelectorsOfChapter(chapter->key)) {
    if (selector->type != SelectorType::kObjectReplacement) continue;
    if (!selector->targets.empty() && !Targets(*selector, visualization.key)) continue;
    const model::Selection& current = state.SelectionOf(*selector);
    auto first = std::find_first_of(template_ids.begin(), template_ids.end(),
                                    selector->saved.objects.begin(), selector->saved.objects.end());
    if (first == template_ids.end()) continue;
    const size_t at = static_cast<size_t>(first - template_ids.begin());
    std::vector<std::string> replaced(template_ids.begin(), template_ids.begin() + at);
    for (const auto& id : current.objects) replaced.push_back(id);
    for (size_t i = at; i < template_ids.size(); ++i) {
      const auto& saved = selector->saved.objects;
      if (std::find(saved.begin(), saved.end(), template_ids[i]) == saved.end()) {
        replaced.push_back(template_ids[i]);
      }
    }
    template_ids = std::move(replaced);
  }
  std::vector<std::string> kept;
  for (const auto& id : template_ids) {
    if (!CanShow(dataset, id)) continue;
    if (std::find(kept.begin(), kept.end(), id) != kept.end()) continue;
    kept.push_back(id);
  }
  template_ids = std::move(kept);
}

// The dataset's definition cut to the template's objects, in the template's order, then the
// extra metrics; a model metric the dataset lacks is added by its model definition.
instance::DatasetDefinition TemplateDefinition(const instance::ResolvedDataset& dataset,
                                               const std::vector<std::string>& template_ids,
                                               const std::vector<std::string>& extra_metric_ids) {
  const instance::DatasetDefinition& full = dataset.definition;
  instance::DatasetDefinition cut = full;
  cut.attributes.clear();
  cut.metrics.clear();
  auto add_metric = [&](const std::string& id) {
    for (const auto& metric : full.metrics) {
      if (metric.id == id) {
        cut.metrics.push_back(metric);
        return;
      }
    }
    if (dataset.model && dataset.model->has_metric(id)) {
      cut.metrics.push_back({id, dataset.model->metric(id).name});
    }
  };
  for (const auto& id : template_ids) {
    bool attribute = false;
    for (const auto& candidate : full.attributes) {
      if (candidate.id != id) continue;
      cut.attributes.push_back(candidate);
      attribute = true;
    }
    if (!attribute) add_metric(id);
  }
  for (const auto& id : extra_metric_ids) add_metric(id);
  return cut;
}

bool ExpressionFits(const Json& expression, const instance::DatasetDefinition& dataset) {
  std::vector<std::string> ids;
  CollectAttributes(expression, ids);
  return std::all_of(ids.begin(), ids.end(),
                     [&](const std::string& id) { return HasAttribute(dataset, id); });
}

// The metric ids a qualification names.
void CollectMetrics(const Json& node, std::vector<std::string>& ids) {
  if (node.is_array()) {
    for (const auto& child : node) CollectMetrics(child, ids);
    return;
  }
  if (!node.is_object()) return;
  if (node.value("type", std::string()) == "metric" && node.contains("id") &&
      node["id"].is_string()) {
    ids.push_back(ToUpper(node["id"].get<std::string>()));
  }
  if (node.contains("operands")) CollectMetrics(node["operands"], ids);
}

// The visualization's metric limit with each value parameter replaced by its current value (a
// constant of the parameter's data type); null when a parameter it uses has no value.
Json WithParameterValues(const model::Dashboard& dashboard, const DashboardState& state,
                         const Json& node) {
  if (node.is_array()) {
    Json items = Json::array();
    for (const auto& item : node) {
      Json value = WithParameterValues(dashboard, state, item);
      if (value.is_null()) return Json();
      items.push_back(std::move(value));
    }
    return items;
  }
  if (!node.is_object()) return node;
  if (node.value("type", std::string()) == "parameter") {
    const Selector* parameter = dashboard.FindSelector(node.value("key", std::string()));
    if (!parameter) return Json();
    const model::Selection& selection = state.SelectionOf(*parameter);
    const auto& values = selection.values.empty() ? parameter->saved.values : selection.values;
    if (values.empty()) return Json();
    return {{"type", "constant"},
            {"dataType", parameter->data_type.empty() ? "Real" : parameter->data_type},
            {"value", values.front()}};
  }
  Json copy = node;
  if (node.contains("operands")) {
    copy["operands"] = WithParameterValues(dashboard, state, node["operands"]);
    if (copy["operands"].is_null()) return Json();
  }
  return copy;
}

}  // namespace

Json SimplifiedExpression(const Json& expression) {
  if (!expression.is_object() || !expression.contains("operands") ||
      !expression["operands"].is_array()) {
    return expression;
  }
  const std::string op = expression.value("operator", std::string());
  const Json& operands = expression["operands"];
  if ((op == "And" || op == "Or") && operands.size() == 1) return SimplifiedExpression(operands[0]);
  Json simplified = expression;
  for (auto& operand : simplified["operands"]) operand = SimplifiedExpression(operand);
  return simplified;
}

Json RowConditionOf(const Selector& selector, const model::Selection& selection) {
  if (selection.status == SelectionStatus::kUnfiltered || selection.all_selected) return Json();
  switch (selector.type) {
    case SelectorType::kAttributeElementList: {
      if (selection.elements.empty() || !selector.source_id) return Json();
      Json elements = Json::array();
      for (const auto& id : selection.elements) elements.push_back({{"id", id}});
      const bool excluded = selection.status == SelectionStatus::kExcluded;
      return {{"operator", excluded ? "NotIn" : "In"},
              {"operands",
               {{{"type", "attribute"}, {"id", *selector.source_id}},
                {{"type", "elements"}, {"elements", elements}}}}};
    }
    case SelectorType::kAttributeQualification:
    case SelectorType::kVisualizationAsFilter:
      return selection.expression.is_object() ? SimplifiedExpression(selection.expression) : Json();
    default:
      return Json();
  }
}

bool Reaches(const model::Dashboard& dashboard, const Selector& selector,
             const model::Visualization& visualization,
             const instance::DatasetDefinition& dataset) {
  const model::Chapter* chapter = dashboard.ChapterOfVisualization(visualization.key);
  if (!chapter || selector.chapter_key != chapter->key) return false;
  const bool targeted =
      selector.place == model::SelectorPlace::kChapterFilter && selector.targets.empty()
          ? true
          : Targets(selector, visualization.key);
  return targeted && HoldsSource(selector, dataset);
}

VisualizationPlan PlanVisualization(const model::Dashboard& dashboard, const DashboardState& state,
                                    const model::Visualization& visualization,
                                    const instance::ResolvedDataset& dataset) {
  const instance::DatasetDefinition& definition = dataset.definition;
  VisualizationPlan plan;
  std::vector<Json> rows;
  std::vector<Json> groups;
  const model::Chapter* chapter = dashboard.ChapterOfVisualization(visualization.key);
  for (const Selector* selector : dashboard.SelectorsOfChapter(chapter->key)) {
    if (!Reaches(dashboard, *selector, visualization, definition)) continue;
    const model::Selection& selection = state.SelectionOf(*selector);
    if (selection.status == SelectionStatus::kUnfiltered || selection.all_selected) continue;
    if (selector->type == SelectorType::kMetricQualification) {
      if (!selection.expression.is_object()) continue;
      groups.push_back(SimplifiedExpression(selection.expression));
      if (!selector->source_id) continue;
      const auto& shown = visualization.metric_ids;
      if (std::find(shown.begin(), shown.end(), *selector->source_id) == shown.end()) {
        plan.extra_metric_ids.push_back(*selector->source_id);
      }
      AppendSummary(plan.metric_limit_summary, selector->name + " qualified");
      continue;
    }
    Json condition = RowConditionOf(*selector, selection);
    if (condition.is_null()) continue;
    if (selector->type == SelectorType::kVisualizationAsFilter &&
        !ExpressionFits(condition, definition)) {
      continue;
    }
    if (selector->type == SelectorType::kAttributeElementList) {
      AppendSummary(plan.element_filter_summary, ElementSummary(*selector, selection));
    } else {
      AppendSummary(plan.view_filter_summary, selector->name);
    }
    rows.push_back(std::move(condition));
  }

  if (visualization.metric_limit.is_object()) {
    Json limit = WithParameterValues(dashboard, state, visualization.metric_limit);
    if (!limit.is_null()) {
      std::vector<std::string> metrics;
      CollectMetrics(limit, metrics);
      for (const auto& id : metrics) {
        const auto& shown = visualization.metric_ids;
        if (std::find(shown.begin(), shown.end(), id) == shown.end()) {
          plan.extra_metric_ids.push_back(id);
        }
      }
      groups.push_back(SimplifiedExpression(limit));
      AppendSummary(plan.metric_limit_summary, "the visualization's metric limit");
    }
  }

  std::vector<std::string> template_ids = visualization.attribute_ids;
  template_ids.insert(template_ids.end(), visualization.metric_ids.begin(),
                      visualization.metric_ids.end());
  ReplaceObjects(dashboard, state, visualization, dataset, template_ids);
  std::vector<std::string> extras;
  for (const auto& id : plan.extra_metric_ids) {
    if (std::find(template_ids.begin(), template_ids.end(), id) == template_ids.end() &&
        std::find(extras.begin(), extras.end(), id) == extras.end()) {
      extras.push_back(id);
    }
  }
  plan.extra_metric_ids = extras;

  plan.request.view_filter = AndOf(std::move(rows));
  plan.group_qualification = AndOf(std::move(groups));
  plan.query_grid = instance::ResolveGrid(TemplateDefinition(dataset, template_ids, extras),
                                          dataset.model.get(), plan.request);
  plan.grid = plan.query_grid;
  plan.grid.metrics.resize(plan.grid.metrics.size() - extras.size());
  return plan;
}

engine::CubeQuery QueryOfPlan(const VisualizationPlan& plan,
                              const instance::ResolvedDataset& dataset,
                              const engine::Dataset& rows) {
  engine::CubeQuery query = instance::QueryOfGrid(plan.query_grid, plan.request, rows,
                                                  dataset.model.get(), dataset.report_filter);
  const size_t shown = plan.grid.metrics.size();
  for (size_t m = shown; m < plan.query_grid.metrics.size(); ++m) query.metrics[m].hidden = true;
  if (!plan.group_qualification.is_null()) {
    std::vector<std::string> ids;
    for (const auto& request : query.metrics) ids.push_back(request.id);
    query.group_filter = engine::CompileMetricQualification(plan.group_qualification, ids);
  }
  return query;
}

}  // namespace tessera::service::dashboard
