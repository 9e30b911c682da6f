#include "model/package/entry.h"

#include <fmt/format.h>

#include "core/error.h"
#include "core/time.h"

namespace tessera::model::package {
namespace {

constexpr char kProjectLevel[] = "project_object";
constexpr char kConfigurationLevel[] = "configuration_object";

[[noreturn]] void Malformed(std::string_view key, std::string_view what) {
  throw Error(ErrorCode::kInvalidInput, fmt::format("package entry: '{}' {}", key, what));
}

const Json& Member(const Json& entry, std::string_view key) {
  auto it = entry.find(key);
  if (it == entry.end()) Malformed(key, "is missing");
  return *it;
}

std::string Text(const Json& entry, std::string_view key) {
  const Json& value = Member(entry, key);
  if (!value.is_string()) Malformed(key, "must be a string");
  return value.get<std::string>();
}

int64_t Integer(const Json& entry, std::string_view key) {
  const Json& value = Member(entry, key);
  if (!value.is_number_integer()) Malformed(key, "must be an integer");
  return value.get<int64_t>();
}

bool Flag(const Json& entry, std::string_view key) {
  const Json& value = Member(entry, key);
  if (!value.is_boolean()) Malformed(key, "must be true or false");
  return value.get<bool>();
}

Timestamp Date(const Json& entry, std::string_view key) {
  auto parsed = ParseTimestamp(Text(entry, key));
  if (!parsed) Malformed(key, "must be a timestamp");
  return *parsed;
}

std::string_view UndoActionName(UndoAction action) {
  return action == UndoAction::kDelete ? "delete" : "force_replace";
}

UndoAction ParseUndoAction(const Json& entry) {
  auto it = entry.find("undoAction");
  if (it == entry.end()) return UndoAction::kNone;
  if (*it == "force_replace") return UndoAction::kRestore;
  if (*it == "delete") return UndoAction::kDelete;
  Malformed("undoAction", "must be force_replace or delete");
}

std::vector<PackageAncestor> ParseAncestors(const Json& entry) {
  const Json& list = Member(entry, "ancestors");
  if (!list.is_array()) Malformed("ancestors", "must be an array");
  std::vector<PackageAncestor> ancestors;
  for (const Json& item : list) {
    if (!item.is_object()) Malformed("ancestors", "must hold objects");
    ancestors.push_back({Text(item, "id"), Text(item, "name")});
  }
  return ancestors;
}

std::vector<std::string> ParseUses(const Json& entry) {
  const Json& list = Member(entry, "uses");
  if (!list.is_array()) Malformed("uses", "must be an array");
  std::vector<std::string> uses;
  for (const Json& id : list) {
    if (!id.is_string()) Malformed("uses", "must hold ids");
    uses.push_back(id.get<std::string>());
  }
  return uses;
}

ObjectRecord ParseRecord(const Json& entry, const std::string& project_id) {
  ObjectRecord record;
  std::string level = Text(entry, "level");
  if (level != kProjectLevel && level != kConfigurationLevel) {
    Malformed("level", "must be project_object or configuration_object");
  }
  record.project_id = level == kProjectLevel ? project_id : "";
  record.id = Text(entry, "id");
  record.type = static_cast<int>(Integer(entry, "type"));
  record.subtype = static_cast<int>(Integer(entry, "subtype"));
  record.ext_type = static_cast<int>(Integer(entry, "extType"));
  record.name = Text(entry, "name");
  record.description = Text(entry, "description");
  record.abbreviation = Text(entry, "abbreviation");
  record.version = Text(entry, "version");
  record.created = Date(entry, "dateCreated");
  record.modified = Date(entry, "dateModified");
  const Json& owner = Member(entry, "owner");
  if (!owner.is_object()) Malformed("owner", "must be an object");
  record.owner_id = Text(owner, "id");
  const Json& acl = Member(entry, "acl");
  if (!acl.is_array()) Malformed("acl", "must be an array");
  for (const Json& item : acl) {
    if (!item.is_object()) Malformed("acl", "must hold objects");
  }
  record.acl = AclFromJson(acl);
  record.folder_id = Text(entry, "parentId");
  record.hidden = Flag(entry, "hidden");
  record.certified = Flag(entry, "certified");
  record.definition = Member(entry, "definition");
  return record;
}

}  // namespace

Json EntryToJson(const PackageObject& object) {
  const ObjectRecord& record = object.record;
  Json ancestors = Json::array();
  for (const auto& ancestor : object.ancestors) {
    ancestors.push_back({{"id", ancestor.id}, {"name", ancestor.name}});
  }
  Json entry = {{"id", record.id},
                {"type", record.type},
                {"subtype", record.subtype},
                {"extType", record.ext_type},
                {"name", record.name},
                {"description", record.description},
                {"abbreviation", record.abbreviation},
                {"version", record.version},
                {"dateCreated", FormatTimestamp(record.created)},
                {"dateModified", FormatTimestamp(record.modified)},
                {"owner", {{"id", record.owner_id}}},
                {"acl", AclToJson(record.acl)},
                {"parentId", record.folder_id},
                {"hidden", record.hidden},
                {"certified", record.certified},
                {"level", record.project_id.empty() ? kConfigurationLevel : kProjectLevel},
                {"ancestors", std::move(ancestors)},
                {"uses", object.uses},
                {"explicitIncluded", object.explicit_included},
                {"implicitFolder", object.implicit_folder}};
  if (object.undo_action != UndoAction::kNone) {
    entry["undoAction"] = UndoActionName(object.undo_action);
  }
  entry["definition"] = record.definition;
  return entry;
}

PackageObject EntryFromJson(const Json& entry, const std::string& project_id) {
  if (!entry.is_object()) Malformed("entry", "must be an object");
  PackageObject object;
  object.record = ParseRecord(entry, project_id);
  object.ancestors = ParseAncestors(entry);
  object.uses = ParseUses(entry);
  object.explicit_included = Flag(entry, "explicitIncluded");
  object.implicit_folder = Flag(entry, "implicitFolder");
  object.undo_action = ParseUndoAction(entry);
  return object;
}

std::vector<std::string> AncestorIds(const PackageObject& object) {
  std::vector<std::string> ids;
  ids.reserve(object.ancestors.size());
  for (const auto& ancestor : object.ancestors) ids.push_back(ancestor.id);
  return ids;
}

}  // namespace tessera::model::package
