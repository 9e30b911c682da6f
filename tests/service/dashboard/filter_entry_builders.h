// Filter entries built the way api/dashboard/dashboard_requests.h reads them from a body, for tests
// of the service layer (which does not link the API layer). Each builder names the body it stands
// for.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "service/dashboard/filter_entries.h"

namespace tessera::testing {

using service::Parsed;
using service::dashboard::CurrentSelection;
using service::dashboard::FilterEntry;
using service::dashboard::GivenElement;
using service::dashboard::GivenObject;
using service::dashboard::SelectorName;

// {"key": key}, or {"name": name}: clears the selector.
inline FilterEntry EntryWithKey(const std::string& key) {
  FilterEntry entry;
  entry.selector = {SelectorName::By::kKey, key};
  entry.description = "key '" + key + "'";
  return entry;
}

inline FilterEntry EntryNamed(const std::string& name) {
  FilterEntry entry;
  entry.selector = {SelectorName::By::kName, name};
  entry.description = "name '" + name + "'";
  return entry;
}

// The entry with "currentSelection": `selection`.
inline FilterEntry Selecting(FilterEntry entry, CurrentSelection selection) {
  entry.format = FilterEntry::Format::kNew;
  entry.current_selection = std::optional<CurrentSelection>(std::move(selection));
  return entry;
}

// {"selectionStatus": status, "elements": [{"id": id}, ...]}
inline CurrentSelection ElementsById(
    const std::vector<std::string>& ids,
    model::SelectionStatus status = model::SelectionStatus::kIncluded) {
  CurrentSelection selection;
  selection.status = status;
  std::vector<Parsed<GivenElement>> elements;
  for (const auto& id : ids) elements.push_back(GivenElement{id, ""});
  selection.elements = std::move(elements);
  return selection;
}

// {"elements": [{"name": name}]}
inline CurrentSelection ElementNamed(const std::string& name) {
  CurrentSelection selection;
  selection.elements = std::vector<Parsed<GivenElement>>{GivenElement{std::nullopt, name}};
  return selection;
}

// {"objectItems": [{"id": text}]} where `text` names `object_id`.
inline CurrentSelection ObjectItem(const std::string& text, const std::string& object_id) {
  CurrentSelection selection;
  selection.object_items = std::vector<Parsed<GivenObject>>{GivenObject{text, object_id}};
  return selection;
}

// {"selectionStatus": status}
inline CurrentSelection WithStatus(model::SelectionStatus status) {
  CurrentSelection selection;
  selection.status = status;
  return selection;
}

// The entry in the old format with "unset": true.
inline FilterEntry Unset(FilterEntry entry) {
  entry.format = FilterEntry::Format::kOld;
  entry.old.unset = true;
  entry.old.include = true;
  return entry;
}

// The entry in the old format with "selections": [{"id": id}, ...].
inline FilterEntry OldSelections(FilterEntry entry, const std::vector<std::string>& ids) {
  entry.format = FilterEntry::Format::kOld;
  entry.old.has_selections = true;
  entry.old.include = true;
  std::vector<Parsed<GivenElement>> elements;
  for (const auto& id : ids) elements.push_back(GivenElement{id, ""});
  entry.old.selections = std::move(elements);
  return entry;
}

}  // namespace tessera::testing
