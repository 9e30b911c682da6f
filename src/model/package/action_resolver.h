// model/package/action_resolver.h
//
// Which conflict rule applies to one package object.
//   Object migration, configuration and project-security packages: an object listed in the
//   content uses its item's `action`; an object pulled in through includeDependents uses
//   `defaultAction`. Listing is decided by id, so an object that is both listed and pulled in
//   takes its listed action. (Ancestor folders a package carries only to place its objects are
//   not resolved here: the import applies use_existing to them, creating only missing ones.)
//   Project merge, most specific first: objectActions > folderActions > objectTypeActions
//   {type, subtype} > objectTypeActions {type} > defaultAction. A folder rule covers the folder
//   itself and everything below it; the deepest matching folder wins. Folders take the normal
//   precedence too (no special case for type 8).
// Ids compare case-insensitively. The resolver copies what it needs: the settings and content
// may go away after construction. A long content list may instead be looked up where it is kept
// (ListedActions), for as long as the resolver is used.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/package/conflict_rules.h"
#include "model/package/kind.h"
#include "model/package/settings.h"

namespace tessera::model::package {

struct ResolverObject {
  std::string id;
  int type = 0;
  int subtype = 0;
  std::vector<std::string> ancestor_ids;  // folder ids, nearest (the parent) first
};

// The action of the content item with an upper-case id; nullopt when the id is not listed.
using ListedActions = std::function<std::optional<ConflictRule>(const std::string& upper_id)>;

class ActionResolver {
 public:
  ActionResolver(const PackageSettings& settings, const std::vector<ContentItem>& content,
                 PackagePurpose purpose);
  ActionResolver(const PackageSettings& settings, PackagePurpose purpose, ListedActions listed);

  ConflictRule Resolve(const ResolverObject& object) const;

 private:
  std::optional<ConflictRule> FolderRule(const ResolverObject& object) const;
  std::optional<ConflictRule> TypeRule(const ResolverObject& object) const;

  bool is_project_merge_;
  ConflictRule default_action_;
  ListedActions listed_;
  std::map<std::string, ConflictRule> object_actions_;
  std::map<std::string, ConflictRule> folder_actions_;
  std::map<std::pair<int, int>, ConflictRule> subtype_actions_;  // {type, subtype}
  std::map<int, ConflictRule> type_actions_;                     // {type}
};

}  // namespace tessera::model::package
