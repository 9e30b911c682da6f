// service/dashboard/dashboard_state.h
//
// What a dashboard instance is showing at one moment: its mode (resolved or executed), whether
// its next render may be parallel, its current chapter and page, and the current selection of
// every selector, keyed by selector key (a visualization used as a filter by its visualization's
// key).
// A state is immutable once published: a manipulation builds the next one and bumps
// `generation`, under which the visualization results of that state are cached.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/json.h"
#include "model/dashboard.h"

namespace tessera::service::dashboard {

struct DashboardState {
  enum class Mode { kResolved, kExecuted };
  Mode mode = Mode::kExecuted;
  bool parallel_rendering = false;
  std::string current_chapter;
  std::string current_page;
  std::map<std::string, model::Selection, std::less<>> selections;
  std::set<std::string, std::less<>> dynamic_applied;  // selections made by defaultDynamicSelection
  uint64_t generation = 0;

  const model::Selection& SelectionOf(const model::Selector& selector) const;
};

// The state as JSON and back (service/instance/shared_instances.h keeps it for other nodes); the
// generation is not kept (it numbers one node's states).
Json StateToJson(const DashboardState& state);
DashboardState StateFromJson(const Json& json);

// The first `quantity` (or last) element ids, colon form, of an attribute in the dashboard's data,
// in ID order; empty when no data holds it.
using DynamicElements = std::function<std::vector<std::string>(const std::string& attribute_id,
                                                               bool first, int quantity)>;

// The saved selections, with dynamic default selections resolved; the start chapter is the first
// one, its first page current.
DashboardState SavedState(const model::Dashboard& dashboard, const DynamicElements& dynamic);

}  // namespace tessera::service::dashboard
