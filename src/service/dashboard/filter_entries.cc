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

bool IsNamedBy(const Selector& selector, const SelectorName& name,
               const std::optional<std::string>& source_id) {
  switch (name.by) {
    case SelectorName::By::kVisualizationKey:
      return selector.key == name.text && selector.type == SelectorType::kVisualizationAsFilter;
    case SelectorName::By::kKey:
      return selector.key == name.text;
    case SelectorName::By::kName:
    case SelectorName::By::kSourceName:
      return selector.name == name.text;
    case SelectorName::By::kSourceId:
      return source_id && selector.source_id == source_id;
  }
  return false;
}

const Selector* FindSelector(const FilterEntry& entry, const FilterContext& context) {
  const std::optional<std::string> source_id = entry.selector.by == SelectorName::By::kSourceId
                                                   ? CanonicalObjectId(entry.selector.text)
                                                   : std::nullopt;
  const std::vector<const Selector*> found =
      Matching(SearchOrder(context.dashboard, context.state.current_chapter),
               [&](const Selector& s) { return IsNamedBy(s, entry.selector, source_id); });
  if (found.size() > 1) {
    ThrowInvalidInput("The filter " + entry.description + " matches " +
                      std::to_string(found.size()) + " selectors; name it by key");
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

std::string CanonicalElement(const GivenElement& element, const Selector& selector,
                             const FilterContext& context) {
  const std::string source = selector.source_id.value_or("");
  if (element.id) {
    std::string text = *element.id;
    const std::vector<std::string> segments = Split(text, ';');
    if (!text.empty() && text[0] == 'h' && segments.size() >= 2 && segments[1].empty()) {
      text = segments[0] + ";" + source;  // "h1;;Books": the selector's own attribute
    }
    const engine::ElementId id = engine::ParseElementId(text, context.is_attribute);
    if (id.attribute_id != source) {
      ThrowInvalidInput("Element '" + *element.id + "' is not an element of '" + selector.name +
                        "' (attribute " + source + ")");
    }
    return engine::FormatAttributeElementId(id);
  }
  const std::optional<std::string> key =
      context.element_by_name ? context.element_by_name(source, element.name) : std::nullopt;
  if (!key)
    ThrowInvalidInput("No element of '" + selector.name + "' is named '" + element.name + "'");
  return engine::FormatAttributeElementId({source, *key});
}

std::vector<std::string> ElementsOf(const Parsed<std::vector<Parsed<GivenElement>>>& list,
                                    const Selector& selector, const FilterContext& context) {
  std::vector<std::string> elements;
  for (const auto& element : list.value()) {
    elements.push_back(CanonicalElement(element.value(), selector, context));
  }
  if (elements.size() > 1 && !selector.multi_selection_allowed) {
    ThrowInvalidInput("Selector '" + selector.name + "' allows one selection, got " +
                      std::to_string(elements.size()));
  }
  return elements;
}

std::string OfferedObject(const GivenObject& item, const Selector& selector) {
  for (const auto& available : selector.available_objects) {
    if (available == item.object_id) return item.object_id;
  }
  ThrowInvalidInput("Object '" + item.text + "' is not one of the objects selector '" +
                    selector.name + "' offers");
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

void CheckValue(const std::string& text, const Selector& selector) {
  const std::string type = ToLower(selector.data_type);
  const bool numeric = type == "real" || type == "bigdecimal" || type == "int64" ||
                       type == "integer" || type == "double" || type == "number";
  if (!numeric) return;
  const std::optional<double> value = NumberOf(std::string(Trim(text)));
  if (!value || ((type == "int64" || type == "integer") && std::floor(*value) != *value)) {
    ThrowInvalidInput("Value '" + text + "' is not a " + selector.data_type + " for parameter '" +
                      selector.name + "'");
  }
  const std::optional<double> low =
      selector.min_value ? NumberOf(*selector.min_value) : std::nullopt;
  const std::optional<double> high =
      selector.max_value ? NumberOf(*selector.max_value) : std::nullopt;
  if ((low && *value < *low) || (high && *value > *high)) {
    ThrowInvalidInput("Value '" + text + "' is outside the range of parameter '" + selector.name +
                      "' (" + selector.min_value.value_or("") + " to " +
                      selector.max_value.value_or("") + ")");
  }
}

Selection ReadValues(const CurrentSelection& given, const Selector& selector) {
  const auto& values = given.values.value();
  if (!values || values->empty()) return selector.saved;
  if (values->size() > 1) ThrowInvalidInput("Parameter '" + selector.name + "' takes one value");
  Selection result;
  result.status = SelectionStatus::kIncluded;
  result.values.push_back(values->front().value());
  CheckValue(result.values.back(), selector);
  return result;
}

// A selection holding `expression` (null: no condition) once `check_expression` accepts it.
Selection ExpressionSelection(const Json& expression, const Selector& selector,
                              const FilterContext& context) {
  if (expression.is_null()) return Selection{};
  if (context.check_expression) context.check_expression(selector, expression);
  Selection result;
  result.status = SelectionStatus::kIncluded;
  result.expression = expression;
  return result;
}

Selection ReadObjects(const CurrentSelection& given, const Selector& selector) {
  const auto& items = given.object_items.value();
  if (items.empty()) return selector.saved;
  if (items.size() > 1 && !selector.multi_selection_allowed) {
    ThrowInvalidInput("Selector '" + selector.name + "' allows one object, got " +
                      std::to_string(items.size()));
  }
  Selection result;
  result.status = SelectionStatus::kIncluded;
  for (const auto& item : items) result.objects.push_back(OfferedObject(item.value(), selector));
  return result;
}

Selection ReadElementList(const CurrentSelection& given, SelectionStatus status,
                          const Selector& selector, const FilterContext& context) {
  Selection result;
  if (given.all_selected) {
    result.all_selected = true;
    return result;
  }
  result.elements = ElementsOf(given.elements, selector, context);
  result.status = result.elements.empty() ? SelectionStatus::kUnfiltered : status;
  return result;
}

void CheckAllowed(const CurrentSelection& given, const Selector& selector) {
  if (given.all_selected && !selector.has_all_option) {
    ThrowInvalidInput("Selector '" + selector.name + "' has no (All) option");
  }
  if (given.status == SelectionStatus::kExcluded &&
      selector.type != SelectorType::kAttributeElementList) {
    ThrowInvalidInput("Selector '" + selector.name + "' is a " +
                      std::string(model::SelectorTypeName(selector.type)) + ": it cannot exclude");
  }
}

Selection ReadNew(const FilterEntry& entry, const Selector& selector,
                  const FilterContext& context) {
  const std::optional<CurrentSelection>& given = entry.current_selection.value();
  if (!given) return Cleared(selector);
  CheckAllowed(*given, selector);
  if (given->status == SelectionStatus::kUnfiltered) return Cleared(selector);
  switch (selector.type) {
    case SelectorType::kAttributeElementList:
      return ReadElementList(*given, given->status, selector, context);
    case SelectorType::kAttributeQualification:
    case SelectorType::kMetricQualification:
    case SelectorType::kVisualizationAsFilter:
      return ExpressionSelection(given->expression.value(), selector, context);
    case SelectorType::kObjectReplacement:
      return ReadObjects(*given, selector);
    case SelectorType::kValueParameter:
      return ReadValues(*given, selector);
  }
  return Cleared(selector);
}

Selection ReadOldElementList(const OldSelection& old, const Selector& selector,
                             const FilterContext& context) {
  if (old.has_qualifier_or_constants) {
    ThrowInvalidInput("Selector '" + selector.name + "' is an element list: it takes selections");
  }
  Selection result;
  result.elements = ElementsOf(old.selections, selector, context);
  const bool include = old.include.value();
  result.status = result.elements.empty()
                      ? SelectionStatus::kUnfiltered
                      : (include ? SelectionStatus::kIncluded : SelectionStatus::kExcluded);
  return result;
}

Selection ReadOldQualification(const OldSelection& old, const Selector& selector,
                               const FilterContext& context) {
  if (old.has_selections) {
    ThrowInvalidInput("Selector '" + selector.name +
                      "' is a metric qualification: it takes a qualifier");
  }
  if (!old.include.value()) {
    ThrowInvalidInput("Selector '" + selector.name +
                      "' is a metric qualification: it cannot exclude");
  }
  const std::optional<OldQualification>& qualification = old.qualification.value();
  if (!qualification) return Cleared(selector);
  Json operands = Json::array({{{"type", "metric"}, {"id", selector.source_id.value_or("")}}});
  for (const auto& operand : qualification->constant_operands) operands.push_back(operand);
  return ExpressionSelection({{"operator", qualification->qualifier}, {"operands", operands}},
                             selector, context);
}

Selection ReadOld(const FilterEntry& entry, const Selector& selector,
                  const FilterContext& context) {
  if (entry.old.unset.value()) return Cleared(selector);
  if (selector.type == SelectorType::kAttributeElementList) {
    return ReadOldElementList(entry.old, selector, context);
  }
  if (selector.type == SelectorType::kMetricQualification) {
    return ReadOldQualification(entry.old, selector, context);
  }
  ThrowInvalidInput(
      "The old filter format applies to element lists and metric qualifications; selector '" +
      selector.name + "' is a " + std::string(model::SelectorTypeName(selector.type)));
}

Selection SelectionOf(const FilterEntry& entry, const Selector& selector,
                      const FilterContext& context) {
  switch (entry.format) {
    case FilterEntry::Format::kNew:
      return ReadNew(entry, selector, context);
    case FilterEntry::Format::kOld:
      return ReadOld(entry, selector, context);
    case FilterEntry::Format::kClear:
      break;
  }
  return Cleared(selector);
}

}  // namespace

std::vector<SelectorUpdate> ResolveFilterEntries(const std::vector<FilterEntry>& entries,
                                                 const FilterContext& context,
                                                 bool ignore_missing) {
  std::vector<SelectorUpdate> updates;
  for (const FilterEntry& entry : entries) {
    const Selector* selector = FindSelector(entry, context);
    if (!selector) {
      if (ignore_missing) continue;
      ThrowInvalidInput("No selector of the dashboard matches the filter " + entry.description);
    }
    updates.push_back({selector->key, SelectionOf(entry, *selector, context)});
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
