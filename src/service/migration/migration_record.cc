#include "service/migration/migration_record.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include "core/error.h"
#include "core/ids.h"
#include "core/name_table.h"
#include "core/strings.h"

namespace tessera::service::migration {

namespace {

// Values of a record -----------------------------------------------------------------------------

// Progress is kept as an integer; clients may send 100 or 100.0.
int ProgressAt(const Json& object, std::string_view key, std::string_view path) {
  const Json* value = FindMember(object, key);
  if (value == nullptr) return 0;
  if (!value->is_number() || value->get<double>() < 0 || value->get<double>() > 100) {
    FailAt(MemberPath(path, key), "expected a number from 0 to 100");
  }
  return static_cast<int>(std::lround(value->get<double>()));
}

std::optional<Timestamp> OptionalTimestampAt(const Json& object, std::string_view key,
                                             std::string_view path) {
  std::optional<std::string> text = OptionalString(object, key, path);
  if (!text) return std::nullopt;
  std::optional<Timestamp> at = ParseTimestamp(*text);
  if (!at) {
    FailAt(MemberPath(path, key),
           "'" + *text + "' is not a timestamp; expected yyyy-MM-ddTHH:mm:ss.SSS+0000");
  }
  return at;
}

Timestamp TimestampAt(const Json& object, std::string_view key, std::string_view path) {
  return OptionalTimestampAt(object, key, path).value_or(Timestamp{});
}

// Named enumerations ---------------------------------------------------------------------------

constexpr NameTable<PackageStatus, 4> kPackageStatusNames{
    {{{PackageStatus::kCreating, "creating"},
      {PackageStatus::kCreated, "created"},
      {PackageStatus::kCreateFailed, "create_failed"},
      {PackageStatus::kLocked, "locked"}}},
    "a package status"};

constexpr NameTable<ImportStatus, 7> kImportStatusNames{
    {{{ImportStatus::kPending, "pending"},
      {ImportStatus::kImporting, "importing"},
      {ImportStatus::kImported, "imported"},
      {ImportStatus::kImportFailed, "import_failed"},
      {ImportStatus::kUndoing, "undoing"},
      {ImportStatus::kUndoSuccess, "undo_success"},
      {ImportStatus::kUndoFailed, "undo_failed"}}},
    "an import status"};

constexpr NameTable<RequestStatus, 5> kRequestStatusNames{
    {{{RequestStatus::kPending, "pending"},
      {RequestStatus::kRequested, "requested"},
      {RequestStatus::kApproved, "approved"},
      {RequestStatus::kRejected, "rejected"},
      {RequestStatus::kUnknown, "unknown"}}},
    "a request status"};

constexpr NameTable<ValidationStatus, 3> kValidationStatusNames{
    {{{ValidationStatus::kValidating, "validating"},
      {ValidationStatus::kValidated, "validated"},
      {ValidationStatus::kValidationFailed, "validation_failed"}}},
    "a validation status"};

constexpr NameTable<CertificationStatus, 4> kCertificationStatusNames{
    {{{CertificationStatus::kUncertified, "uncertified"},
      {CertificationStatus::kRequested, "requested"},
      {CertificationStatus::kCertified, "certified"},
      {CertificationStatus::kRejected, "rejected"}}},
    "a certification status"};

constexpr NameTable<ContentLevel, 2> kContentLevelNames{
    {{{ContentLevel::kProjectObject, "project_object"},
      {ContentLevel::kConfigurationObject, "configuration_object"}}},
    "an object level"};

template <typename Enum, size_t N>
std::optional<Enum> OptionalEnumAt(const Json& object, std::string_view key, std::string_view path,
                                   const NameTable<Enum, N>& names) {
  std::optional<std::string> text = OptionalString(object, key, path);
  if (!text) return std::nullopt;
  return names.Parse(*text, MemberPath(path, key));
}

template <typename Enum, size_t N>
Enum EnumAt(const Json& object, std::string_view key, std::string_view path,
            const NameTable<Enum, N>& names, Enum fallback) {
  return OptionalEnumAt(object, key, path, names).value_or(fallback);
}

}  // namespace

// Parts read alone
// ---------------------------------------------------------------------------------

NamedRef NamedRefFromJson(const Json& holder, std::string_view key, std::string_view parent,
                          RefIdForm form) {
  std::string path = MemberPath(parent, key);
  const Json& ref = ObjectOrEmpty(holder, key, parent);
  NamedRef parsed;
  parsed.name = OptionalString(ref, "name", path).value_or("");
  std::optional<std::string> id = OptionalString(ref, "id", path);
  if (!id) {
    if (!parsed.name.empty()) FailMissingAt(MemberPath(path, "id"));
    return {};
  }
  if (id->empty()) FailAt(MemberPath(path, "id"), "must not be empty");
  parsed.id = form == RefIdForm::kObjectId ? RequireObjectId(*id, MemberPath(path, "id")) : *id;
  return parsed;
}

Json TreeViewFromJson(const Json& package, std::string_view parent) {
  const Json* tree = FindMember(package, "treeView");
  if (tree == nullptr) return Json::object();
  if (!tree->is_object() && !tree->is_string()) {
    FailAt(MemberPath(parent, "treeView"), "expected an object or a JSON-encoded string");
  }
  return *tree;
}

Certification CertificationChange::CompletedWith(const CertificationOperator& caller,
                                                 Timestamp now) const {
  return {status, by.value_or(caller), last_updated.value_or(now)};
}

CertificationChange CertificationChangeFromJson(const Json& certification, std::string_view path) {
  CertificationChange parsed;
  std::optional<CertificationStatus> status =
      OptionalEnumAt(certification, "status", path, kCertificationStatusNames);
  if (!status) FailMissingAt(MemberPath(path, "status"));
  parsed.status = *status;
  if (FindMember(certification, "operator") != nullptr) {
    std::string operator_path = MemberPath(path, "operator");
    const Json& by = ObjectOrEmpty(certification, "operator", path);
    parsed.by = CertificationOperator{OptionalString(by, "id", operator_path).value_or(""),
                                      OptionalString(by, "name", operator_path).value_or(""),
                                      OptionalString(by, "fullName", operator_path).value_or("")};
  }
  parsed.last_updated = OptionalTimestampAt(certification, "lastUpdatedDate", path);
  return parsed;
}

PackageContentEntry ContentEntryFromJson(model::package::ContentItem parsed, const Json& item,
                                         std::string_view item_path) {
  PackageContentEntry entry;
  entry.item = std::move(parsed);
  entry.version = OptionalString(item, "version", item_path).value_or("");
  entry.owner_id =
      OptionalString(ObjectOrEmpty(item, "owner", item_path), "id", MemberPath(item_path, "owner"))
          .value_or("");
  entry.date_created = OptionalTimestampAt(item, "dateCreated", item_path);
  entry.date_modified = OptionalTimestampAt(item, "dateModified", item_path);
  entry.explicit_included = OptionalBool(item, "explicitIncluded", item_path).value_or(true);
  entry.level = OptionalEnumAt(item, "level", item_path, kContentLevelNames);
  return entry;
}

namespace {

// Parts: reading ----------------------------------------------------------------------------------

std::optional<StoredFile> ReadStoredFile(const Json& object, std::string_view key,
                                         std::string_view parent) {
  std::string path = MemberPath(parent, key);
  const Json& file = ObjectOrEmpty(object, key, parent);
  if (file.empty()) return std::nullopt;
  return StoredFile{OptionalInt(file, "size", path).value_or(0),
                    RequiredString(file, "path", path)};
}

std::vector<PackageWarning> ReadWarnings(const Json& package, std::string_view parent) {
  std::vector<PackageWarning> warnings;
  const Json* list = FindMember(package, "warnings");
  if (list == nullptr) return warnings;
  std::string path = MemberPath(parent, "warnings");
  ExpectArray(*list, path);
  for (size_t i = 0; i < list->size(); ++i) {
    std::string item_path = ElementPath(path, i);
    const Json& item = ExpectObject((*list)[i], item_path);
    warnings.push_back({OptionalString(item, "message", item_path).value_or(""),
                        OptionalInt(item, "iServerErrorCode", item_path).value_or(0),
                        OptionalInt(item, "bannedObjectCount", item_path).value_or(0)});
  }
  return warnings;
}

std::vector<PackageContentEntry> ReadContent(const Json& content, std::string_view path) {
  std::vector<model::package::ContentItem> items = model::package::ParseContent(content, path);
  std::vector<PackageContentEntry> entries;
  for (size_t i = 0; i < items.size(); ++i) {
    entries.push_back(ContentEntryFromJson(std::move(items[i]), content[i], ElementPath(path, i)));
  }
  return entries;
}

TocView ReadTocView(const Json& package, model::package::PackageKind type,
                    std::string_view parent) {
  std::string path = MemberPath(parent, "tocView");
  const Json& toc = ObjectOrEmpty(package, "tocView", parent);
  TocView parsed;
  const Json* settings = FindMember(toc, "settings");
  parsed.settings = model::package::ToJson(model::package::ParsePackageSettings(
      settings ? *settings : Json(), type, MemberPath(path, "settings")));
  if (const Json* content = FindMember(toc, "content")) {
    parsed.content = ReadContent(*content, MemberPath(path, "content"));
  }
  return parsed;
}

PackageInfo ReadPackageInfo(const Json& record) {
  constexpr std::string_view path = "packageInfo";
  const Json& package = ObjectOrEmpty(record, "packageInfo", "");
  PackageInfo info;
  info.id = RequireObjectId(RequiredString(package, "id", path), "packageInfo.id");
  info.replicated = OptionalBool(package, "replicated", path).value_or(false);
  info.type =
      model::package::ParsePackageKind(RequiredString(package, "type", path), "packageInfo.type");
  if (auto purpose = OptionalString(package, "purpose", path)) {
    info.purpose = model::package::ParsePackagePurpose(*purpose, "packageInfo.purpose");
  }
  info.name = OptionalString(package, "name", path).value_or("");
  info.creator = NamedRefFromJson(package, "creator", path, RefIdForm::kObjectId);
  info.creation_date = TimestampAt(package, "creationDate", path);
  info.last_updated_date = TimestampAt(package, "lastUpdatedDate", path);
  info.environment = NamedRefFromJson(package, "environment", path, RefIdForm::kAnyText);
  info.storage = ReadStoredFile(package, "storage", path);
  info.project = NamedRefFromJson(package, "project", path, RefIdForm::kObjectId);
  info.status = EnumAt(package, "status", path, kPackageStatusNames, PackageStatus::kCreating);
  info.message = OptionalString(package, "message", path).value_or("");
  info.progress = ProgressAt(package, "progress", path);
  info.deleted = OptionalBool(package, "deleted", path).value_or(false);
  info.existing = OptionalBool(package, "existing", path).value_or(false);
  info.warnings = ReadWarnings(package, path);
  if (FindMember(package, "certification") != nullptr) {
    info.certification = CertificationChangeFromJson(ObjectOrEmpty(package, "certification", path),
                                                     "packageInfo.certification")
                             .CompletedWith({}, Timestamp{});
  }
  info.toc_view = ReadTocView(package, info.type, path);
  info.tree_view = TreeViewFromJson(package, path);
  return info;
}

ImportInfo ReadImportInfo(const Json& record) {
  constexpr std::string_view path = "importInfo";
  const Json& imp = ObjectOrEmpty(record, "importInfo", "");
  ImportInfo info;
  info.id = RequireObjectId(RequiredString(imp, "id", path), "importInfo.id");
  info.creator = NamedRefFromJson(imp, "creator", path, RefIdForm::kObjectId);
  info.creation_date = TimestampAt(imp, "creationDate", path);
  info.last_updated_date = TimestampAt(imp, "lastUpdatedDate", path);
  info.environment = NamedRefFromJson(imp, "environment", path, RefIdForm::kAnyText);
  info.status = EnumAt(imp, "status", path, kImportStatusNames, ImportStatus::kPending);
  info.import_request_status =
      EnumAt(imp, "importRequestStatus", path, kRequestStatusNames, RequestStatus::kPending);
  info.undo_request_status =
      EnumAt(imp, "undoRequestStatus", path, kRequestStatusNames, RequestStatus::kPending);
  info.progress = ProgressAt(imp, "progress", path);
  info.message = OptionalString(imp, "message", path).value_or("");
  info.undo_storage = ReadStoredFile(imp, "undoStorage", path);
  info.project = NamedRefFromJson(imp, "project", path, RefIdForm::kObjectId);
  info.deleted = OptionalBool(imp, "deleted", path).value_or(false);
  return info;
}

std::optional<Validation> ReadValidation(const Json& record) {
  if (FindMember(record, "validation") == nullptr) return std::nullopt;
  constexpr std::string_view path = "validation";
  const Json& validation = ObjectOrEmpty(record, "validation", "");
  Validation parsed;
  std::optional<ValidationStatus> status =
      OptionalEnumAt(validation, "status", path, kValidationStatusNames);
  if (!status) FailMissingAt("validation.status");
  parsed.status = *status;
  parsed.progress = ProgressAt(validation, "progress", path);
  parsed.message = OptionalString(validation, "message", path).value_or("");
  parsed.creation_date = TimestampAt(validation, "creationDate", path);
  // mstrio-py reads lastUpdateDate; the documentation spells it lastUpdatedDate. Both are
  // accepted.
  parsed.last_update_date = OptionalTimestampAt(validation, "lastUpdateDate", path)
                                .value_or(TimestampAt(validation, "lastUpdatedDate", path));
  return parsed;
}

// Parts: writing -------------------------------------------------------------------------------

Json RefToJson(const NamedRef& ref) {
  if (ref.empty()) return Json::object();
  return {{"id", ref.id}, {"name", ref.name}};
}

Json FileToJson(const std::optional<StoredFile>& file) {
  if (!file) return Json::object();
  return {{"size", file->size}, {"path", file->path}};
}

Json WarningsToJson(const std::vector<PackageWarning>& warnings) {
  Json out = Json::array();
  for (const PackageWarning& warning : warnings) {
    out.push_back({{"message", warning.message},
                   {"iServerErrorCode", warning.iserver_error_code},
                   {"bannedObjectCount", warning.banned_object_count}});
  }
  return out;
}

Json CertificationToJson(const Certification& certification) {
  return {{"status", CertificationStatusName(certification.status)},
          {"operator",
           {{"id", certification.by.id},
            {"name", certification.by.name},
            {"fullName", certification.by.full_name}}},
          {"lastUpdatedDate", FormatTimestamp(certification.last_updated)}};
}

// Keys in the order the public samples show them.
Json ContentEntryToJson(const PackageContentEntry& entry) {
  Json out = {{"id", entry.item.id}, {"name", entry.item.name}};
  if (!entry.version.empty()) out["version"] = entry.version;
  if (entry.item.type) out["type"] = *entry.item.type;
  if (!entry.owner_id.empty()) out["owner"] = {{"id", entry.owner_id}};
  if (entry.date_created) out["dateCreated"] = FormatTimestamp(*entry.date_created);
  if (entry.date_modified) out["dateModified"] = FormatTimestamp(*entry.date_modified);
  out["action"] = model::package::ConflictRuleName(entry.item.action);
  out["includeDependents"] = entry.item.include_dependents;
  out["explicitIncluded"] = entry.explicit_included;
  if (entry.level) out["level"] = kContentLevelNames.NameOf(*entry.level);
  return out;
}

Json TocViewToJson(const PackageInfo& info) {
  Json toc = {{"settings", info.toc_view.settings}};
  // A project merge copies the whole project: it carries settings only.
  if (info.purpose != model::package::PackagePurpose::kProjectMerge) {
    Json content = Json::array();
    for (const PackageContentEntry& entry : info.toc_view.content) {
      content.push_back(ContentEntryToJson(entry));
    }
    toc["content"] = std::move(content);
  }
  return toc;
}

Json PackageInfoToJson(const PackageInfo& info) {
  Json out;
  out["id"] = info.id;
  out["replicated"] = info.replicated;
  out["type"] = model::package::PackageKindName(info.type);
  out["purpose"] = model::package::PackagePurposeName(info.purpose);
  out["name"] = info.name;
  out["creator"] = RefToJson(info.creator);
  out["creationDate"] = FormatTimestamp(info.creation_date);
  out["lastUpdatedDate"] = FormatTimestamp(info.last_updated_date);
  out["environment"] = RefToJson(info.environment);
  out["storage"] = FileToJson(info.storage);
  out["project"] = RefToJson(info.project);
  out["status"] = PackageStatusName(info.status);
  out["message"] = info.message;
  out["progress"] = info.progress;
  out["deleted"] = info.deleted;
  out["existing"] = info.existing;
  if (!info.warnings.empty()) out["warnings"] = WarningsToJson(info.warnings);
  if (info.certification) out["certification"] = CertificationToJson(*info.certification);
  out["tocView"] = TocViewToJson(info);
  out["treeView"] = info.tree_view;
  return out;
}

Json ImportInfoToJson(const ImportInfo& info) {
  Json out;
  out["id"] = info.id;
  out["creator"] = RefToJson(info.creator);
  out["creationDate"] = FormatTimestamp(info.creation_date);
  out["lastUpdatedDate"] = FormatTimestamp(info.last_updated_date);
  out["environment"] = RefToJson(info.environment);
  out["status"] = ImportStatusName(info.status);
  out["importRequestStatus"] = RequestStatusName(info.import_request_status);
  out["undoRequestStatus"] = RequestStatusName(info.undo_request_status);
  out["progress"] = info.progress;
  out["message"] = info.message;
  out["undoStorage"] = FileToJson(info.undo_storage);
  out["project"] = RefToJson(info.project);
  out["deleted"] = info.deleted;
  return out;
}

Json ValidationToJson(const Validation& validation) {
  Json out;
  out["status"] = ValidationStatusName(validation.status);
  out["progress"] = validation.progress;
  out["message"] = validation.message;
  out["creationDate"] = FormatTimestamp(validation.creation_date);
  out["lastUpdateDate"] = FormatTimestamp(validation.last_update_date);
  return out;
}

}  // namespace

Json ToJson(const Validation& validation) { return ValidationToJson(validation); }

std::optional<Validation> ValidationFromJson(const Json& holder) { return ReadValidation(holder); }

// Identity ---------------------------------------------------------------------------------------

MigrationId ParseMigrationId(std::string_view text) {
  size_t colon = text.find(':');
  std::optional<std::string> package_id, import_id;
  if (colon != std::string_view::npos) {
    package_id = CanonicalObjectId(text.substr(0, colon));
    import_id = CanonicalObjectId(text.substr(colon + 1));
  }
  if (!package_id || !import_id) {
    throw Error(ErrorCode::kNotFound,
                "Migration '" + std::string(text) +
                    "' not found: a migration id is <package id>:<import id>, two ids of 32 "
                    "hexadecimal characters");
  }
  return {*package_id, *import_id};
}

std::string FormatMigrationId(const MigrationId& id) { return id.package_id + ":" + id.import_id; }

// Value sets -------------------------------------------------------------------------------------

std::string_view PackageStatusName(PackageStatus status) {
  return kPackageStatusNames.NameOf(status);
}
std::string_view ImportStatusName(ImportStatus status) { return kImportStatusNames.NameOf(status); }
std::string_view RequestStatusName(RequestStatus status) {
  return kRequestStatusNames.NameOf(status);
}
RequestStatus ParseRequestStatus(std::string_view value, std::string_view field_path) {
  return kRequestStatusNames.Parse(value, field_path);
}
std::string_view ValidationStatusName(ValidationStatus status) {
  return kValidationStatusNames.NameOf(status);
}
ValidationStatus ParseValidationStatus(std::string_view value, std::string_view field_path) {
  return kValidationStatusNames.Parse(value, field_path);
}
std::string_view CertificationStatusName(CertificationStatus status) {
  return kCertificationStatusNames.NameOf(status);
}

bool PackageContentEntry::operator==(const PackageContentEntry& other) const {
  return item.id == other.item.id && item.name == other.item.name && item.type == other.item.type &&
         item.action == other.item.action &&
         item.include_dependents == other.item.include_dependents && version == other.version &&
         owner_id == other.owner_id && date_created == other.date_created &&
         date_modified == other.date_modified && explicit_included == other.explicit_included &&
         level == other.level;
}

MigrationId IdOf(const MigrationRecord& record) {
  return {record.package_info.id, record.import_info.id};
}

void RequireMigrationId(const MigrationRecord& record, const MigrationId& id) {
  if (record.package_info.id == id.package_id && record.import_info.id == id.import_id) return;
  FailAt("packageInfo.id", "'" + record.package_info.id + "' with importInfo.id '" +
                               record.import_info.id + "' is not the migration " +
                               FormatMigrationId(id));
}

std::string_view RecordVersion(const MigrationRecord& record) {
  return record.package_info.purpose == model::package::PackagePurpose::kProjectMerge ? "2" : "1";
}

// JSON forms -------------------------------------------------------------------------------------

Json ToJson(const MigrationRecord& record) {
  Json out;
  out["id"] = FormatMigrationId(IdOf(record));
  out["packageInfo"] = PackageInfoToJson(record.package_info);
  out["importInfo"] = ImportInfoToJson(record.import_info);
  if (record.validation) out["validation"] = ValidationToJson(*record.validation);
  out["version"] = RecordVersion(record);
  return out;
}

MigrationRecord RecordFromJson(const Json& json) {
  if (!json.is_object()) FailAt("body", "expected a JSON object");
  MigrationRecord record;
  record.package_info = ReadPackageInfo(json);
  record.import_info = ReadImportInfo(json);
  record.validation = ReadValidation(json);
  return record;  // `version` is derived from the purpose; any value is accepted
}

ShowContent ParseShowContent(std::string_view value) {
  if (value.empty() || EqualsIgnoreCase(value, "default")) return ShowContent::kDefault;
  if (EqualsIgnoreCase(value, "tocview")) return ShowContent::kTocView;
  if (EqualsIgnoreCase(value, "treeview")) return ShowContent::kTreeView;
  if (EqualsIgnoreCase(value, "all")) return ShowContent::kAll;
  FailAt("showContent", "'" + std::string(value) +
                            "' is not accepted; expected one of default, tocview, treeview, all");
}

Json ShownContentItem(const Json& stored_item) {
  constexpr std::string_view path = "tocView.content[]";
  return ContentEntryToJson(
      ContentEntryFromJson(model::package::ParseContentItem(stored_item, path), stored_item, path));
}

Json ProjectForShowContent(const Json& full, ShowContent show) {
  Json out = full;
  Json& package = out["packageInfo"];
  if (show != ShowContent::kTocView && show != ShowContent::kAll) package.erase("tocView");
  if (show != ShowContent::kTreeView && show != ShowContent::kAll) package.erase("treeView");
  return out;
}

Json ShortForm(const MigrationRecord& record, bool with_validation) {
  const PackageInfo& package = record.package_info;
  const ImportInfo& imp = record.import_info;
  Json out;
  out["id"] = FormatMigrationId(IdOf(record));
  out["packageInfo"] = {{"id", package.id},
                        {"status", PackageStatusName(package.status)},
                        {"progress", package.progress}};
  out["importInfo"] = {{"id", imp.id},
                       {"status", ImportStatusName(imp.status)},
                       {"importRequestStatus", RequestStatusName(imp.import_request_status)},
                       {"undoRequestStatus", RequestStatusName(imp.undo_request_status)},
                       {"progress", imp.progress}};
  if (with_validation && record.validation) {
    out["validation"] = {{"status", ValidationStatusName(record.validation->status)},
                         {"progress", record.validation->progress}};
  }
  return out;
}

}  // namespace tessera::service::migration
