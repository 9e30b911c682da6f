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

// Field paths and failures ---------------------------------------------------------------------

// `object[key]` as an object; an empty object when absent or null.
const Json& ObjectAt(const Json& object, std::string_view key, std::string_view path) {
  static const Json kEmpty = Json::object();
  const Json* value = FindMember(object, key);
  if (value == nullptr) return kEmpty;
  if (!value->is_object()) FailAt(MemberPath(path, key), "expected an object");
  return *value;
}

std::string StringAt(const Json& object, std::string_view key, std::string_view path) {
  return OptionalString(object, key, path).value_or("");
}

bool BoolAt(const Json& object, std::string_view key, std::string_view path, bool fallback) {
  return OptionalBool(object, key, path).value_or(fallback);
}

int64_t IntAt(const Json& object, std::string_view key, std::string_view path) {
  return OptionalInt(object, key, path).value_or(0);
}

// §0: samples show 100 and 100.0; Tessera keeps integers.
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

// Parts: reading -------------------------------------------------------------------------------

enum class IdForm { kObjectId, kAnyText };

// `{id, name}`; `{}` (or absent) is the empty ref. A ref with a name needs an id.
NamedRef ReadNamedRef(const Json& object, std::string_view key, std::string_view parent,
                      IdForm form) {
  std::string path = MemberPath(parent, key);
  const Json& ref = ObjectAt(object, key, parent);
  NamedRef parsed;
  parsed.name = StringAt(ref, "name", path);
  std::optional<std::string> id = OptionalString(ref, "id", path);
  if (!id) {
    if (!parsed.name.empty()) FailMissingAt(MemberPath(path, "id"));
    return {};
  }
  if (id->empty()) FailAt(MemberPath(path, "id"), "must not be empty");
  parsed.id = form == IdForm::kObjectId ? RequireObjectId(*id, MemberPath(path, "id")) : *id;
  return parsed;
}

std::optional<StoredFile> ReadStoredFile(const Json& object, std::string_view key,
                                         std::string_view parent) {
  std::string path = MemberPath(parent, key);
  const Json& file = ObjectAt(object, key, parent);
  if (file.empty()) return std::nullopt;
  return StoredFile{IntAt(file, "size", path), RequiredString(file, "path", path)};
}

std::vector<PackageWarning> ReadWarnings(const Json& package, std::string_view parent) {
  std::vector<PackageWarning> warnings;
  const Json* list = FindMember(package, "warnings");
  if (list == nullptr) return warnings;
  std::string path = MemberPath(parent, "warnings");
  if (!list->is_array()) FailAt(path, "expected an array");
  for (size_t i = 0; i < list->size(); ++i) {
    std::string item_path = ElementPath(path, i);
    const Json& item = (*list)[i];
    if (!item.is_object()) FailAt(item_path, "expected an object");
    warnings.push_back({StringAt(item, "message", item_path),
                        IntAt(item, "iServerErrorCode", item_path),
                        IntAt(item, "bannedObjectCount", item_path)});
  }
  return warnings;
}

Certification ReadCertification(const Json& certification, std::string_view path,
                                const CertificationOperator& default_operator,
                                Timestamp default_date) {
  Certification parsed;
  std::optional<CertificationStatus> status =
      OptionalEnumAt(certification, "status", path, kCertificationStatusNames);
  if (!status) FailMissingAt(MemberPath(path, "status"));
  parsed.status = *status;
  parsed.by = default_operator;
  if (FindMember(certification, "operator") != nullptr) {
    std::string operator_path = MemberPath(path, "operator");
    const Json& by = ObjectAt(certification, "operator", path);
    parsed.by = {StringAt(by, "id", operator_path), StringAt(by, "name", operator_path),
                 StringAt(by, "fullName", operator_path)};
  }
  parsed.last_updated =
      OptionalTimestampAt(certification, "lastUpdatedDate", path).value_or(default_date);
  return parsed;
}

// One stored tocView.content item: the request item plus what creation learnt (§1.6).
PackageContentEntry ReadContentEntry(model::package::ContentItem parsed, const Json& item,
                                     std::string_view item_path) {
  PackageContentEntry entry;
  entry.item = std::move(parsed);
  entry.version = StringAt(item, "version", item_path);
  entry.owner_id =
      StringAt(ObjectAt(item, "owner", item_path), "id", MemberPath(item_path, "owner"));
  entry.date_created = OptionalTimestampAt(item, "dateCreated", item_path);
  entry.date_modified = OptionalTimestampAt(item, "dateModified", item_path);
  entry.explicit_included = BoolAt(item, "explicitIncluded", item_path, true);
  entry.level = OptionalEnumAt(item, "level", item_path, kContentLevelNames);
  return entry;
}

std::vector<PackageContentEntry> ReadContent(const Json& content, std::string_view path) {
  std::vector<model::package::ContentItem> items = model::package::ParseContent(content, path);
  std::vector<PackageContentEntry> entries;
  for (size_t i = 0; i < items.size(); ++i) {
    entries.push_back(ReadContentEntry(std::move(items[i]), content[i], ElementPath(path, i)));
  }
  return entries;
}

// treeView is opaque UI state: an object or a JSON-encoded string, kept verbatim (§1.2).
Json ReadTreeView(const Json& package, std::string_view parent) {
  const Json* tree = FindMember(package, "treeView");
  if (tree == nullptr) return Json::object();
  if (!tree->is_object() && !tree->is_string()) {
    FailAt(MemberPath(parent, "treeView"), "expected an object or a JSON-encoded string");
  }
  return *tree;
}

TocView ReadTocView(const Json& package, model::package::PackageKind type,
                    std::string_view parent) {
  std::string path = MemberPath(parent, "tocView");
  const Json& toc = ObjectAt(package, "tocView", parent);
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
  const Json& package = ObjectAt(record, "packageInfo", "");
  PackageInfo info;
  info.id = RequireObjectId(RequiredString(package, "id", path), "packageInfo.id");
  info.replicated = BoolAt(package, "replicated", path, false);
  info.type =
      model::package::ParsePackageKind(RequiredString(package, "type", path), "packageInfo.type");
  if (auto purpose = OptionalString(package, "purpose", path)) {
    info.purpose = model::package::ParsePackagePurpose(*purpose, "packageInfo.purpose");
  }
  info.name = StringAt(package, "name", path);
  info.creator = ReadNamedRef(package, "creator", path, IdForm::kObjectId);
  info.creation_date = TimestampAt(package, "creationDate", path);
  info.last_updated_date = TimestampAt(package, "lastUpdatedDate", path);
  info.environment = ReadNamedRef(package, "environment", path, IdForm::kAnyText);
  info.storage = ReadStoredFile(package, "storage", path);
  info.project = ReadNamedRef(package, "project", path, IdForm::kObjectId);
  info.status = EnumAt(package, "status", path, kPackageStatusNames, PackageStatus::kCreating);
  info.message = StringAt(package, "message", path);
  info.progress = ProgressAt(package, "progress", path);
  info.deleted = BoolAt(package, "deleted", path, false);
  info.existing = BoolAt(package, "existing", path, false);
  info.warnings = ReadWarnings(package, path);
  if (FindMember(package, "certification") != nullptr) {
    info.certification = ReadCertification(ObjectAt(package, "certification", path),
                                           "packageInfo.certification", {}, Timestamp{});
  }
  info.toc_view = ReadTocView(package, info.type, path);
  info.tree_view = ReadTreeView(package, path);
  return info;
}

ImportInfo ReadImportInfo(const Json& record) {
  constexpr std::string_view path = "importInfo";
  const Json& imp = ObjectAt(record, "importInfo", "");
  ImportInfo info;
  info.id = RequireObjectId(RequiredString(imp, "id", path), "importInfo.id");
  info.creator = ReadNamedRef(imp, "creator", path, IdForm::kObjectId);
  info.creation_date = TimestampAt(imp, "creationDate", path);
  info.last_updated_date = TimestampAt(imp, "lastUpdatedDate", path);
  info.environment = ReadNamedRef(imp, "environment", path, IdForm::kAnyText);
  info.status = EnumAt(imp, "status", path, kImportStatusNames, ImportStatus::kPending);
  info.import_request_status =
      EnumAt(imp, "importRequestStatus", path, kRequestStatusNames, RequestStatus::kPending);
  info.undo_request_status =
      EnumAt(imp, "undoRequestStatus", path, kRequestStatusNames, RequestStatus::kPending);
  info.progress = ProgressAt(imp, "progress", path);
  info.message = StringAt(imp, "message", path);
  info.undo_storage = ReadStoredFile(imp, "undoStorage", path);
  info.project = ReadNamedRef(imp, "project", path, IdForm::kObjectId);
  info.deleted = BoolAt(imp, "deleted", path, false);
  return info;
}

std::optional<Validation> ReadValidation(const Json& record) {
  if (FindMember(record, "validation") == nullptr) return std::nullopt;
  constexpr std::string_view path = "validation";
  const Json& validation = ObjectAt(record, "validation", "");
  Validation parsed;
  std::optional<ValidationStatus> status =
      OptionalEnumAt(validation, "status", path, kValidationStatusNames);
  if (!status) FailMissingAt("validation.status");
  parsed.status = *status;
  parsed.progress = ProgressAt(validation, "progress", path);
  parsed.message = StringAt(validation, "message", path);
  parsed.creation_date = TimestampAt(validation, "creationDate", path);
  // mstrio-py reads lastUpdateDate; §1.4 spells it lastUpdatedDate. Both are accepted.
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

// Key order of the §1.11 G sample.
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
  // §4.9: a project merge carries settings only.
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

// Request bodies -------------------------------------------------------------------------------

const Json& RequireBodyObject(const Json& body) {
  if (!body.is_object()) FailAt("body", "expected a JSON object");
  return body;
}

constexpr std::string_view kContentPath = "packageInfo.tocView.content";

ContentList ReadCreateContent(const Json& toc, model::package::PackagePurpose purpose,
                              std::optional<ContentList> streamed) {
  constexpr std::string_view path = kContentPath;
  const Json* content = FindMember(toc, "content");
  ContentList items = streamed  ? std::move(*streamed)
                      : content ? ContentList(model::package::ParseContent(*content, path))
                                : ContentList();
  if (purpose == model::package::PackagePurpose::kProjectMerge) {
    // spec 04 §2.3 row 6: a project merge copies the whole project; an empty list is tolerated.
    if (!items.empty()) {
      FailAt(path, "a project merge copies the whole project and takes no content; remove it");
    }
  } else if (items.empty()) {
    // spec 04 §2.3 row 6: an object migration names at least one object.
    throw Error(ErrorCode::kMissingField,
                std::string(path) + ": an object migration needs at least one object");
  }
  return items;
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
  // spec 04 §2.3 row 11: a malformed id names no migration.
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
PackageStatus ParsePackageStatus(std::string_view value, std::string_view field_path) {
  return kPackageStatusNames.Parse(value, field_path);
}
std::string_view ImportStatusName(ImportStatus status) { return kImportStatusNames.NameOf(status); }
ImportStatus ParseImportStatus(std::string_view value, std::string_view field_path) {
  return kImportStatusNames.Parse(value, field_path);
}
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
CertificationStatus ParseCertificationStatus(std::string_view value, std::string_view field_path) {
  return kCertificationStatusNames.Parse(value, field_path);
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
  RequireBodyObject(json);
  MigrationRecord record;
  record.package_info = ReadPackageInfo(json);
  record.import_info = ReadImportInfo(json);
  record.validation = ReadValidation(json);
  return record;  // `version` is derived from the purpose; any value is accepted (§1.1)
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
      ReadContentEntry(model::package::ParseContentItem(stored_item, path), stored_item, path));
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

// Request bodies ---------------------------------------------------------------------------------

CreateRequest ParseCreateBody(const Json& body, std::optional<ContentList> streamed) {
  RequireBodyObject(body);
  if (FindMember(body, "packageInfo") == nullptr) FailMissingAt("packageInfo");
  constexpr std::string_view path = "packageInfo";
  const Json& package = ObjectAt(body, "packageInfo", "");
  CreateRequest request;
  request.type =
      model::package::ParsePackageKind(RequiredString(package, "type", path), "packageInfo.type");
  if (auto purpose = OptionalString(package, "purpose", path)) {
    request.purpose = model::package::ParsePackagePurpose(*purpose, "packageInfo.purpose");
  }
  if (request.purpose == model::package::PackagePurpose::kProjectMerge &&
      request.type != model::package::PackageKind::kProject) {
    FailAt("packageInfo.type", "a project merge needs a package of type project, not '" +
                                   std::string(model::package::PackageKindName(request.type)) +
                                   "'");
  }
  request.name = RequiredString(package, "name", path);
  request.environment = ReadNamedRef(package, "environment", path, IdForm::kAnyText);
  if (FindMember(package, "tocView") == nullptr) FailMissingAt("packageInfo.tocView");
  const Json& toc = ObjectAt(package, "tocView", path);
  const Json* settings = FindMember(toc, "settings");
  request.settings =
      model::package::ParsePackageSettings(settings ? *settings : Json(), request.type);
  request.content = ReadCreateContent(toc, request.purpose, std::move(streamed));
  request.tree_view = ReadTreeView(package, path);
  // mstrio-py sends "importInfo": {} and sets the target later with the requested-PATCH (§7).
  const Json& imp = ObjectAt(body, "importInfo", "");
  request.target_environment = ReadNamedRef(imp, "environment", "importInfo", IdForm::kAnyText);
  request.target_project = ReadNamedRef(imp, "project", "importInfo", IdForm::kObjectId);
  return request;
}

PatchRequest ParsePatchBody(const Json& body) {
  RequireBodyObject(body);
  PatchRequest request;
  const Json& package = ObjectAt(body, "packageInfo", "");
  if (auto name = OptionalString(package, "name", "packageInfo")) {
    if (Trim(*name).empty()) FailAt("packageInfo.name", "must not be empty");
    request.name = *name;
  }
  const Json& imp = ObjectAt(body, "importInfo", "");
  request.import_request_status =
      OptionalEnumAt(imp, "importRequestStatus", "importInfo", kRequestStatusNames);
  request.undo_request_status =
      OptionalEnumAt(imp, "undoRequestStatus", "importInfo", kRequestStatusNames);
  if (FindMember(imp, "environment") != nullptr) {
    request.target_environment = ReadNamedRef(imp, "environment", "importInfo", IdForm::kAnyText);
  }
  if (FindMember(imp, "project") != nullptr) {
    request.target_project = ReadNamedRef(imp, "project", "importInfo", IdForm::kObjectId);
  }
  const Json& validation = ObjectAt(body, "validation", "");
  request.validation_status =
      OptionalEnumAt(validation, "status", "validation", kValidationStatusNames);
  if (request.validation_status && *request.validation_status != ValidationStatus::kValidating) {
    FailAt("validation.status", "only 'validating' can be requested; the server sets '" +
                                    std::string(ValidationStatusName(*request.validation_status)) +
                                    "' when the validation ends");
  }
  return request;
}

MigrationRecord ParseImportBody(const Json& body, const MigrationId& path_id) {
  RequireBodyObject(body);
  const Json& package = ObjectAt(body, "packageInfo", "");
  // spec 04 §2.3 row 17: only a record read on the source and marked replicated is imported.
  if (OptionalBool(package, "replicated", "packageInfo") != true) {
    FailAt("packageInfo.replicated",
           "must be true: send the source's record (showContent=all) with replicated set to true");
  }
  return ParseValidationBody(body, path_id);
}

MigrationRecord ParseValidationBody(const Json& body, const MigrationId& path_id) {
  RequireBodyObject(body);
  const Json& package = ObjectAt(body, "packageInfo", "");
  // spec 04 §2.3 row 18: the body is the migration of the request path.
  std::string body_id = RequiredString(body, "id", "");
  std::string expected = FormatMigrationId(path_id);
  if (!EqualsIgnoreCase(body_id, expected)) {
    FailAt("id", "'" + body_id + "' is not the migration of the request path, " + expected);
  }
  if (FindMember(package, "tocView") == nullptr) {
    throw Error(ErrorCode::kMissingField,
                "packageInfo.tocView: read the migration with showContent=all");
  }
  MigrationRecord record = RecordFromJson(body);
  if (IdOf(record).package_id != path_id.package_id ||
      IdOf(record).import_id != path_id.import_id) {
    FailAt("packageInfo.id", "'" + record.package_info.id + "' with importInfo.id '" +
                                 record.import_info.id + "' is not the migration " + expected);
  }
  return record;
}

const std::vector<std::string>& StreamedContent::Path() {
  static const std::vector<std::string> path{"packageInfo", "tocView", "content"};
  return path;
}

void StreamedContent::Add(const Json& item) {
  std::string item_path = ElementPath(kContentPath, static_cast<size_t>(digest_.items));
  model::package::ContentItem parsed = model::package::ParseContentItem(item, item_path);
  ++digest_.items;
  digest_.keeps_both |= parsed.action == model::package::ConflictRule::kKeepBoth;
  if (form_ == Form::kStored) {
    if (!ids_.Insert(parsed.id)) NoteDuplicate(parsed.id);
    ReadContentEntry(std::move(parsed), item, item_path);  // checked, not kept
  } else if (!items_.Add(parsed)) {
    NoteDuplicate(parsed.id);
  }
}

void StreamedContent::NoteDuplicate(const std::string& id) {
  ++duplicates_found_;
  if (duplicates_.size() < kMaxDuplicatesShown &&
      std::find(duplicates_.begin(), duplicates_.end(), id) == duplicates_.end()) {
    duplicates_.push_back(id);
  }
}

void StreamedContent::Finish() const {
  if (duplicates_found_ == 0) return;
  std::vector<std::string> shown = duplicates_;
  if (duplicates_found_ > static_cast<int64_t>(shown.size())) shown.push_back("...");
  model::package::RefuseDuplicateIds(shown, kContentPath);
}

Certification CertificationFromBody(const Json& body, const CertificationOperator& caller,
                                    Timestamp now) {
  RequireBodyObject(body);
  // The docs wrap the certification in packageInfo; mstrio-py sends it bare (§1.10).
  if (FindMember(body, "packageInfo") != nullptr) {
    const Json& package = ObjectAt(body, "packageInfo", "");
    if (FindMember(package, "certification") == nullptr) FailMissingAt("packageInfo.certification");
    return ReadCertification(ObjectAt(package, "certification", "packageInfo"),
                             "packageInfo.certification", caller, now);
  }
  return ReadCertification(body, "", caller, now);
}

}  // namespace tessera::service::migration
