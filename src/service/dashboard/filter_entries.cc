#include "service/dashboard/filter_entries.h"

#include <cmath>

#include "core/error.h"
#include "core/ids.h"
#include "core/strings.h"
#include "engine/element_id.h"

namespace tessera::service::dashboard {

namespace {

using model::Selection;
using model::SelectionStatus;
using model::Selector;
using model::SelectorType;

[[noreturn]] void Invalid(const std::string& message) {
  throw Error(ErrorCode::kInvalidInput, message);
}

std::string Describe(const Json& entry) {
  for (const char* member : {"visualizationKey", "key", "name"}) {
    if (entry.contains(member) && entry[member].is_string()) {
      return std::string(member) + " '" + entry[member].get<std::string>() + "'";
    }
  }
  return "source " + DumpJson(entry.value("source", Json()));
}

std::vector<Json> EntriesOf(const Json& body) {
  if (body.is_object()) return {body};
  if (!body.is_array()) Invalid("The filters must be a JSON array of filter objects");
  std::vector<Json> entries;
  for (const auto& entry : body) {
    if (!entry.is_object()) Invalid("Every filter must be a JSON object, got " + DumpJson(entry));
    entries.push_back(entry);
  }
  return entries;
}

bool IsNewFormat(const Json& entry) {
  return entry.contains("currentSelection") || entry.contains("visualizationKey");
}

bool IsOldFormat(const Json& entry) {
  for (const char* member : {"selections", "qualifier", "constants", "include", "unset"}) {
    if (entry.contains(member)) return true;
  }
  return false;
}

std::optional<std::string> StringMember(const Json& entry, const char* member) {
  if (!entry.contains(member)) return std::nullopt;
  if (!entry[member].is_string()) Invalid(std::string(member) + ": must be a string");
  return entry[member].get<std::string>();
}

// The selectors of the current chapter first, then the others'.
std::vector<const Selector*> SearchOrder(const model::Dashboard& dashboard,
                                         const std::string& current_chapter) {
  std::vector<const Selector*> order = dashboard.SelectorsOfChapter(current_chapter);
  for (const auto& chapter : dashboard.chapters) {
    if (chapter.key == current_chapter) continue;
    for (const Selector* selector : dashboard.SelectorsOfChapter(chapter.key)) {
      order.push_back(selector);
    }
  }
  return order;
}

// The selectors matching `matches` in the first chapter that has any.
std::vector<const Selector*> Matching(const std::vector<const Selector*>& order,
                                      const std::function<bool(const Selector&)>& matches) {
  std::vector<const Selector*> found;
  for (const Selector* selector : order) {
    if (!found.empty() && selector->chapter_key != found.front()->chapter_key) break;
    if (matches(*selector)) found.push_back(selector);
  }
  return found;
}

const Selector* FindSelector(const Json& entry, const FilterContext& context) {
  const std::vector<const Selector*> order =
      SearchOrder(context.dashboard, context.state.current_chapter);
  std::vector<const Selector*> found;
  if (auto key = StringMember(entry, "visualizationKey")) {
    found = Matching(order, [&](const Selector& s) {
      return s.key == *key && s.type == SelectorType::kVisualizationAsFilter;
    });
  } else if (auto key = StringMember(entry, "key")) {
    found = Matching(order, [&](const Selector& s) { return s.key == *key; });
  } else if (auto name = StringMember(entry, "name")) {
    found = Matching(order, [&](const Selector& s) { return s.name == *name; });
  } else if (entry.contains("source") && entry["source"].is_object()) {
    const Json& source = entry["source"];
    if (auto id = StringMember(source, "id")) {
      const std::optional<std::string> canonical = CanonicalObjectId(*id);
      found =
          Matching(order, [&](const Selector& s) { return canonical && s.source_id == canonical; });
    } else if (auto name = StringMember(source, "name")) {
      found = Matching(order, [&](const Selector& s) { return s.name == *name; });
    } else {
      Invalid("A filter's source needs an id or a name");
    }
  } else {
    Invalid("A filter needs a key, a name, a source or a visualizationKey: " + DumpJson(entry));
  }
  if (found.size() > 1) {
    Invalid("The filter " + Describe(entry) + " matches " + std::to_string(found.size()) +
            " selectors; name it by key");
  }
  return found.empty() ? nullptr : found.front();
}

Selection Cleared(const Selector& selector) {
  switch (selector.type) {
    case SelectorType::kObjectReplacement:
    case SelectorType::kValueParameter:
      return selector.saved;
    default:
      return Selection{};
  }
}

std::string CanonicalElement(const Json& element, const Selector& selector,
                             const FilterContext& context) {
  const std::string source = selector.source_id.value_or("");
  if (element.is_object() && element.contains("id") && element["id"].is_string()) {
    std::string text = element["id"].get<std::string>();
    const std::vector<std::string> segments = Split(text, ';');
    if (!text.empty() && text[0] == 'h' && segments.size() >= 2 && segments[1].empty()) {
      text = segments[0] + ";" + source;  // "h1;;Books": the selector's own attribute
    }
    const engine::ElementId id = engine::ParseElementId(text, context.is_attribute);
    if (id.attribute_id != source) {
      Invalid("Element '" + element["id"].get<std::string>() + "' is not an element of '" +
              selector.name + "' (attribute " + source + ")");
    }
    return engine::FormatAttributeElementId(id);
  }
  if (element.is_object() && element.contains("name") && element["name"].is_string()) {
    const std::string name = element["name"].get<std::string>();
    const std::optional<std::string> key =
        context.element_by_name ? context.element_by_name(source, name) : std::nullopt;
    if (!key) Invalid("No element of '" + selector.name + "' is named '" + name + "'");
    return engine::FormatAttributeElementId({source, *key});
  }
  Invalid("Invalid element id - " + DumpJson(element));
}

std::vector<std::string> ElementsOf(const Json& list, const Selector& selector,
                                    const FilterContext& context) {
  if (!list.is_array()) Invalid("elements: must be an array of {id, name}");
  std::vector<std::string> elements;
  for (const auto& element : list) elements.push_back(CanonicalElement(element, selector, context));
  if (elements.size() > 1 && !selector.multi_selection_allowed) {
    Invalid("Selector '" + selector.name + "' allows one selection, got " +
            std::to_string(elements.size()));
  }
  return elements;
}

// "i<id>;<id>" and "U<id>;<id>" name <id>; a plain id is accepted too.
std::string CanonicalObjectItem(const Json& item, const Selector& selector) {
  if (!item.is_object() || !item.contains("id") || !item["id"].is_string()) {
    Invalid("objectItems: every item needs an id, got " + DumpJson(item));
  }
  const std::string text = item["id"].get<std::string>();
  const std::vector<std::string> segments = Split(text, ';');
  std::optional<std::string> id = CanonicalObjectId(segments.back());
  if (!id && text.size() == 33) id = CanonicalObjectId(std::string_view(text).substr(1));
  if (!id) Invalid("Invalid object item id - " + text);
  for (const auto& available : selector.available_objects) {
    if (available == *id) return *id;
  }
  Invalid("Object '" + text + "' is not one of the objects selector '" + selector.name +
          "' offers");
}

SelectionStatus StatusOf(const Json& selection) {
  if (!selection.contains("selectionStatus")) return SelectionStatus::kIncluded;
  const Json& status = selection["selectionStatus"];
  for (auto value :
       {SelectionStatus::kIncluded, SelectionStatus::kExcluded, SelectionStatus::kUnfiltered}) {
    if (status.is_string() && status.get<std::string>() == model::SelectionStatusName(value)) {
      return value;
    }
  }
  Invalid("selectionStatus: included, excluded or unfiltered, got " + DumpJson(status));
}

std::optional<double> NumberOf(const std::string& text) {
  try {
    size_t used = 0;
    const double value = std::stod(text, &used);
    if (used != text.size() || !std::isfinite(value)) return std::nullopt;
    return value;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::string ValueText(const Json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number()) return DumpJson(value);
  Invalid("values: every value is a string or a number, got " + DumpJson(value));
}

void CheckValue(const std::string& text, const Selector& selector) {
  const std::string type = ToLower(selector.data_type);
  const bool numeric = type == "real" || type == "bigdecimal" || type == "int64" ||
                       type == "integer" || type == "double" || type == "number";
  if (!numeric) return;
  const std::optional<double> value = NumberOf(std::string(Trim(text)));
  if (!value || ((type == "int64" || type == "integer") && std::floor(*value) != *value)) {
    Invalid("Value '" + text + "' is not a " + selector.data_type + " for parameter '" +
            selector.name + "'");
  }
  const std::optional<double> low =
      selector.min_value ? NumberOf(*selector.min_value) : std::nullopt;
  const std::optional<double> high =
      selector.max_value ? NumberOf(*selector.max_value) : std::nullopt;
  if ((low && *value < *low) || (high && *value > *high)) {
    Invalid("Value '" + text + "' is outside the range of parameter '" + selector.name + "' (" +
            selector.min_value.value_or("") + " to " + selector.max_value.value_or("") + ")");
  }
}

Selection ReadValues(const Json& selection, const Selector& selector) {
  if (!selection.contains("values")) return selector.saved;
  const Json& list = selection["values"];
  if (!list.is_array()) Invalid("values: must be an array");
  if (list.empty()) return selector.saved;
  if (list.size() > 1) Invalid("Parameter '" + selector.name + "' takes one value");
  Selection result;
  result.status = SelectionStatus::kIncluded;
  result.values.push_back(ValueText(list[0]));
  CheckValue(result.values.back(), selector);
  return result;
}

Selection ReadExpression(const Json& selection, const Selector& selector,
                         const FilterContext& context) {
  if (!selection.contains("expression") || selection["expression"].is_null()) return Selection{};
  const Json& expression = selection["expression"];
  if (!expression.is_object()) Invalid("expression: must be an object {operator, operands}");
  if (context.check_expression) context.check_expression(selector, expression);
  Selection result;
  result.status = SelectionStatus::kIncluded;
  result.expression = expression;
  return result;
}

Selection ReadNew(const Json& entry, const Selector& selector, const FilterContext& context) {
  if (!entry.contains("currentSelection")) return Cleared(selector);
  const Json& selection = entry["currentSelection"];
  if (!selection.is_object()) Invalid("currentSelection: must be an object");
  if (selection.contains("dynamicSelectionApplied")) {
    Invalid("currentSelection.dynamicSelectionApplied is read-only");
  }
  const SelectionStatus status = StatusOf(selection);
  const bool all = selection.value("allSelected", false) == true;
  if (all && !selector.has_all_option) {
    Invalid("Selector '" + selector.name + "' has no (All) option");
  }
  if (status == SelectionStatus::kExcluded &&
      selector.type != SelectorType::kAttributeElementList) {
    Invalid("Selector '" + selector.name + "' is a " +
            std::string(model::SelectorTypeName(selector.type)) + ": it cannot exclude");
  }
  if (status == SelectionStatus::kUnfiltered) return Cleared(selector);
  switch (selector.type) {
    case SelectorType::kAttributeElementList: {
      Selection result;
      if (all) {
        result.all_selected = true;
        return result;
      }
      result.elements = ElementsOf(selection.value("elements", Json::array()), selector, context);
      result.status = result.elements.empty() ? SelectionStatus::kUnfiltered : status;
      return result;
    }
    case SelectorType::kAttributeQualification:
    case SelectorType::kMetricQualification:
    case SelectorType::kVisualizationAsFilter:
      return ReadExpression(selection, selector, context);
    case SelectorType::kObjectReplacement: {
      const Json items = selection.value("objectItems", Json::array());
      if (!items.is_array()) Invalid("objectItems: must be an array");
      if (items.empty()) return selector.saved;
      if (items.size() > 1 && !selector.multi_selection_allowed) {
        Invalid("Selector '" + selector.name + "' allows one object, got " +
                std::to_string(items.size()));
      }
      Selection result;
      result.status = SelectionStatus::kIncluded;
      for (const auto& item : items) result.objects.push_back(CanonicalObjectItem(item, selector));
      return result;
    }
    case SelectorType::kValueParameter:
      return ReadValues(selection, selector);
  }
  return Cleared(selector);
}

Json ConstantsOperand(const Json& entry, const std::string& qualifier) {
  const Json constants = entry.value("constants", Json::array());
  if (!constants.is_array()) Invalid("constants: must be an array");
  const std::string data_type = entry.value("dataType", std::string("Real"));
  if (qualifier == "In" || qualifier == "NotIn") {
    Json values = Json::array();
    for (const auto& constant : constants) values.push_back(ValueText(constant));
    return Json::array({{{"type", "constants"}, {"dataType", data_type}, {"values", values}}});
  }
  Json operands = Json::array();
  for (const auto& constant : constants) {
    operands.push_back(
        {{"type", "constant"}, {"dataType", data_type}, {"value", ValueText(constant)}});
  }
  return operands;
}

Selection ReadOld(const Json& entry, const Selector& selector, const FilterContext& context) {
  if (entry.value("unset", false) == true) return Cleared(selector);
  if (selector.type == SelectorType::kAttributeElementList) {
    if (entry.contains("qualifier") || entry.contains("constants")) {
      Invalid("Selector '" + selector.name + "' is an element list: it takes selections");
    }
    Selection result;
    result.elements = ElementsOf(entry.value("selections", Json::array()), selector, context);
    const bool include = entry.value("include", true) != false;
    result.status = result.elements.empty()
                        ? SelectionStatus::kUnfiltered
                        : (include ? SelectionStatus::kIncluded : SelectionStatus::kExcluded);
    return result;
  }
  if (selector.type == SelectorType::kMetricQualification) {
    if (entry.contains("selections")) {
      Invalid("Selector '" + selector.name + "' is a metric qualification: it takes a qualifier");
    }
    if (entry.value("include", true) == false) {
      Invalid("Selector '" + selector.name + "' is a metric qualification: it cannot exclude");
    }
    const std::optional<std::string> qualifier = StringMember(entry, "qualifier");
    if (!qualifier) return Cleared(selector);
    Json operands = Json::array({{{"type", "metric"}, {"id", selector.source_id.value_or("")}}});
    for (const auto& operand : ConstantsOperand(entry, *qualifier)) operands.push_back(operand);
    Json selection = {{"expression", {{"operator", *qualifier}, {"operands", operands}}}};
    return ReadExpression(selection, selector, context);
  }
  Invalid("The old filter format applies to element lists and metric qualifications; selector '" +
          selector.name + "' is a " + std::string(model::SelectorTypeName(selector.type)));
}

}  // namespace

std::vector<SelectorUpdate> ParseFilterEntries(const Json& body, const FilterContext& context,
                                               bool ignore_missing) {
  std::vector<SelectorUpdate> updates;
  for (const Json& entry : EntriesOf(body)) {
    const Selector* selector = FindSelector(entry, context);
    if (!selector) {
      if (ignore_missing) continue;
      Invalid("No selector of the dashboard matches the filter " + Describe(entry));
    }
    SelectorUpdate update{selector->key, {}};
    if (IsNewFormat(entry)) {
      update.selection = ReadNew(entry, *selector, context);
    } else if (IsOldFormat(entry)) {
      update.selection = ReadOld(entry, *selector, context);
    } else {
      update.selection = Cleared(*selector);
    }
    updates.push_back(std::move(update));
  }
  return updates;
}

DashboardState ApplyFilterUpdates(const model::Dashboard& dashboard, DashboardState state,
                                  const std::vector<SelectorUpdate>& updates) {
  for (const auto& update : updates) {
    state.selections[update.key] = update.selection;
    state.dynamic_applied.erase(update.key);
    const Selector* selector = dashboard.FindSelector(update.key);
    if (!selector || !selector->synchronized_across_chapter || !selector->source_id) continue;
    for (const auto& chapter : dashboard.chapters) {
      if (chapter.key == selector->chapter_key) continue;
      for (const Selector* other : dashboard.SelectorsOfChapter(chapter.key)) {
        if (other->synchronized_across_chapter && other->source_id == selector->source_id &&
            other->type == selector->type) {
          state.selections[other->key] = update.selection;
          state.dynamic_applied.erase(other->key);
        }
      }
    }
  }
  return state;
}

}  // namespace tessera::service::dashboard
