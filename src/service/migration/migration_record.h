// service/migration/migration_record.h
//
// The migration record -- its id, packageInfo, importInfo and validation -- as a typed value and
// its public JSON. Nothing here reads storage or knows HTTP; the state machine that moves a
// record is service/migration/migration_state.h, and the request bodies that create, change or
// import one are parsed in api/migration/migration_requests.h.
//
// ToJson() is both the stored form and the full public record (showContent=all): every key of
// packageInfo and importInfo is always present, in the order the public samples show them,
// unknown objects are `{}` (never null) and enumerations only take the values mstrio-py parses,
// because mstrio-py builds its PackageInfo/ImportInfo from every GET and fails on a missing key
// or an unknown value. Optional parts appear only when they have a value:
// packageInfo.warnings (non-empty), packageInfo.certification, tocView.content (not for a
// project merge, which copies the whole project and lists nothing) and the top-level validation
// (once started). RecordFromJson(ToJson(r)) == r, exactly.
//
// Readers throw Error naming the field path ("importInfo.project.id: 'x' is not an object id
// ..."): kInvalidInput for a wrong value or type, kMissingField for an absent required field.
// null counts as absent (mstrio-py drops None values).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "core/time.h"
#include "model/package/kind.h"
#include "model/package/settings.h"

namespace tessera::service::migration {

// Identity --------------------------------------------------------------------------------------

struct MigrationId {
  std::string package_id;  // 32 upper-case hex
  std::string import_id;   // 32 upper-case hex
};

// "<package id>:<import id>" in either case -> upper case. Anything else throws Error(kNotFound):
// a malformed id names no migration.
MigrationId ParseMigrationId(std::string_view text);
std::string FormatMigrationId(const MigrationId& id);

// Value sets ------------------------------------------------------------------------------------

enum class PackageStatus { kCreating, kCreated, kCreateFailed, kLocked };
enum class ImportStatus {
  kPending,
  kImporting,
  kImported,
  kImportFailed,
  kUndoing,
  kUndoSuccess,
  kUndoFailed,
};
// importRequestStatus and undoRequestStatus. kUnknown is mstrio-py's value: accepted on input,
// never produced by a transition.
enum class RequestStatus { kPending, kRequested, kApproved, kRejected, kUnknown };
enum class ValidationStatus { kValidating, kValidated, kValidationFailed };
enum class CertificationStatus { kUncertified, kRequested, kCertified, kRejected };

// Parsers are case-sensitive (REST spellings) and throw Error(kInvalidInput) "<field_path>: 'x'
// is not a ...; expected one of ...".
std::string_view PackageStatusName(PackageStatus status);
std::string_view ImportStatusName(ImportStatus status);
std::string_view RequestStatusName(RequestStatus status);
RequestStatus ParseRequestStatus(std::string_view value, std::string_view field_path);
std::string_view ValidationStatusName(ValidationStatus status);
ValidationStatus ParseValidationStatus(std::string_view value, std::string_view field_path);
std::string_view CertificationStatusName(CertificationStatus status);

// Parts ------------------------------------------------------------------------------------------

// An {id, name} pair: a creator, an environment (id = its URL) or a project. Shown as `{}` while
// `id` is empty, else always with both keys.
struct NamedRef {
  std::string id;
  std::string name;
  bool empty() const { return id.empty(); }
  bool operator==(const NamedRef&) const = default;
};

// A package or undo binary in the storage location: {size (bytes), path (relative)}.
struct StoredFile {
  int64_t size = 0;
  std::string path;
  bool operator==(const StoredFile&) const = default;
};

struct PackageWarning {  // {message, iServerErrorCode, bannedObjectCount}
  std::string message;
  int64_t iserver_error_code = 0;
  int64_t banned_object_count = 0;
  bool operator==(const PackageWarning&) const = default;
};

struct CertificationOperator {  // {id, name, fullName}
  std::string id;
  std::string name;
  std::string full_name;
  bool operator==(const CertificationOperator&) const = default;
};

// {status, operator, lastUpdatedDate}: set on a created package by its certification request.
struct Certification {
  CertificationStatus status = CertificationStatus::kUncertified;
  CertificationOperator by;  // JSON "operator"
  Timestamp last_updated{};
  bool operator==(const Certification&) const = default;
};

enum class ContentLevel { kProjectObject, kConfigurationObject };  // JSON "level"

// A stored tocView.content item: the request item plus what package creation learnt of the
// object (its version, owner and dates at creation). The learnt parts are empty/absent until the
// package is built and are then shown. Only the items the request listed are stored; objects
// pulled in by includeDependents are in the package file alone.
struct PackageContentEntry {
  model::package::ContentItem item;  // id, name, type?, action, includeDependents
  std::string version;               // "" until built
  std::string owner_id;              // "" until built; shown as owner{id}
  std::optional<Timestamp> date_created;
  std::optional<Timestamp> date_modified;
  bool explicit_included = true;  // every stored item was listed
  std::optional<ContentLevel> level;
  bool operator==(const PackageContentEntry&) const;
};

struct TocView {
  // model::package::ToJson(PackageSettings) for the package's type: the normalised form (every
  // settings key, defaults filled in).
  Json settings = model::package::ToJson(model::package::PackageSettings{});
  std::vector<PackageContentEntry> content;  // empty for project merge
};

struct PackageInfo {
  std::string id;
  bool replicated = false;  // true on a target's record (and on the import PUT's body)
  model::package::PackageKind type = model::package::PackageKind::kProject;
  model::package::PackagePurpose purpose = model::package::PackagePurpose::kObjectMigration;
  std::string name;
  NamedRef creator;
  Timestamp creation_date{};
  Timestamp last_updated_date{};
  NamedRef environment;               // the source environment
  std::optional<StoredFile> storage;  // absent ({}) until created
  NamedRef project;                   // the source project; {} for configuration packages
  PackageStatus status = PackageStatus::kCreating;
  std::string message;
  int progress = 0;
  bool deleted = false;
  bool existing = false;
  std::vector<PackageWarning> warnings;
  std::optional<Certification> certification;
  TocView toc_view;
  Json tree_view = Json::object();  // opaque UI state, an object or a string, verbatim
};

struct ImportInfo {
  std::string id;
  NamedRef creator;  // {} until an import starts
  Timestamp creation_date{};
  Timestamp last_updated_date{};
  NamedRef environment;  // the target environment; {} until set
  ImportStatus status = ImportStatus::kPending;
  RequestStatus import_request_status = RequestStatus::kPending;
  RequestStatus undo_request_status = RequestStatus::kPending;
  int progress = 0;
  std::string message;
  std::optional<StoredFile> undo_storage;  // absent ({}) until an undo package exists
  NamedRef project;                        // the target project; {} for configuration packages
  bool deleted = false;
};

// The dry run of an import on the target, started from the source.
struct Validation {
  ValidationStatus status = ValidationStatus::kValidating;
  int progress = 0;
  std::string message;
  Timestamp creation_date{};
  Timestamp last_update_date{};  // JSON "lastUpdateDate", mstrio-py's spelling
};

struct MigrationRecord {
  PackageInfo package_info;
  ImportInfo import_info;
  std::optional<Validation> validation;  // present once a validation was started
};

MigrationId IdOf(const MigrationRecord& record);
// Error(kInvalidInput) naming packageInfo.id unless `record` is the migration `id`.
void RequireMigrationId(const MigrationRecord& record, const MigrationId& id);

// The validation alone, as in a record: ToJson gives its object; ValidationFromJson reads
// holder["validation"] (absent: nullopt; malformed: Error(kInvalidInput)).
Json ToJson(const Validation& validation);
std::optional<Validation> ValidationFromJson(const Json& holder);

// The record-format version: "2" for project merge, "1" for every other record.
std::string_view RecordVersion(const MigrationRecord& record);

// JSON forms -------------------------------------------------------------------------------------

// The full record (= stored form = GET with showContent=all).
Json ToJson(const MigrationRecord& record);
// Reads the stored form, or a full record sent by a client (the import PUT). Required:
// packageInfo.id, packageInfo.type, importInfo.id; every other key defaults as in the structs.
// tocView.settings is validated and normalised for the package type.
MigrationRecord RecordFromJson(const Json& json);

// What a read shows: default (no tocView, no treeView), tocview (+ tocView), treeview
// (+ treeView), all (both).
enum class ShowContent { kDefault, kTocView, kTreeView, kAll };
// Case-insensitive; "" is default. Other values throw Error(kInvalidInput).
ShowContent ParseShowContent(std::string_view value);
// `full` is ToJson() of a record.
Json ProjectForShowContent(const Json& full, ShowContent show);

// The short form a POST, PATCH or PUT answers with: {id, packageInfo{id, status, progress},
// importInfo{id, status, importRequestStatus, undoRequestStatus, progress}}, +
// validation{status, progress} when asked and present.
Json ShortForm(const MigrationRecord& record, bool with_validation);

// A stored tocView.content item as a record shows it: what ToJson(record) gives for it.
// Throws as reading the item in a record would.
Json ShownContentItem(const Json& stored_item);

// Parts read alone -------------------------------------------------------------------------------
// For the request bodies (api/migration/migration_requests.h) and the shared status file, which
// carry parts of a record: each reads and refuses exactly as RecordFromJson does for the same part.

// What an {id, name} pair's id must be: an object id (creators, projects; upper-cased) or any
// non-empty text (environments, whose id is a URL).
enum class RefIdForm { kObjectId, kAnyText };

// holder[key] as {id, name} at `parent`.`key`: `{}` (or absent) is the empty ref; a ref with a
// name needs an id.
NamedRef NamedRefFromJson(const Json& holder, std::string_view key, std::string_view parent,
                          RefIdForm form);

// packageInfo.treeView (`package` is packageInfo, at `parent`): an object or a JSON-encoded
// string, kept verbatim; `{}` when absent.
Json TreeViewFromJson(const Json& package, std::string_view parent);

// A certification as sent or shared, before defaults: the operator and date are absent when not
// given.
struct CertificationChange {
  CertificationStatus status = CertificationStatus::kUncertified;
  std::optional<CertificationOperator> by;
  std::optional<Timestamp> last_updated;

  // The certification with `by` defaulting to `caller` and the date to `now`.
  Certification CompletedWith(const CertificationOperator& caller, Timestamp now) const;
};
// {status, operator?, lastUpdatedDate?} at `path`; status is required.
CertificationChange CertificationChangeFromJson(const Json& certification, std::string_view path);

// A stored tocView.content item at `item_path` whose request part `parsed` was read already
// (model::package::ParseContentItem): adds what creation learnt of the object.
PackageContentEntry ContentEntryFromJson(model::package::ContentItem parsed, const Json& item,
                                         std::string_view item_path);

}  // namespace tessera::service::migration
