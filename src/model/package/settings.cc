#include "model/package/settings.h"

#include <algorithm>
#include <array>
#include <string>
#include <unordered_map>
#include <utility>

#include "core/error.h"
#include "core/ids.h"
#include "core/name_table.h"
#include "core/strings.h"
#include "model/object_types.h"

namespace tessera::model::package {

namespace {

// Values ------------------------------------------------------------------------------------

std::string RequireId(const Json& value, std::string_view path) {
  return RequireObjectId(ExpectString(value, path), path);
}

ConflictRule RequireRule(const Json& value, std::string_view path) {
  if (!value.is_string()) {
    // ParseConflictRule lists the accepted names; reuse its message for a non-string too.
    ParseConflictRule(value.dump(), path);
  }
  return ParseConflictRule(value.get_ref<const std::string&>(), path);
}

// Named enumerations -------------------------------------------------------------------------

constexpr NameTable<UpdateSchemaStep, 3> kUpdateSchemaNames{
    {{{UpdateSchemaStep::kRecalTableKeysFactEntryLevel, "recal_table_keys_fact_entry_level"},
      {UpdateSchemaStep::kRecalTableLogicalSize, "recal_table_logical_size"},
      {UpdateSchemaStep::kUpdateSchemaLogicalInfo, "update_schema_logical_info"}}},
    "an update schema option"};

constexpr NameTable<AclOnReplacing, 3> kAclOnReplacingNames{
    {{{AclOnReplacing::kUseExisting, "use_existing"},
      {AclOnReplacing::kReplace, "replace"},
      {AclOnReplacing::kKeepBoth, "keep_both"}}},
    "an ACL option for replaced objects"};

constexpr NameTable<AclOnNew, 2> kAclOnNewNames{
    {{{AclOnNew::kKeepAclAsSourceObject, "keep_acl_as_source_object"},
      {AclOnNew::kInheritAclAsDestFolder, "inherit_acl_as_dest_folder"}}},
    "an ACL option for new objects"};

// "existing" (the docs sample) is accepted as use_existing; the canonical name comes first.
constexpr NameTable<TranslationAction, 5> kTranslationNames{
    {{{TranslationAction::kNotMerged, "not_merged"},
      {TranslationAction::kUseExisting, "use_existing"},
      {TranslationAction::kReplace, "replace"},
      {TranslationAction::kForceReplace, "force_replace"},
      {TranslationAction::kUseExisting, "existing"}}},
    "a translation action"};

// A list that may also come as one bare value; null elements are skipped (mstrio-py sends
// [None] when no value was chosen). Result: unique values in enumeration order.
template <typename Enum, size_t N>
std::vector<Enum> ParseEnumSet(const Json& value, std::string_view path,
                               const NameTable<Enum, N>& names) {
  std::vector<Enum> found;
  auto add = [&](const Json& item, std::string_view item_path) {
    if (item.is_null()) return;
    Enum parsed = names.ParseValue(item, item_path);
    if (std::find(found.begin(), found.end(), parsed) == found.end()) found.push_back(parsed);
  };
  if (value.is_array()) {
    for (size_t i = 0; i < value.size(); ++i) add(value[i], ElementPath(path, i));
  } else if (value.is_string()) {
    add(value, path);
  } else {
    FailAt(path, "expected an array of strings; accepted values are " + names.Accepted());
  }
  std::sort(found.begin(), found.end());
  return found;
}

// Merge lists ---------------------------------------------------------------------------------

// Keeps the last entry for each key; the survivor takes the position of its last occurrence.
template <typename Entry, typename SameKey>
void AppendReplacing(std::vector<Entry>& list, Entry entry, SameKey same_key) {
  std::erase_if(list, [&](const Entry& existing) { return same_key(existing, entry); });
  list.push_back(std::move(entry));
}

std::vector<IdAction> ParseIdActions(const Json& settings, std::string_view key,
                                     std::string_view settings_path) {
  std::vector<IdAction> actions;
  const Json* list = FindMember(settings, key);
  if (list == nullptr) return actions;
  std::string path = MemberPath(settings_path, key);
  ExpectArray(*list, path, "{id, action}");
  for (size_t i = 0; i < list->size(); ++i) {
    std::string item_path = ElementPath(path, i);
    const Json& item = ExpectObject((*list)[i], item_path);
    const Json* id = FindMember(item, "id");
    const Json* action = FindMember(item, "action");
    if (id == nullptr) FailMissingAt(MemberPath(item_path, "id"));
    if (action == nullptr) FailMissingAt(MemberPath(item_path, "action"));
    IdAction parsed{RequireId(*id, MemberPath(item_path, "id")),
                    RequireRule(*action, MemberPath(item_path, "action"))};
    // objectActions items may carry mstrio-py's `objectType`; it is not needed and ignored.
    AppendReplacing(actions, std::move(parsed),
                    [](const IdAction& a, const IdAction& b) { return a.id == b.id; });
  }
  return actions;
}

std::optional<int> ParseSubtype(const Json& item, int type, std::string_view item_path) {
  const Json* subtype = FindMember(item, "subtype");
  const Json* sub_type = FindMember(item, "subType");  // mstrio-py's dataclass spelling
  if (subtype != nullptr && sub_type != nullptr && *subtype != *sub_type) {
    FailAt(MemberPath(item_path, "subType"), "disagrees with subtype; send one of them");
  }
  if (subtype == nullptr) subtype = sub_type;
  if (subtype == nullptr) return std::nullopt;
  std::string path = MemberPath(item_path, subtype == sub_type ? "subType" : "subtype");
  int value = static_cast<int>(ExpectInt(*subtype, path));
  if (SubtypeToType(value) != type) {
    FailAt(path, std::to_string(value) + " is not a subtype of type " + std::to_string(type) +
                     "; expected a value from " + std::to_string(type * 256) + " to " +
                     std::to_string(type * 256 + 255));
  }
  return value;
}

std::vector<TypeAction> ParseTypeActions(const Json& settings, std::string_view settings_path) {
  std::vector<TypeAction> actions;
  const Json* list = FindMember(settings, "objectTypeActions");
  if (list == nullptr) return actions;
  std::string path = MemberPath(settings_path, "objectTypeActions");
  ExpectArray(*list, path, "{type, subtype?, action}");
  for (size_t i = 0; i < list->size(); ++i) {
    std::string item_path = ElementPath(path, i);
    const Json& item = ExpectObject((*list)[i], item_path);
    const Json* type = FindMember(item, "type");
    const Json* action = FindMember(item, "action");
    if (type == nullptr) FailMissingAt(MemberPath(item_path, "type"));
    if (action == nullptr) FailMissingAt(MemberPath(item_path, "action"));
    TypeAction parsed;
    parsed.type = static_cast<int>(ExpectInt(*type, MemberPath(item_path, "type")));
    if (parsed.type <= 0 || parsed.type >= 256) {
      FailAt(MemberPath(item_path, "type"), std::to_string(parsed.type) +
                                                " is not an object type; expected a type code from "
                                                "1 to 255 (put a subtype in subtype)");
    }
    parsed.subtype = ParseSubtype(item, parsed.type, item_path);
    parsed.action = RequireRule(*action, MemberPath(item_path, "action"));
    AppendReplacing(actions, std::move(parsed), [](const TypeAction& a, const TypeAction& b) {
      return a.type == b.type && a.subtype == b.subtype;
    });
  }
  return actions;
}

// Scalar settings -----------------------------------------------------------------------------

std::vector<UpdateSchemaStep> ParseUpdateSchema(const Json& settings, PackageKind kind,
                                                std::string_view settings_path) {
  const Json* value = FindMember(settings, "updateSchema");
  if (value == nullptr) return {};
  std::string path = MemberPath(settings_path, "updateSchema");
  std::vector<UpdateSchemaStep> steps = ParseEnumSet(*value, path, kUpdateSchemaNames);
  if (!steps.empty() && kind != PackageKind::kProject) {
    FailAt(path, "a " + std::string(PackageKindName(kind)) +
                     " package updates no schema; expected null or [] (updateSchema is for "
                     "project packages only)");
  }
  return steps;
}

AclOnReplacing ParseAclOnReplacing(const Json& settings, PackageKind kind,
                                   std::string_view settings_path) {
  auto it = settings.find("aclOnReplacingObjects");
  if (kind == PackageKind::kProjectSecurity) {
    if (it != settings.end() && !it->is_null()) {
      FailAt(MemberPath(settings_path, "aclOnReplacingObjects"),
             "not supported for project_security packages; expected null");
    }
    return AclOnReplacing::kNone;
  }
  if (it == settings.end()) return AclOnReplacing::kUseExisting;
  if (it->is_null()) return AclOnReplacing::kNone;
  return kAclOnReplacingNames.ParseValue(*it, MemberPath(settings_path, "aclOnReplacingObjects"));
}

std::vector<AclOnNew> ParseAclOnNew(const Json& settings, std::string_view settings_path) {
  const Json* value = FindMember(settings, "aclOnNewObjects");
  std::vector<AclOnNew> acl;
  if (value != nullptr) {
    acl = ParseEnumSet(*value, MemberPath(settings_path, "aclOnNewObjects"), kAclOnNewNames);
  }
  if (acl.empty()) acl.push_back(AclOnNew::kKeepAclAsSourceObject);  // the default
  return acl;
}

bool ParseValidateDependencies(const Json& settings, std::string_view settings_path) {
  return OptionalBool(settings, "validateDependencies", settings_path).value_or(true);
}

// Content -------------------------------------------------------------------------------------

void RefuseDuplicateItems(const std::vector<ContentItem>& items, std::string_view path) {
  std::unordered_map<std::string_view, int> listed;
  std::vector<std::string> duplicates;
  for (const ContentItem& item : items) {
    if (++listed[item.id] == 2) duplicates.push_back(item.id);
  }
  if (!duplicates.empty()) RefuseDuplicateIds(duplicates, path);
}

Json IdActionsToJson(const std::vector<IdAction>& actions) {
  Json out = Json::array();
  for (const IdAction& entry : actions) {
    out.push_back({{"id", entry.id}, {"action", ConflictRuleName(entry.action)}});
  }
  return out;
}

}  // namespace

PackageSettings ParsePackageSettings(const Json& settings, PackageKind kind,
                                     std::string_view field_path) {
  PackageSettings parsed;
  if (kind == PackageKind::kProjectSecurity) parsed.acl_on_replacing = AclOnReplacing::kNone;
  if (settings.is_null()) return parsed;
  ExpectObject(settings, field_path);
  if (const Json* action = FindMember(settings, "defaultAction")) {
    parsed.default_action = RequireRule(*action, MemberPath(field_path, "defaultAction"));
  }
  parsed.update_schema = ParseUpdateSchema(settings, kind, field_path);
  parsed.acl_on_replacing = ParseAclOnReplacing(settings, kind, field_path);
  parsed.acl_on_new = ParseAclOnNew(settings, field_path);
  parsed.validate_dependencies = ParseValidateDependencies(settings, field_path);
  parsed.folder_actions = ParseIdActions(settings, "folderActions", field_path);
  parsed.object_actions = ParseIdActions(settings, "objectActions", field_path);
  parsed.object_type_actions = ParseTypeActions(settings, field_path);
  if (const Json* translation = FindMember(settings, "translationAction")) {
    parsed.translation_action =
        kTranslationNames.ParseValue(*translation, MemberPath(field_path, "translationAction"));
  }
  return parsed;
}

std::vector<ContentItem> ParseContent(const Json& content, std::string_view field_path) {
  std::vector<ContentItem> items;
  if (content.is_null()) return items;
  ExpectArray(content, field_path, "content items {id, action, ...}");
  for (size_t i = 0; i < content.size(); ++i) {
    items.push_back(ParseContentItem(content[i], ElementPath(field_path, i)));
  }
  RefuseDuplicateItems(items, field_path);
  return items;
}

ContentItem ParseContentItem(const Json& value, std::string_view item_path) {
  const Json& item = ExpectObject(value, item_path);
  ContentItem parsed;
  const Json* id = FindMember(item, "id");
  if (id == nullptr) FailMissingAt(MemberPath(item_path, "id"));
  parsed.id = RequireId(*id, MemberPath(item_path, "id"));
  if (const Json* name = FindMember(item, "name")) {
    parsed.name = ExpectString(*name, MemberPath(item_path, "name"));
  }
  if (const Json* type = FindMember(item, "type")) {
    parsed.type = static_cast<int>(ExpectInt(*type, MemberPath(item_path, "type")));
  }
  const Json* action = FindMember(item, "action");
  if (action == nullptr) FailMissingAt(MemberPath(item_path, "action"));
  parsed.action = RequireRule(*action, MemberPath(item_path, "action"));
  parsed.include_dependents = OptionalBool(item, "includeDependents", item_path).value_or(false);
  return parsed;
}

void RefuseDuplicateIds(const std::vector<std::string>& duplicates, std::string_view field_path) {
  FailAt(field_path,
         "an object may be listed once; listed more than once: " + JoinStrings(duplicates, ", "));
}

Json ToJson(const PackageSettings& settings) {
  Json update_schema = Json::array();
  for (UpdateSchemaStep step : settings.update_schema) {
    update_schema.push_back(UpdateSchemaStepName(step));
  }
  Json acl_on_new = Json::array();
  for (AclOnNew acl : settings.acl_on_new) acl_on_new.push_back(AclOnNewName(acl));
  Json type_actions = Json::array();
  for (const TypeAction& entry : settings.object_type_actions) {
    Json item = {{"type", entry.type}};
    if (entry.subtype) item["subtype"] = *entry.subtype;
    item["action"] = ConflictRuleName(entry.action);
    type_actions.push_back(std::move(item));
  }
  Json out;
  out["defaultAction"] = ConflictRuleName(settings.default_action);
  out["updateSchema"] = std::move(update_schema);
  out["aclOnReplacingObjects"] = settings.acl_on_replacing == AclOnReplacing::kNone
                                     ? Json(nullptr)
                                     : Json(AclOnReplacingName(settings.acl_on_replacing));
  out["aclOnNewObjects"] = std::move(acl_on_new);
  out["validateDependencies"] = settings.validate_dependencies;
  out["folderActions"] = IdActionsToJson(settings.folder_actions);
  out["objectActions"] = IdActionsToJson(settings.object_actions);
  out["objectTypeActions"] = std::move(type_actions);
  out["translationAction"] = TranslationActionName(settings.translation_action);
  return out;
}

Json ToJson(const ContentItem& item) {
  Json out = {{"id", item.id}, {"name", item.name}};
  if (item.type) out["type"] = *item.type;
  out["action"] = ConflictRuleName(item.action);
  out["includeDependents"] = item.include_dependents;
  return out;
}

AclOnNew EffectiveAclOnNew(const PackageSettings& settings) {
  bool inherits = std::find(settings.acl_on_new.begin(), settings.acl_on_new.end(),
                            AclOnNew::kInheritAclAsDestFolder) != settings.acl_on_new.end();
  return inherits ? AclOnNew::kInheritAclAsDestFolder : AclOnNew::kKeepAclAsSourceObject;
}

bool UsesKeepBoth(const PackageSettings& settings, const std::vector<ContentItem>& content) {
  auto is_keep_both = [](const auto& entry) { return entry.action == ConflictRule::kKeepBoth; };
  return settings.default_action == ConflictRule::kKeepBoth ||
         std::any_of(content.begin(), content.end(), is_keep_both) ||
         std::any_of(settings.folder_actions.begin(), settings.folder_actions.end(),
                     is_keep_both) ||
         std::any_of(settings.object_actions.begin(), settings.object_actions.end(),
                     is_keep_both) ||
         std::any_of(settings.object_type_actions.begin(), settings.object_type_actions.end(),
                     is_keep_both);
}

std::string_view UpdateSchemaStepName(UpdateSchemaStep step) {
  return kUpdateSchemaNames.NameOf(step);
}

std::string_view AclOnReplacingName(AclOnReplacing acl) { return kAclOnReplacingNames.NameOf(acl); }

std::string_view AclOnNewName(AclOnNew acl) { return kAclOnNewNames.NameOf(acl); }

std::string_view TranslationActionName(TranslationAction action) {
  return kTranslationNames.NameOf(action);
}

}  // namespace tessera::model::package
