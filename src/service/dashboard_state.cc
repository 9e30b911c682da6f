#include "service/dashboard_state.h"

namespace tessera::service {

const model::Selection& DashboardState::SelectionOf(const model::Selector& selector) const {
  auto it = selections.find(selector.key);
  return it == selections.end() ? selector.saved : it->second;
}

namespace {

void AddSaved(const model::Selector& selector, const DynamicElements& dynamic,
              DashboardState& state) {
  model::Selection selection = selector.saved;
  const bool unanswered = selection.status == model::SelectionStatus::kUnfiltered ||
                          (selection.elements.empty() && selection.expression.is_null() &&
                           selection.objects.empty() && selection.values.empty());
  if (selector.default_dynamic_selection && selector.source_id && unanswered && dynamic) {
    const model::DynamicSelection& rule = *selector.default_dynamic_selection;
    selection.elements = dynamic(*selector.source_id, rule.first, rule.quantity);
    if (!selection.elements.empty()) {
      selection.status = model::SelectionStatus::kIncluded;
      state.dynamic_applied.insert(selector.key);
    }
  }
  state.selections[selector.key] = std::move(selection);
}

}  // namespace

DashboardState SavedState(const model::Dashboard& dashboard, const DynamicElements& dynamic) {
  DashboardState state;
  if (!dashboard.chapters.empty()) {
    state.current_chapter = dashboard.chapters.front().key;
    if (!dashboard.chapters.front().pages.empty()) {
      state.current_page = dashboard.chapters.front().pages.front().key;
    }
  }
  for (const auto& chapter : dashboard.chapters) {
    for (const model::Selector* selector : dashboard.SelectorsOfChapter(chapter.key)) {
      AddSaved(*selector, dynamic, state);
    }
  }
  return state;
}

}  // namespace tessera::service
