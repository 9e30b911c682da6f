// service/dashboard/filter_entries.h
//
// The filter entries of PUT .../instances/{id}/filters and of `filters` at instance creation, as
// api/dashboard/dashboard_requests.h reads them from the body, resolved into new selections for the
// dashboard's selectors.
//
// Format: an entry with `currentSelection` or `visualizationKey` is in the new format; one with
// `selections`, `qualifier`/`constants`, `include` or `unset` in the old format (element lists
// and metric qualifications only); one with nothing but `key`, `name` and/or `source` clears its
// selector. A selector is found by `visualizationKey`, then `key`, `name`, `source.id`,
// `source.name` (the first of these the entry has), first among the current chapter's selectors,
// then among the other chapters' in order; several matches in one chapter are refused. Clearing
// gives an element list or qualification no condition, an object replacement or a value
// parameter its saved answer.
//
// Answers are canonical: element ids in the colon form "<attribute id>:<ID value>" (any element
// id form is read -- "h<value>;<attribute id>", with "h<value>;;..." meaning the selector's own
// attribute -- and an element given by name alone is looked up by `element_by_name`), object ids
// plain, values as text.
//
// ResolveFilterEntries is atomic: it checks every entry before it returns anything, and throws
// Error(kInvalidInput) with a message naming the entry for an entry naming no selector of the
// dashboard (unless `ignore_missing`), a name matching several selectors, `excluded` on anything
// but an element list, several answers for a single-selection selector, `allSelected` without an
// "(All)" option, an element id of another attribute or an element name nothing has, an object
// not offered, a value of the wrong type or outside the parameter's range, an old-format entry
// for a selector it does not apply to, the expression errors `check_expression` raises, and the
// faults of the members it reads: a member only some selector types read is Parsed
// (service/parsed.h), its fault refused only if the entry's selector reads it.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/json.h"
#include "model/dashboard.h"
#include "service/dashboard/dashboard_state.h"
#include "service/parsed.h"

namespace tessera::service::dashboard {

// How an entry names its selector.
struct SelectorName {
  enum class By { kVisualizationKey, kKey, kName, kSourceId, kSourceName };
  By by = By::kKey;
  std::string text;
};

// An element of `elements` (new format) or `selections` (old format).
struct GivenElement {
  std::optional<std::string> id;  // any element id form
  std::string name;               // the display name, when there is no id
};

// An item of `objectItems`.
struct GivenObject {
  std::string text;       // the id as sent: "i<id>;<id>", "U<id>;<id>" or plain
  std::string object_id;  // the object it names
};

// `currentSelection` of a new-format entry. Each selector type reads its own member.
struct CurrentSelection {
  model::SelectionStatus status = model::SelectionStatus::kIncluded;
  bool all_selected = false;
  Parsed<std::vector<Parsed<GivenElement>>> elements;  // element lists
  Parsed<Json> expression;  // qualifications, visualizations as filters; null = none
  Parsed<std::vector<Parsed<GivenObject>>> object_items;  // object replacements
  // Value parameters: the values as text; nullopt when `values` is absent.
  Parsed<std::optional<std::vector<Parsed<std::string>>>> values;
};

// The qualification of an old-format entry: the operator and the operands that follow the
// selector's metric in its expression (the constants).
struct OldQualification {
  std::string qualifier;
  Json constant_operands = Json::array();
};

// The members of an old-format entry.
struct OldSelection {
  Parsed<bool> unset;
  bool has_selections = false;
  bool has_qualifier_or_constants = false;
  Parsed<std::vector<Parsed<GivenElement>>> selections;  // element lists
  Parsed<bool> include = true;
  Parsed<std::optional<OldQualification>> qualification;  // metric qualifications; nullopt: none
};

struct FilterEntry {
  enum class Format { kClear, kNew, kOld };
  SelectorName selector;
  std::string description;  // how messages name the entry: "key 'W10'", "source {...}"
  Format format = Format::kClear;
  Parsed<std::optional<CurrentSelection>> current_selection;  // kNew; nullopt: absent (clears)
  OldSelection old;                                           // kOld
};

struct FilterContext {
  const model::Dashboard& dashboard;
  const DashboardState& state;
  std::function<bool(const std::string& attribute_id)> is_attribute;
  // The ID value of the element of `attribute_id` whose display text is `name`; nullopt when
  // none is.
  std::function<std::optional<std::string>(const std::string& attribute_id,
                                           const std::string& name)>
      element_by_name;
  // Throws when `expression` cannot filter the data of `selector` (qualifications and
  // visualizations used as filters).
  std::function<void(const model::Selector& selector, const Json& expression)> check_expression;
};

struct SelectorUpdate {
  std::string key;
  model::Selection selection;
};

std::vector<SelectorUpdate> ResolveFilterEntries(const std::vector<FilterEntry>& entries,
                                                 const FilterContext& context, bool ignore_missing);

// The state with the updates applied; a synchronized selector's selection is copied into the
// synchronized selectors of the same source in other chapters. Does not bump the generation.
DashboardState ApplyFilterUpdates(const model::Dashboard& dashboard, DashboardState state,
                                  const std::vector<SelectorUpdate>& updates);

}  // namespace tessera::service::dashboard
