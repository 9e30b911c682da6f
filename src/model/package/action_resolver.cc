#include "model/package/action_resolver.h"

#include <memory>

#include "core/strings.h"
#include "model/object_types.h"

namespace tessera::model::package {

namespace {

template <typename Map, typename Key>
std::optional<ConflictRule> Lookup(const Map& map, const Key& key) {
  auto it = map.find(key);
  if (it == map.end()) return std::nullopt;
  return it->second;
}

ListedActions ListedIn(const std::vector<ContentItem>& content) {
  // A list read from a body holds one item per id already; assignment keeps the last one for
  // lists built by hand too.
  auto listed = std::make_shared<std::map<std::string, ConflictRule>>();
  for (const ContentItem& item : content) (*listed)[ToUpper(item.id)] = item.action;
  return [listed](const std::string& upper_id) { return Lookup(*listed, upper_id); };
}

}  // namespace

ActionResolver::ActionResolver(const PackageSettings& settings,
                               const std::vector<ContentItem>& content, PackagePurpose purpose)
    : ActionResolver(settings, purpose, ListedIn(content)) {}

ActionResolver::ActionResolver(const PackageSettings& settings, PackagePurpose purpose,
                               ListedActions listed)
    : is_project_merge_(purpose == PackagePurpose::kProjectMerge),
      default_action_(settings.default_action),
      listed_(std::move(listed)) {
  // Lists parsed by ParsePackageSettings hold one entry per key already; assignment keeps the
  // last one for lists built by hand too, as parsing does.
  if (!is_project_merge_) return;
  for (const IdAction& entry : settings.object_actions) {
    object_actions_[ToUpper(entry.id)] = entry.action;
  }
  for (const IdAction& entry : settings.folder_actions) {
    folder_actions_[ToUpper(entry.id)] = entry.action;
  }
  for (const TypeAction& entry : settings.object_type_actions) {
    if (entry.subtype) {
      subtype_actions_[{entry.type, *entry.subtype}] = entry.action;
    } else {
      type_actions_[entry.type] = entry.action;
    }
  }
}

ConflictRule ActionResolver::Resolve(const ResolverObject& object) const {
  if (!is_project_merge_) {
    return listed_(ToUpper(object.id)).value_or(default_action_);
  }
  if (auto rule = Lookup(object_actions_, ToUpper(object.id))) return *rule;
  if (auto rule = FolderRule(object)) return *rule;
  if (auto rule = TypeRule(object)) return *rule;
  return default_action_;
}

std::optional<ConflictRule> ActionResolver::FolderRule(const ResolverObject& object) const {
  if (folder_actions_.empty()) return std::nullopt;
  if (object.type == kTypeFolder) {
    if (auto rule = Lookup(folder_actions_, ToUpper(object.id))) return rule;
  }
  for (const std::string& folder_id : object.ancestor_ids) {  // nearest first: deepest wins
    if (auto rule = Lookup(folder_actions_, ToUpper(folder_id))) return rule;
  }
  return std::nullopt;
}

std::optional<ConflictRule> ActionResolver::TypeRule(const ResolverObject& object) const {
  if (auto rule = Lookup(subtype_actions_, std::pair{object.type, object.subtype})) return rule;
  return Lookup(type_actions_, object.type);
}

}  // namespace tessera::model::package
