// model/package/settings.h
//
// The typed `tocView.settings` and `tocView.content` items of a package.
// Parsing either yields a value in normalised form or throws Error naming the field path
// ("packageInfo.tocView.settings.folderActions[2].action: 'merge' is not a conflict rule;
// expected one of ..."): kInvalidInput for a wrong value or type, kMissingField for an absent
// required field (core/json.h does the same).
//
// Normalised form: every absent or null key takes its default (defaultAction use_existing,
// updateSchema [], aclOnReplacingObjects use_existing, aclOnNewObjects
// [keep_acl_as_source_object], validateDependencies true, the merge lists [], translationAction
// not_merged; a null aclOnReplacingObjects means "none", which is also the default for
// project_security); ids are upper case; lists carry no duplicates (the last entry for an id or
// type wins); updateSchema steps are in the order the import runs them. ToJson() emits that form —
// always arrays, canonical names — so two settings compare equal exactly when their ToJson() do
// (the import PUT compares them with the manifest).
//
// Tolerances (mstrio-py): a bare string for aclOnNewObjects and for updateSchema; `subType` for
// `subtype`; an extra `objectType` in objectActions; `existing` for translationAction
// use_existing; null elements inside aclOnNewObjects/updateSchema (mstrio-py wraps a None);
// unknown keys. Refused: updateSchema steps or an aclOnReplacingObjects value in a package whose
// kind does not support them (updateSchema is for project packages only,
// aclOnReplacingObjects is not supported for project_security), and duplicate content ids.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "model/package/conflict_rules.h"
#include "model/package/kind.h"

namespace tessera::model::package {

// Run after the import commits, in the order declared.
enum class UpdateSchemaStep {
  kRecalTableKeysFactEntryLevel,  // "recal_table_keys_fact_entry_level"
  kRecalTableLogicalSize,         // "recal_table_logical_size"
  kUpdateSchemaLogicalInfo,       // "update_schema_logical_info"
};

// The ACL of an existing target object the import overwrites. kNone is a null value (always for
// project_security, which has no such option): an overwritten object then keeps the target's
// ACL, as with use_existing.
enum class AclOnReplacing {
  kNone,
  kUseExisting,  // keep the target's ACL
  kReplace,      // take the source ACL
  kKeepBoth,     // union of both, a deny winning
};

// The ACL of an object the import creates.
enum class AclOnNew {
  kKeepAclAsSourceObject,   // the source's ACL
  kInheritAclAsDestFolder,  // the inheritable entries of its destination folder
};

// How a project merge treats the translations of objects present on both sides: not merged
// (they travel with the object), existing target values kept, source values win where they
// differ, or the target's set becomes exactly the source's.
enum class TranslationAction {
  kNotMerged,
  kUseExisting,  // also spelt "existing"
  kReplace,
  kForceReplace,
};

struct IdAction {
  std::string id;  // upper case
  ConflictRule action = ConflictRule::kUseExisting;
};

struct TypeAction {
  int type = 0;
  std::optional<int> subtype;  // absent: every subtype of `type`
  ConflictRule action = ConflictRule::kUseExisting;
};

struct PackageSettings {
  ConflictRule default_action = ConflictRule::kUseExisting;
  std::vector<UpdateSchemaStep> update_schema;  // in the order run, no duplicates
  AclOnReplacing acl_on_replacing = AclOnReplacing::kUseExisting;
  std::vector<AclOnNew> acl_on_new = {AclOnNew::kKeepAclAsSourceObject};  // never empty
  bool validate_dependencies = true;
  // Project merge only (an object's action: its objectActions entry, else its deepest folder's,
  // else its type's, else defaultAction); other packages carry them but nothing reads them.
  std::vector<IdAction> folder_actions;
  std::vector<IdAction> object_actions;
  std::vector<TypeAction> object_type_actions;
  TranslationAction translation_action = TranslationAction::kNotMerged;
};

struct ContentItem {
  std::string id;           // upper case
  std::string name;         // "" when not sent
  std::optional<int> type;  // absent when not sent; the id alone identifies the object
  ConflictRule action = ConflictRule::kUseExisting;
  bool include_dependents = false;
};

// `settings` is tocView.settings (null or absent = every default); `field_path` prefixes
// messages.
PackageSettings ParsePackageSettings(const Json& settings, PackageKind kind,
                                     std::string_view field_path = "packageInfo.tocView.settings");

// `content` is tocView.content: an array of items, or null for none. Every item needs `id` and
// `action`; two items with the same id (any case) are refused, naming the ids.
std::vector<ContentItem> ParseContent(const Json& content,
                                      std::string_view field_path = "packageInfo.tocView.content");

// One item of a content list, checked as ParseContent checks each (`item_path` names it, as
// "<field_path>[i]"); for lists read item by item.
ContentItem ParseContentItem(const Json& item, std::string_view item_path);

// The error ParseContent throws for ids listed more than once (`duplicates`, each once).
[[noreturn]] void RefuseDuplicateIds(const std::vector<std::string>& duplicates,
                                     std::string_view field_path);

Json ToJson(const PackageSettings& settings);
Json ToJson(const ContentItem& item);  // {id, name, type?, action, includeDependents}

// The new-object ACL rule in effect: inherit when listed at all (inherit wins over keep).
AclOnNew EffectiveAclOnNew(const PackageSettings& settings);

// Whether any rule — defaultAction, a content action, a folder/object/type action — is
// keep_both; then the import makes no undo package.
bool UsesKeepBoth(const PackageSettings& settings, const std::vector<ContentItem>& content);

std::string_view UpdateSchemaStepName(UpdateSchemaStep step);
std::string_view AclOnReplacingName(AclOnReplacing acl);  // "" for kNone
std::string_view AclOnNewName(AclOnNew acl);
std::string_view TranslationActionName(TranslationAction action);  // canonical: "use_existing"

}  // namespace tessera::model::package
