// service/migration/migration_record.h
//
// The migration record (spec 04 §1.1–§1.4) as a typed value, its public JSON and the request
// bodies that create, change or import one. Nothing here reads storage or knows HTTP; the state
// machine that moves a record is service/migration/migration_state.h.
//
// ToJson() is both the stored form and the full public record (showContent=all): every key of
// spec 04 §1.11 D/G is always present, in that order, unknown objects are `{}` (never null) and
// enumerations only take the values mstrio-py parses (§2.1), because mstrio-py builds its
// PackageInfo/ImportInfo from every GET and fails on a missing key or an unknown value.
// Optional parts appear only when they have a value: packageInfo.warnings (non-empty),
// packageInfo.certification, tocView.content (not for project merge, §4.9) and the top-level
// validation (once started). RecordFromJson(ToJson(r)) == r, exactly.
//
// Readers throw Error naming the field path ("importInfo.project.id: 'x' is not an object id
// ..."): kInvalidInput for a wrong value or type, kMissingField for an absent required field.
// null counts as absent (mstrio-py drops None values).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "core/json.h"
#include "core/time.h"
#include "model/package/kind.h"
#include "model/package/settings.h"
#include "service/migration/content_list.h"

namespace tessera::service::migration {

// Identity --------------------------------------------------------------------------------------

struct MigrationId {
  std::string package_id;  // 32 upper-case hex
  std::string import_id;   // 32 upper-case hex
};

// "<package id>:<import id>" in either case -> upper case. Anything else throws Error(kNotFound):
// a malformed id names no migration (spec 04 §2.3 row 11).
MigrationId ParseMigrationId(std::string_view text);
std::string FormatMigrationId(const MigrationId& id);

// Value sets (spec 04 §2.1) ---------------------------------------------------------------------

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
enum class CertificationStatus { kUncertified, kRequested, kCertified, kRejected };  // §1.10

// Parsers are case-sensitive (REST spellings) and throw Error(kInvalidInput) "<field_path>: 'x'
// is not a ...; expected one of ...".
std::string_view PackageStatusName(PackageStatus status);
PackageStatus ParsePackageStatus(std::string_view value, std::string_view field_path);
std::string_view ImportStatusName(ImportStatus status);
ImportStatus ParseImportStatus(std::string_view value, std::string_view field_path);
std::string_view RequestStatusName(RequestStatus status);
RequestStatus ParseRequestStatus(std::string_view value, std::string_view field_path);
std::string_view ValidationStatusName(ValidationStatus status);
ValidationStatus ParseValidationStatus(std::string_view value, std::string_view field_path);
std::string_view CertificationStatusName(CertificationStatus status);
CertificationStatus ParseCertificationStatus(std::string_view value, std::string_view field_path);

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

struct Certification {  // spec 04 §1.10
  CertificationStatus status = CertificationStatus::kUncertified;
  CertificationOperator by;  // JSON "operator"
  Timestamp last_updated{};
  bool operator==(const Certification&) const = default;
};

enum class ContentLevel { kProjectObject, kConfigurationObject };  // §1.6 "level"

// A stored tocView.content item (§1.6): the request item plus what package creation learnt of
// the object. The learnt parts are empty/absent until the package is built and are then shown.
struct PackageContentEntry {
  model::package::ContentItem item;  // id, name, type?, action, includeDependents
  std::string version;               // "" until built
  std::string owner_id;              // "" until built; shown as owner{id}
  std::optional<Timestamp> date_created;
  std::optional<Timestamp> date_modified;
  bool explicit_included = true;  // only listed items are stored (§1.6)
  std::optional<ContentLevel> level;
  bool operator==(const PackageContentEntry&) const;
};

struct TocView {
  // model::ToJson(PackageSettings) for the package's type: the normalised form (every §1.5 key).
  Json settings = model::package::ToJson(model::package::PackageSettings{});
  std::vector<PackageContentEntry> content;  // empty for project merge
};

struct PackageInfo {  // spec 04 §1.2
  std::string id;
  bool replicated = false;
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

struct ImportInfo {  // spec 04 §1.3
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

struct Validation {  // spec 04 §1.4
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

// The validation alone, as in a record: ToJson gives its object; ValidationFromJson reads
// holder["validation"] (absent: nullopt; malformed: Error(kInvalidInput)).
Json ToJson(const Validation& validation);
std::optional<Validation> ValidationFromJson(const Json& holder);

// The record-format version (§1.1): "2" for project merge, "1" for every other record.
std::string_view RecordVersion(const MigrationRecord& record);

// JSON forms -------------------------------------------------------------------------------------

// The full record (= stored form = GET with showContent=all).
Json ToJson(const MigrationRecord& record);
// Reads the stored form, or a full record sent by a client (the import PUT). Required:
// packageInfo.id, packageInfo.type, importInfo.id; every other key defaults as in the structs.
// tocView.settings is validated and normalised for the package type.
MigrationRecord RecordFromJson(const Json& json);

// §1.8: default (no tocView/treeView), tocview, treeview, all.
enum class ShowContent { kDefault, kTocView, kTreeView, kAll };
// Case-insensitive; "" is default. Other values throw Error(kInvalidInput).
ShowContent ParseShowContent(std::string_view value);
// `full` is ToJson() of a record.
Json ProjectForShowContent(const Json& full, ShowContent show);

// §1.7: {id, packageInfo{id, status, progress}, importInfo{id, status, importRequestStatus,
// undoRequestStatus, progress}}, + validation{status, progress} when asked and present.
Json ShortForm(const MigrationRecord& record, bool with_validation);

// A stored tocView.content item (§1.6) as a record shows it: what ToJson(record) gives for it.
// Throws as reading the item in a record would.
Json ShownContentItem(const Json& stored_item);

// Request bodies ---------------------------------------------------------------------------------

// POST /api/migrations (§1.11 A/B/C and mstrio-py's body, §7.1).
struct CreateRequest {
  model::package::PackageKind type = model::package::PackageKind::kProject;
  model::package::PackagePurpose purpose = model::package::PackagePurpose::kObjectMigration;
  std::string name;
  NamedRef environment;  // packageInfo.environment as sent; {} when absent
  model::package::PackageSettings settings;
  ContentList content;  // never empty for object migration; empty for merge
  Json tree_view = Json::object();
  NamedRef target_environment;  // importInfo.environment; {} when absent
  NamedRef target_project;      // importInfo.project; {} when absent
};
// `streamed`: the items of packageInfo.tocView.content when they were read item by item
// (StreamedContent) and the body holds an empty array in their place.
CreateRequest ParseCreateBody(const Json& body, std::optional<ContentList> streamed = std::nullopt);

// What a tocView.content list read item by item (StreamedContent) held, in place of the list.
struct ContentDigest {
  int64_t items = 0;
  bool keeps_both = false;  // an item's action is keep_both
};

// A tocView.content list read item by item while its request body is parsed
// (ParseJsonStreamingArray at Path()), so that a long list is never held whole. Each item is
// checked as the list of the same body is when read whole -- request items (kRequest:
// ParseCreateBody), or items of a stored record (kStored, §1.6: the import and validation
// bodies) -- with errors naming packageInfo.tocView.content[i]; Finish() refuses ids listed more
// than once (naming the first kMaxDuplicatesShown). Kept: the request items (kRequest) and the
// digest, in memory that does not grow with the list (ContentList, in `scratch_dir`).
class StreamedContent {
 public:
  enum class Form { kRequest, kStored };

  static const std::vector<std::string>& Path();  // packageInfo, tocView, content

  static constexpr size_t kMaxDuplicatesShown = 20;

  StreamedContent(Form form, const std::filesystem::path& scratch_dir)
      : form_(form), ids_(scratch_dir), items_(scratch_dir) {}

  void Add(const Json& item);
  void Finish() const;

  const ContentDigest& digest() const { return digest_; }
  ContentList TakeItems() { return std::move(items_); }

 private:
  void NoteDuplicate(const std::string& id);

  Form form_;
  ContentDigest digest_;
  ContentIds ids_;                       // kStored: the ids seen
  ContentList items_;                    // kRequest
  int64_t duplicates_found_ = 0;         // listings of an id after its first
  std::vector<std::string> duplicates_;  // in the order found, up to kMaxDuplicatesShown
};

// PATCH /api/migrations/{id}. Only the keys a client may change are read; the read-only keys
// of a whole-record body (mstrio-py's trigger_validation sends its whole packageInfo) are
// ignored. Every member is absent when not sent.
struct PatchRequest {
  std::optional<RequestStatus> import_request_status;
  std::optional<RequestStatus> undo_request_status;
  std::optional<NamedRef> target_environment;
  std::optional<NamedRef> target_project;
  std::optional<std::string> name;
  std::optional<ValidationStatus> validation_status;  // only kValidating is accepted
};
PatchRequest ParsePatchBody(const Json& body);

// PUT /api/migrations/{id} (import): the source's showContent=all record with
// packageInfo.replicated true (row 17), whose id is the path's (row 18) and which carries
// packageInfo.tocView (else Error(kMissingField)). Returns the record as sent, normalised.
MigrationRecord ParseImportBody(const Json& body, const MigrationId& path_id);
// PUT /api/migrations/{id}/validation: the same, read as the source returned it (replicated is
// not required: mstrio-py's trigger_validation sends the record unchanged).
MigrationRecord ParseValidationBody(const Json& body, const MigrationId& path_id);

// PATCH …/packageInfo/certification: `{status, operator?, lastUpdatedDate?}` (mstrio-py) or
// `{packageInfo: {certification: {...}}}` (docs). The operator defaults to `caller`, the date
// to `now`.
Certification CertificationFromBody(const Json& body, const CertificationOperator& caller,
                                    Timestamp now);

}  // namespace tessera::service::migration
