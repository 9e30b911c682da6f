// service/dashboard/filter_entries.h
//
// The filter entries of PUT .../instances/{id}/filters and of `filters` at instance creation
// (spec 03 §3), read into new selections for the dashboard's selectors.
//
// Format (§3.1): an entry with `currentSelection` or `visualizationKey` is in the new format; one
// with `selections`, `qualifier`/`constants`, `include` or `unset` in the old format (element
// lists and metric qualifications only); one with nothing but `key`, `name` and/or `source`
// clears its selector. A selector is found by `visualizationKey`, then `key`, `name`,
// `source.id`, `source.name`, first among the current chapter's selectors, then among the
// others. Clearing gives an element list or qualification no condition, an object replacement or
// a value parameter its saved answer.
//
// Answers are canonical: element ids in the colon form "<attribute id>:<ID value>" (any id form
// of spec 03 §7.2 is read, and an element given by name alone is looked up by `element_by_name`),
// object ids plain, values as text.
//
// ParseFilterEntries is atomic: it checks every entry before it returns anything, and throws
// Error(kInvalidInput) with a message naming the entry for every case of spec 03 §3.5 -- an entry
// naming no selector, an unmatched one unless `ignore_missing`, a name matching several
// selectors, `excluded` on a qualification, `dynamicSelectionApplied` in a body, several answers
// for a single-selection selector, `allSelected` without an "(All)" option, a malformed element
// id or one of another attribute, an object not offered, a value of the wrong type or outside
// the parameter's range, and the expression errors `check_expression` raises.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"
#include "model/dashboard.h"
#include "service/dashboard/dashboard_state.h"

namespace tessera::service::dashboard {

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

std::vector<SelectorUpdate> ParseFilterEntries(const Json& body, const FilterContext& context,
                                               bool ignore_missing);

// The state with the updates applied; a synchronized selector's selection is copied into the
// synchronized selectors of the same source in other chapters. Does not bump the generation.
DashboardState ApplyFilterUpdates(const model::Dashboard& dashboard, DashboardState state,
                                  const std::vector<SelectorUpdate>& updates);

}  // namespace tessera::service::dashboard
