#include "service/dashboard/dashboard_state.h"

namespace tessera::service::dashboard {

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

namespace {

Json Strings(const std::vector<std::string>& values) {
  Json array = Json::array();
  for (const auto& value : values) array.push_back(value);
  return array;
}

std::vector<std::string> StringsOf(const Json& array) {
  return array.get<std::vector<std::string>>();
}

Json SelectionToJson(const model::Selection& selection) {
  return {{"status", static_cast<int>(selection.status)}, {"allSelected", selection.all_selected},
          {"elements", Strings(selection.elements)},      {"expression", selection.expression},
          {"objects", Strings(selection.objects)},        {"values", Strings(selection.values)}};
}

model::Selection SelectionFromJson(const Json& json) {
  model::Selection selection;
  selection.status = static_cast<model::SelectionStatus>(json.at("status").get<int>());
  selection.all_selected = json.at("allSelected").get<bool>();
  selection.elements = StringsOf(json.at("elements"));
  selection.expression = json.at("expression");
  selection.objects = StringsOf(json.at("objects"));
  selection.values = StringsOf(json.at("values"));
  return selection;
}

}  // namespace

Json StateToJson(const DashboardState& state) {
  Json selections = Json::object();
  for (const auto& [key, selection] : state.selections) {
    selections[key] = SelectionToJson(selection);
  }
  Json dynamic_applied = Json::array();
  for (const auto& key : state.dynamic_applied) dynamic_applied.push_back(key);
  return {{"executed", state.mode == DashboardState::Mode::kExecuted},
          {"parallelRendering", state.parallel_rendering},
          {"chapter", state.current_chapter},
          {"page", state.current_page},
          {"selections", std::move(selections)},
          {"dynamicApplied", std::move(dynamic_applied)}};
}

DashboardState StateFromJson(const Json& json) {
  DashboardState state;
  state.mode = json.at("executed").get<bool>() ? DashboardState::Mode::kExecuted
                                               : DashboardState::Mode::kResolved;
  state.parallel_rendering = json.at("parallelRendering").get<bool>();
  state.current_chapter = json.at("chapter").get<std::string>();
  state.current_page = json.at("page").get<std::string>();
  for (const auto& [key, selection] : json.at("selections").items()) {
    state.selections.emplace(key, SelectionFromJson(selection));
  }
  for (const auto& key : json.at("dynamicApplied")) {
    state.dynamic_applied.insert(key.get<std::string>());
  }
  return state;
}

}  // namespace tessera::service::dashboard
