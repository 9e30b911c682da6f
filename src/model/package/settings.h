// model/package/settings.h
//
// The typed `tocView.settings` (spec 04 §1.5) and `tocView.content` items (§1.6) of a package.
// Parsing either yields a value in normalised form or throws Error naming the field path
// ("packageInfo.tocView.settings.folderActions[2].action: 'merge' is not a conflict rule;
// expected one of ..."): kInvalidInput for a wrong value or type, kMissingField for an absent
// required field (core/json.h does the same).
//
// Normalised form: every absent or null key takes its §1.5 default (a null
// aclOnReplacingObjects means "none", which is also the default for project_security); ids are
// upper case; lists carry no duplicates (the last entry for an id or type wins, §4.3); updateSchema
// steps are in the order §4.6 runs them. ToJson() emits that form — always arrays, canonical names
// — so two settings compare equal exactly when their ToJson() do (the import PUT compares them with
// the manifest).
//
// Tolerances (mstrio-py): a bare string for aclOnNewObjects and for updateSchema; `subType` for
// `subtype`; an extra `objectType` in objectActions; `existing` for translationAction
// use_existing; null elements inside aclOnNewObjects/updateSchema (mstrio-py wraps a None);
// unknown keys. Refused: updateSchema steps or an aclOnReplacingObjects value in a package whose
// kind does not support them (§1.5: updateSchema is for project packages only,
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

// Declared in the order §4.6 runs them.
enum class UpdateSchemaStep {
  kRecalTableKeysFactEntryLevel,  // "recal_table_keys_fact_entry_level"
  kRecalTableLogicalSize,         // "recal_table_logical_size"
  kUpdateSchemaLogicalInfo,       // "update_schema_logical_info"
};

// spec 04 §4.5. kNone is a null value (always for project_security, which has no such option):
// an overwritten object then keeps the target's ACL, as with use_existing.
enum class AclOnReplacing {
  kNone,
  kUseExisting,  // keep the target's ACL
  kReplace,      // take the source ACL
  kKeepBoth,     // union of both, a deny winning
};

enum class AclOnNew {  // spec 04 §4.5
  kKeepAclAsSourceObject,
  kInheritAclAsDestFolder,
};

enum class TranslationAction {  // spec 04 §4.7
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
  std::vector<UpdateSchemaStep> update_schema;  // §4.6 order, no duplicates
  AclOnReplacing acl_on_replacing = AclOnReplacing::kUseExisting;
  std::vector<AclOnNew> acl_on_new = {AclOnNew::kKeepAclAsSourceObject};  // never empty
  bool validate_dependencies = true;
  // Project merge only (§4.3); other packages carry them but nothing reads them.
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

// The new-object ACL rule in effect: inherit when listed at all (§4.5: inherit wins over keep).
AclOnNew EffectiveAclOnNew(const PackageSettings& settings);

// Whether any rule — defaultAction, a content action, a folder/object/type action — is
// keep_both; then the import makes no undo package (spec 04 §5.1).
bool UsesKeepBoth(const PackageSettings& settings, const std::vector<ContentItem>& content);

std::string_view UpdateSchemaStepName(UpdateSchemaStep step);
std::string_view AclOnReplacingName(AclOnReplacing acl);  // "" for kNone
std::string_view AclOnNewName(AclOnNew acl);
std::string_view TranslationActionName(TranslationAction action);  // canonical: "use_existing"

}  // namespace tessera::model::package
