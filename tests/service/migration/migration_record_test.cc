// The migration record (spec 04 §1): its public JSON as mstrio-py reads it, the stored round
// trip, showContent and the short form, and the request bodies with their tolerances and field
// path errors. Expected JSON is written out from the spec's examples (§1.11).
#include "service/migration/migration_record.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/error.h"

namespace tessera::service::migration {
namespace {

constexpr char kPackageId[] = "4A7C1E9B2D3F4051A6B7C8D9E0F1A2B3";
constexpr char kImportId[] = "9D2E4F6A8B0C41D3E5F70819A2B3C4D5";
constexpr char kMigrationId[] = "4A7C1E9B2D3F4051A6B7C8D9E0F1A2B3:9D2E4F6A8B0C41D3E5F70819A2B3C4D5";

struct Thrown {
  ErrorCode code = ErrorCode::kInternal;
  std::string message;
};

template <typename F>
Thrown ThrownBy(F&& call) {
  try {
    call();
  } catch (const Error& error) {
    return {error.code(), std::string(error.message())};
  }
  ADD_FAILURE() << "expected an Error";
  return {};
}

Timestamp At(std::string_view text) { return ParseTimestamp(text).value(); }

// §1.11 G with tocView.settings in normalised form (every §1.5 key, defaults filled in).
Json FullRecord() {
  return Json::parse(R"({
    "id": "4A7C1E9B2D3F4051A6B7C8D9E0F1A2B3:9D2E4F6A8B0C41D3E5F70819A2B3C4D5",
    "packageInfo": {"id": "4A7C1E9B2D3F4051A6B7C8D9E0F1A2B3", "replicated": false,
      "type": "project", "purpose": "object_migration", "name": "Revenue metric to prod",
      "creator": {"id": "AB12CD34EF5647A8B9C0D1E2F3A4B5C6", "name": "admin"},
      "creationDate": "2025-06-02T09:14:05.120+0000",
      "lastUpdatedDate": "2025-06-02T09:20:41.002+0000",
      "environment": {"id": "https://bi-dev.example.com/TesseraLibrary/", "name": "bi-dev"},
      "storage": {"size": 48213,
        "path": "mstr/shared/migrations/packages/2025-06-02/E7D6C5B4A39281706F5E4D3C2B1A0F9E.mmp"},
      "project": {"id": "0C1D2E3F405162738495A6B7C8D9EAFB", "name": "Sales Dev"},
      "status": "locked", "message": "", "progress": 100, "deleted": false, "existing": true,
      "tocView": {
        "settings": {"defaultAction": "use_existing", "updateSchema": ["recal_table_logical_size"],
          "aclOnReplacingObjects": "use_existing", "aclOnNewObjects": ["inherit_acl_as_dest_folder"],
          "validateDependencies": true, "folderActions": [], "objectActions": [],
          "objectTypeActions": [], "translationAction": "not_merged"},
        "content": [
          {"id": "3E5A7C9B1D2F43658798A9BACBDCEDFE", "name": "Revenue",
           "version": "51C0A2E48D9F4B17A3E6C5D2B1F09E87", "type": 4,
           "owner": {"id": "AB12CD34EF5647A8B9C0D1E2F3A4B5C6"},
           "dateCreated": "2024-11-03T10:00:00.000+0000",
           "dateModified": "2025-05-30T16:42:10.000+0000",
           "action": "replace", "includeDependents": true, "explicitIncluded": true,
           "level": "project_object"},
          {"id": "7F6E5D4C3B2A41908F7E6D5C4B3A2918", "name": "Region",
           "version": "0E1F2A3B4C5D4E6F8091A2B3C4D5E6F7", "type": 12,
           "owner": {"id": "AB12CD34EF5647A8B9C0D1E2F3A4B5C6"},
           "dateCreated": "2023-02-14T08:00:00.000+0000",
           "dateModified": "2025-01-09T12:00:00.000+0000",
           "action": "use_newer", "includeDependents": false, "explicitIncluded": true,
           "level": "project_object"}]},
      "treeView": {}},
    "importInfo": {"id": "9D2E4F6A8B0C41D3E5F70819A2B3C4D5", "creator": {},
      "creationDate": "2025-06-02T09:14:05.121+0000",
      "lastUpdatedDate": "2025-06-02T09:20:41.003+0000",
      "environment": {"id": "https://bi-prod.example.com/TesseraLibrary/", "name": "bi-prod"},
      "status": "pending", "importRequestStatus": "approved", "undoRequestStatus": "pending",
      "progress": 0, "message": "", "undoStorage": {},
      "project": {"id": "F1E2D3C4B5A697887766554433221100", "name": "Sales Prod"},
      "deleted": false},
    "version": "1"})");
}

// What the service puts in a record when POST creates it (§1.11 A, D).
migration::MigrationRecord RecordBeingCreated() {
  migration::MigrationRecord record;
  migration::PackageInfo& package = record.package_info;
  package.id = kPackageId;
  package.name = "Revenue metric to prod";
  package.creator = {"AB12CD34EF5647A8B9C0D1E2F3A4B5C6", "admin"};
  package.creation_date = At("2025-06-02T09:14:05.120+0000");
  package.last_updated_date = At("2025-06-02T09:14:06.870+0000");
  package.environment = {"https://bi-dev.example.com/TesseraLibrary/", "bi-dev"};
  package.project = {"0C1D2E3F405162738495A6B7C8D9EAFB", "Sales Dev"};
  package.progress = 40;
  migration::ImportInfo& imp = record.import_info;
  imp.id = kImportId;
  imp.creation_date = At("2025-06-02T09:14:05.121+0000");
  imp.last_updated_date = At("2025-06-02T09:14:05.121+0000");
  imp.environment = {"https://bi-prod.example.com/TesseraLibrary/", "bi-prod"};
  imp.project = {"F1E2D3C4B5A697887766554433221100", "Sales Prod"};
  return record;
}

std::vector<std::string> KeysOf(const Json& object) {
  std::vector<std::string> keys;
  for (const auto& [key, value] : object.items()) keys.push_back(key);
  return keys;
}

// Every key mstrio-py's PackageInfo/ImportInfo constructors need, and nothing null.
void ExpectNoNullInside(const Json& value, const std::string& path) {
  EXPECT_FALSE(value.is_null()) << path;
  if (value.is_object()) {
    for (const auto& [key, member] : value.items()) ExpectNoNullInside(member, path + "." + key);
  }
}

// Migration ids -----------------------------------------------------------------------------------

TEST(MigrationId, IsMatchedInEitherCaseAndEmittedUpperCase) {
  migration::MigrationId id = migration::ParseMigrationId(
      "4a7c1e9b2d3f4051a6b7c8d9e0f1a2b3:9d2e4f6a8b0c41d3e5f70819a2b3c4d5");
  EXPECT_EQ(id.package_id, kPackageId);
  EXPECT_EQ(id.import_id, kImportId);
  EXPECT_EQ(migration::FormatMigrationId(id), kMigrationId);
}

TEST(MigrationId, MalformedIdsAreNotFound) {
  for (const char* text :
       {"", "4A7C1E9B2D3F4051A6B7C8D9E0F1A2B3", "4A7C1E9B2D3F4051A6B7C8D9E0F1A2B3:", "4A7C:9D2E",
        "4A7C1E9B2D3F4051A6B7C8D9E0F1A2B3:9D2E4F6A8B0C41D3E5F70819A2B3C4D5:1"}) {
    SCOPED_TRACE(text);
    EXPECT_EQ(ThrownBy([&] { migration::ParseMigrationId(text); }).code, ErrorCode::kNotFound);
  }
}

// The public record ------------------------------------------------------------------------------

TEST(MigrationRecordJson, ARecordBeingCreatedReadsAsSpecExampleD) {
  Json expected = Json::parse(R"({
    "id": "4A7C1E9B2D3F4051A6B7C8D9E0F1A2B3:9D2E4F6A8B0C41D3E5F70819A2B3C4D5",
    "packageInfo": {"id": "4A7C1E9B2D3F4051A6B7C8D9E0F1A2B3", "replicated": false,
      "type": "project", "purpose": "object_migration", "name": "Revenue metric to prod",
      "creator": {"id": "AB12CD34EF5647A8B9C0D1E2F3A4B5C6", "name": "admin"},
      "creationDate": "2025-06-02T09:14:05.120+0000",
      "lastUpdatedDate": "2025-06-02T09:14:06.870+0000",
      "environment": {"id": "https://bi-dev.example.com/TesseraLibrary/", "name": "bi-dev"},
      "storage": {},
      "project": {"id": "0C1D2E3F405162738495A6B7C8D9EAFB", "name": "Sales Dev"},
      "status": "creating", "message": "", "progress": 40, "deleted": false, "existing": false},
    "importInfo": {"id": "9D2E4F6A8B0C41D3E5F70819A2B3C4D5", "creator": {},
      "creationDate": "2025-06-02T09:14:05.121+0000",
      "lastUpdatedDate": "2025-06-02T09:14:05.121+0000",
      "environment": {"id": "https://bi-prod.example.com/TesseraLibrary/", "name": "bi-prod"},
      "status": "pending", "importRequestStatus": "pending", "undoRequestStatus": "pending",
      "progress": 0, "message": "", "undoStorage": {},
      "project": {"id": "F1E2D3C4B5A697887766554433221100", "name": "Sales Prod"},
      "deleted": false},
    "version": "1"})");

  Json shown = migration::ProjectForShowContent(ToJson(RecordBeingCreated()),
                                                migration::ShowContent::kDefault);

  EXPECT_EQ(shown.dump(), expected.dump());  // same keys, same order
}

TEST(MigrationRecordJson, AFreshRecordHasEveryKeyMstrioRequiresAndNoNullObjects) {
  migration::MigrationRecord record;
  record.package_info.id = kPackageId;
  record.import_info.id = kImportId;

  Json json = ToJson(record);

  EXPECT_EQ(KeysOf(json), (std::vector<std::string>{"id", "packageInfo", "importInfo", "version"}));
  EXPECT_EQ(KeysOf(json["packageInfo"]),
            (std::vector<std::string>{"id", "replicated", "type", "purpose", "name", "creator",
                                      "creationDate", "lastUpdatedDate", "environment", "storage",
                                      "project", "status", "message", "progress", "deleted",
                                      "existing", "tocView", "treeView"}));
  EXPECT_EQ(
      KeysOf(json["importInfo"]),
      (std::vector<std::string>{"id", "creator", "creationDate", "lastUpdatedDate", "environment",
                                "status", "importRequestStatus", "undoRequestStatus", "progress",
                                "message", "undoStorage", "project", "deleted"}));
  EXPECT_EQ(json["packageInfo"]["creator"], Json::object());
  EXPECT_EQ(json["importInfo"]["environment"], Json::object());
  EXPECT_EQ(json["importInfo"]["undoStorage"], Json::object());
  EXPECT_EQ(json["packageInfo"]["treeView"], Json::object());
  ExpectNoNullInside(json, "record");
}

TEST(MigrationRecordJson, ProjectMergeRecordsAreVersionTwoAndCarrySettingsOnly) {
  migration::MigrationRecord record = RecordBeingCreated();
  record.package_info.purpose = model::package::PackagePurpose::kProjectMerge;

  Json json = ToJson(record);

  EXPECT_EQ(json["version"], "2");
  EXPECT_EQ(KeysOf(json["packageInfo"]["tocView"]), std::vector<std::string>{"settings"});
}

TEST(MigrationRecordJson, ValidationCertificationAndWarningsAppearOnceSet) {
  migration::MigrationRecord record = RecordBeingCreated();
  record.package_info.warnings.push_back({"2 objects skipped", 8004, 2});
  record.package_info.certification =
      migration::Certification{migration::CertificationStatus::kCertified,
                               {"AB12CD34EF5647A8B9C0D1E2F3A4B5C6", "admin", "Administrator"},
                               At("2025-06-03T08:00:00.000+0000")};
  record.validation =
      Validation{migration::ValidationStatus::kValidated, 100, "",
                 At("2025-06-03T09:00:00.000+0000"), At("2025-06-03T09:00:02.500+0000")};

  Json json = ToJson(record);

  EXPECT_EQ(json["packageInfo"]["warnings"],
            Json::parse(R"([{"message": "2 objects skipped", "iServerErrorCode": 8004,
                             "bannedObjectCount": 2}])"));
  EXPECT_EQ(json["packageInfo"]["certification"].dump(), Json::parse(R"({"status": "certified",
              "operator": {"id": "AB12CD34EF5647A8B9C0D1E2F3A4B5C6", "name": "admin",
                           "fullName": "Administrator"},
              "lastUpdatedDate": "2025-06-03T08:00:00.000+0000"})")
                                                             .dump());
  EXPECT_EQ(json["validation"].dump(),
            Json::parse(R"({"status": "validated", "progress": 100, "message": "",
              "creationDate": "2025-06-03T09:00:00.000+0000",
              "lastUpdateDate": "2025-06-03T09:00:02.500+0000"})")
                .dump());
  EXPECT_EQ(KeysOf(json),
            (std::vector<std::string>{"id", "packageInfo", "importInfo", "validation", "version"}));
}

TEST(MigrationRecordJson, TheStoredRoundTripIsExact) {
  Json stored = FullRecord();

  EXPECT_EQ(ToJson(migration::RecordFromJson(stored)).dump(), stored.dump());
}

TEST(MigrationRecordJson, TheStoredRoundTripKeepsEveryOptionalPart) {
  migration::MigrationRecord record = RecordBeingCreated();
  record.package_info.tree_view = "{\"expanded\":[\"3E5A\"]}";
  record.package_info.certification =
      migration::Certification{migration::CertificationStatus::kRequested,
                               {"AB12CD34EF5647A8B9C0D1E2F3A4B5C6", "admin", ""},
                               At("2025-06-03T08:00:00.000+0000")};
  record.package_info.warnings.push_back({"slow", 1, 0});
  record.import_info.undo_storage =
      migration::StoredFile{3107, "mstr/shared/migrations/undo/x/y.mmp"};
  record.validation =
      Validation{migration::ValidationStatus::kValidationFailed, 40, "clock skew",
                 At("2025-06-03T09:00:00.000+0000"), At("2025-06-03T09:00:01.000+0000")};
  Json stored = ToJson(record);

  EXPECT_EQ(ToJson(migration::RecordFromJson(stored)).dump(), stored.dump());
}

TEST(MigrationRecordJson, ReadingNormalisesTheSettingsOfSpecExampleG) {
  Json sample = FullRecord();
  sample["packageInfo"]["tocView"]["settings"] = Json::parse(
      R"({"updateSchema": ["recal_table_logical_size"], "aclOnReplacingObjects": "use_existing",
          "aclOnNewObjects": ["inherit_acl_as_dest_folder"], "defaultAction": "use_existing"})");
  sample["validation"] = Json::parse(R"({"status": "validating", "progress": 0, "message": "",
      "creationDate": "2025-06-03T09:00:00.000+0000",
      "lastUpdatedDate": "2025-06-03T09:00:00.000+0000"})");

  Json read = ToJson(migration::RecordFromJson(sample));

  EXPECT_EQ(read["packageInfo"]["tocView"]["settings"],
            FullRecord()["packageInfo"]["tocView"]["settings"]);
  EXPECT_EQ(read["validation"]["lastUpdateDate"], "2025-06-03T09:00:00.000+0000");
}

TEST(MigrationRecordJson, ShowContentChoosesTocViewAndTreeView) {
  Json full = FullRecord();
  auto keys = [&](migration::ShowContent show) {
    return KeysOf(migration::ProjectForShowContent(full, show)["packageInfo"]);
  };
  auto has = [](const std::vector<std::string>& list, const char* key) {
    return std::find(list.begin(), list.end(), key) != list.end();
  };

  EXPECT_FALSE(has(keys(migration::ShowContent::kDefault), "tocView"));
  EXPECT_FALSE(has(keys(migration::ShowContent::kDefault), "treeView"));
  EXPECT_TRUE(has(keys(migration::ShowContent::kTocView), "tocView"));
  EXPECT_FALSE(has(keys(migration::ShowContent::kTocView), "treeView"));
  EXPECT_FALSE(has(keys(migration::ShowContent::kTreeView), "tocView"));
  EXPECT_TRUE(has(keys(migration::ShowContent::kTreeView), "treeView"));
  EXPECT_EQ(migration::ProjectForShowContent(full, migration::ShowContent::kAll), full);
}

TEST(MigrationRecordJson, ShowContentValuesAreCaseInsensitiveAndOthersRefused) {
  EXPECT_EQ(migration::ParseShowContent(""), migration::ShowContent::kDefault);
  EXPECT_EQ(migration::ParseShowContent("default"), migration::ShowContent::kDefault);
  EXPECT_EQ(migration::ParseShowContent("tocView"), migration::ShowContent::kTocView);
  EXPECT_EQ(migration::ParseShowContent("TREEVIEW"), migration::ShowContent::kTreeView);
  EXPECT_EQ(migration::ParseShowContent("all"), migration::ShowContent::kAll);
  Thrown thrown = ThrownBy([] { migration::ParseShowContent("everything"); });
  EXPECT_EQ(thrown.code, ErrorCode::kInvalidInput);
  EXPECT_EQ(thrown.message,
            "showContent: 'everything' is not accepted; expected one of default, tocview, "
            "treeview, all");
}

TEST(MigrationRecordJson, ShortFormIsExactlySection17) {
  migration::MigrationRecord record = RecordBeingCreated();
  record.package_info.status = migration::PackageStatus::kCreated;
  record.package_info.progress = 100;
  record.import_info.import_request_status = migration::RequestStatus::kRequested;

  // §1.11 F, the response to the requested-PATCH.
  EXPECT_EQ(ShortForm(record, false).dump(), Json::parse(R"({
    "id": "4A7C1E9B2D3F4051A6B7C8D9E0F1A2B3:9D2E4F6A8B0C41D3E5F70819A2B3C4D5",
    "packageInfo": {"id": "4A7C1E9B2D3F4051A6B7C8D9E0F1A2B3", "status": "created", "progress": 100},
    "importInfo": {"id": "9D2E4F6A8B0C41D3E5F70819A2B3C4D5", "status": "pending",
      "importRequestStatus": "requested", "undoRequestStatus": "pending", "progress": 0}})")
                                                 .dump());
}

TEST(MigrationRecordJson, ShortFormOfAValidationPatchAddsStatusAndProgress) {
  migration::MigrationRecord record = RecordBeingCreated();
  record.validation = Validation{migration::ValidationStatus::kValidating, 0, "", {}, {}};

  Json with = ShortForm(record, true);
  Json without = ShortForm(record, false);

  EXPECT_EQ(with["validation"].dump(), R"({"status":"validating","progress":0})");
  EXPECT_FALSE(without.contains("validation"));
}

// POST body
// ----------------------------------------------------------------------------------------

// §1.11 A.
Json CreateObjectMigrationBody() {
  return Json::parse(R"({"packageInfo": {"type": "project", "name": "Revenue metric to prod",
    "environment": {"id": "https://bi-dev.example.com/TesseraLibrary/", "name": "bi-dev"},
    "tocView": {
      "settings": {"updateSchema": ["recal_table_logical_size"],
        "aclOnReplacingObjects": "use_existing", "aclOnNewObjects": ["inherit_acl_as_dest_folder"],
        "defaultAction": "use_existing"},
      "content": [
        {"id": "3E5A7C9B1D2F43658798A9BACBDCEDFE", "name": "Revenue", "type": 4,
         "action": "replace", "includeDependents": true},
        {"id": "7F6E5D4C3B2A41908F7E6D5C4B3A2918", "name": "Region", "type": 12,
         "action": "use_newer", "includeDependents": false}]},
    "treeView": {}},
   "importInfo": {"environment": {"id": "https://bi-prod.example.com/TesseraLibrary/",
                                  "name": "bi-prod"},
     "project": {"id": "F1E2D3C4B5A697887766554433221100", "name": "Sales Prod"}}})");
}

TEST(MigrationCreateBody, SpecExampleAReadsWithTargetAndContent) {
  migration::CreateRequest request = migration::ParseCreateBody(CreateObjectMigrationBody());

  EXPECT_EQ(request.type, model::package::PackageKind::kProject);
  EXPECT_EQ(request.purpose, model::package::PackagePurpose::kObjectMigration);
  EXPECT_EQ(request.name, "Revenue metric to prod");
  EXPECT_EQ(request.environment,
            (migration::NamedRef{"https://bi-dev.example.com/TesseraLibrary/", "bi-dev"}));
  std::vector<model::package::ContentItem> content;
  request.content.ForEachChunk(10, [&](const std::vector<model::package::ContentItem>& chunk) {
    content.insert(content.end(), chunk.begin(), chunk.end());
  });
  ASSERT_EQ(request.content.size(), 2);
  ASSERT_EQ(content.size(), 2u);
  EXPECT_EQ(content[1].id, "7F6E5D4C3B2A41908F7E6D5C4B3A2918");
  EXPECT_EQ(content[1].action, model::package::ConflictRule::kUseNewer);
  EXPECT_EQ(request.settings.acl_on_new, std::vector<model::package::AclOnNew>{
                                             model::package::AclOnNew::kInheritAclAsDestFolder});
  EXPECT_EQ(request.target_environment,
            (migration::NamedRef{"https://bi-prod.example.com/TesseraLibrary/", "bi-prod"}));
  EXPECT_EQ(request.target_project,
            (migration::NamedRef{"F1E2D3C4B5A697887766554433221100", "Sales Prod"}));
}

TEST(MigrationCreateBody, MstrioEmptyImportInfoLeavesTheTargetUnset) {
  Json body = CreateObjectMigrationBody();
  body["importInfo"] = Json::object();

  migration::CreateRequest request = migration::ParseCreateBody(body);

  EXPECT_TRUE(request.target_environment.empty());
  EXPECT_TRUE(request.target_project.empty());
}

TEST(MigrationCreateBody, AbsentImportInfoAndTreeViewAreTolerated) {
  Json body = CreateObjectMigrationBody();
  body.erase("importInfo");
  body["packageInfo"].erase("treeView");

  migration::CreateRequest request = migration::ParseCreateBody(body);

  EXPECT_TRUE(request.target_environment.empty());
  EXPECT_EQ(request.tree_view, Json::object());
}

TEST(MigrationCreateBody, TreeViewAsAStringIsKeptVerbatim) {
  Json body = CreateObjectMigrationBody();
  body["packageInfo"]["treeView"] = "{\"nodes\":[1,2]}";

  EXPECT_EQ(migration::ParseCreateBody(body).tree_view, Json("{\"nodes\":[1,2]}"));
}

TEST(MigrationCreateBody, BareStringAclOnNewObjectsReachesTheSettingsParser) {
  Json body = CreateObjectMigrationBody();
  body["packageInfo"]["tocView"]["settings"]["aclOnNewObjects"] = "inherit_acl_as_dest_folder";

  EXPECT_EQ(
      migration::ParseCreateBody(body).settings.acl_on_new,
      std::vector<model::package::AclOnNew>{model::package::AclOnNew::kInheritAclAsDestFolder});
}

TEST(MigrationCreateBody, SpecExampleBIsAProjectMergeWithoutContent) {
  Json body = Json::parse(R"({"packageInfo": {"type": "project", "purpose": "project_merge",
    "name": "Merge Sales Dev into Sales Prod",
    "tocView": {"settings": {"aclOnReplacingObjects": "replace",
      "aclOnNewObjects": "keep_acl_as_source_object", "validateDependencies": true,
      "defaultAction": "use_newer",
      "folderActions": [{"id": "C3B2A1908F7E4D6C5B4A39281706F5E4", "action": "use_existing"}],
      "objectTypeActions": [{"type": 3, "subtype": 776, "action": "replace"},
                            {"type": 55, "action": "force_replace"}],
      "translationAction": "use_existing"}},
    "treeView": {}}, "importInfo": {}})");

  migration::CreateRequest request = migration::ParseCreateBody(body);

  EXPECT_EQ(request.purpose, model::package::PackagePurpose::kProjectMerge);
  EXPECT_TRUE(request.content.empty());
  EXPECT_EQ(request.settings.default_action, model::package::ConflictRule::kUseNewer);
  ASSERT_EQ(request.settings.folder_actions.size(), 1u);
  EXPECT_EQ(request.settings.object_type_actions.size(), 2u);
}

TEST(MigrationCreateBody, SpecExampleCIsAConfigurationPackage) {
  Json body = Json::parse(R"({"packageInfo": {"type": "configuration",
    "name": "Analyst group and role",
    "tocView": {"settings": {"updateSchema": null, "aclOnReplacingObjects": "replace",
                             "aclOnNewObjects": ["keep_acl_as_source_object"],
                             "defaultAction": "replace"},
      "content": [{"id": "5B6C7D8E9FA04B1C2D3E4F5061728394", "name": "Analysts", "type": 34,
                   "action": "replace", "includeDependents": true}]}},
    "importInfo": {"environment": {"id": "https://bi-prod.example.com/TesseraLibrary/",
                                   "name": "bi-prod"}}})");

  migration::CreateRequest request = migration::ParseCreateBody(body);

  EXPECT_EQ(request.type, model::package::PackageKind::kConfiguration);
  EXPECT_TRUE(request.settings.update_schema.empty());
  EXPECT_TRUE(request.target_project.empty());
}

struct BodyErrorCase {
  const char* what;
  const char* pointer;  // JSON pointer of the value to change; "" = the whole body
  const char* value;    // JSON text; "REMOVE" erases the member
  ErrorCode code;
  const char* message;  // exact, or a prefix when it ends in "..."
};

Json Edited(Json body, const BodyErrorCase& edit) {
  Json::json_pointer pointer(edit.pointer);
  if (std::string(edit.value) == "REMOVE") {
    body[pointer.parent_pointer()].erase(pointer.back());
  } else {
    body[pointer] = Json::parse(edit.value);
  }
  return body;
}

void ExpectMessage(const std::string& actual, std::string expected) {
  if (expected.ends_with("...")) {
    expected.resize(expected.size() - 3);
    EXPECT_TRUE(actual.starts_with(expected)) << actual;
  } else {
    EXPECT_EQ(actual, expected);
  }
}

TEST(MigrationCreateBody, EveryErrorNamesItsFieldPath) {
  const BodyErrorCase cases[] = {
      {"no packageInfo", "/packageInfo", "REMOVE", ErrorCode::kMissingField,
       "packageInfo: required field is missing"},
      {"no type", "/packageInfo/type", "REMOVE", ErrorCode::kMissingField,
       "packageInfo.type: required field is missing"},
      {"unknown type", "/packageInfo/type", R"("cube")", ErrorCode::kInvalidInput,
       "packageInfo.type: 'cube' is not a package type; expected one of project, "
       "configuration, project_security"},
      {"group purpose", "/packageInfo/purpose", R"("migration_group")", ErrorCode::kInvalidInput,
       "packageInfo.purpose: 'migration_group' is not a package purpose; expected one of "
       "object_migration, project_merge, migration_from_shared_file_store"},
      {"no name", "/packageInfo/name", "REMOVE", ErrorCode::kMissingField,
       "packageInfo.name: required field is missing"},
      {"no tocView", "/packageInfo/tocView", "REMOVE", ErrorCode::kMissingField,
       "packageInfo.tocView: required field is missing"},
      {"empty content (row 6)", "/packageInfo/tocView/content", "[]", ErrorCode::kMissingField,
       "packageInfo.tocView.content: an object migration needs at least one object"},
      {"no content (row 6)", "/packageInfo/tocView/content", "REMOVE", ErrorCode::kMissingField,
       "packageInfo.tocView.content: an object migration needs at least one object"},
      {"merge with content (row 6)", "/packageInfo/purpose", R"("project_merge")",
       ErrorCode::kInvalidInput,
       "packageInfo.tocView.content: a project merge copies the whole project and takes no "
       "content; remove it"},
      {"bad action (row 5)", "/packageInfo/tocView/content/1/action", R"("merge")",
       ErrorCode::kInvalidInput, "packageInfo.tocView.content[1].action: 'merge' is not..."},
      {"bad ACL option (row 5)", "/packageInfo/tocView/settings/aclOnNewObjects", R"(["inherit"])",
       ErrorCode::kInvalidInput,
       "packageInfo.tocView.settings.aclOnNewObjects[0]: 'inherit' is not..."},
      {"numeric treeView", "/packageInfo/treeView", "7", ErrorCode::kInvalidInput,
       "packageInfo.treeView: expected an object or a JSON-encoded string"},
      {"bad target project id", "/importInfo/project/id", R"("F1E2")", ErrorCode::kInvalidInput,
       "importInfo.project.id: 'F1E2' is not an object id; expected 32 hexadecimal characters"},
      {"target environment without id", "/importInfo/environment/id", "REMOVE",
       ErrorCode::kMissingField, "importInfo.environment.id: required field is missing"},
      {"importInfo not an object", "/importInfo", "[]", ErrorCode::kInvalidInput,
       "importInfo: expected an object"},
      {"body not an object", "", "[]", ErrorCode::kInvalidInput, "body: expected a JSON object"},
  };
  for (const BodyErrorCase& error_case : cases) {
    SCOPED_TRACE(error_case.what);
    Json body = Edited(CreateObjectMigrationBody(), error_case);
    Thrown thrown = ThrownBy([&] { migration::ParseCreateBody(body); });
    EXPECT_EQ(thrown.code, error_case.code);
    ExpectMessage(thrown.message, error_case.message);
  }
}

TEST(MigrationCreateBody, AProjectMergeIsOfTypeProject) {
  Json body = CreateObjectMigrationBody();
  body["packageInfo"]["type"] = "configuration";
  body["packageInfo"]["purpose"] = "project_merge";
  body["packageInfo"]["tocView"] = Json::parse(R"({"settings": {}})");

  Thrown thrown = ThrownBy([&] { migration::ParseCreateBody(body); });

  EXPECT_EQ(thrown.code, ErrorCode::kInvalidInput);
  EXPECT_EQ(thrown.message,
            "packageInfo.type: a project merge needs a package of type project, not "
            "'configuration'");
}

// PATCH body --------------------------------------------------------------------------------------

TEST(MigrationPatchBody, MstrioRequestCarriesTargetAndStatus) {
  migration::PatchRequest request = migration::ParsePatchBody(Json::parse(R"({"importInfo": {
    "environment": {"id": "https://bi-prod.example.com/TesseraLibrary/",
                    "name": "https://bi-prod.example.com/TesseraLibrary/"},
    "importRequestStatus": "requested",
    "project": {"id": "f1e2d3c4b5a697887766554433221100", "name": "Sales Prod"}}})"));

  EXPECT_EQ(request.import_request_status, migration::RequestStatus::kRequested);
  EXPECT_EQ(request.target_project,
            (migration::NamedRef{"F1E2D3C4B5A697887766554433221100", "Sales Prod"}));
  EXPECT_EQ(request.target_environment->id, "https://bi-prod.example.com/TesseraLibrary/");
  EXPECT_FALSE(request.name);
  EXPECT_FALSE(request.undo_request_status);
  EXPECT_FALSE(request.validation_status);
}

TEST(MigrationPatchBody, MstrioWholeRecordBodyIgnoresReadOnlyKeys) {
  Json record = FullRecord();
  Json body = {{"id", kMigrationId},
               {"packageInfo", record["packageInfo"]},
               {"importInfo",
                {{"id", kImportId},
                 {"environment", record["importInfo"]["environment"]},
                 {"project", record["importInfo"]["project"]}}}};

  migration::PatchRequest request = migration::ParsePatchBody(body);

  EXPECT_EQ(request.name, "Revenue metric to prod");
  EXPECT_EQ(request.target_project,
            (migration::NamedRef{"F1E2D3C4B5A697887766554433221100", "Sales Prod"}));
  EXPECT_FALSE(request.import_request_status);
  EXPECT_FALSE(request.validation_status);
}

TEST(MigrationPatchBody, ValidationUndoAndUnknownStatusesRead) {
  EXPECT_EQ(migration::ParsePatchBody(Json::parse(R"({"validation": {"status": "validating"}})"))
                .validation_status,
            migration::ValidationStatus::kValidating);
  EXPECT_EQ(
      migration::ParsePatchBody(Json::parse(R"({"importInfo": {"undoRequestStatus": "approved"}})"))
          .undo_request_status,
      migration::RequestStatus::kApproved);
  EXPECT_EQ(migration::ParsePatchBody(
                Json::parse(R"({"importInfo": {"importRequestStatus": "unknown"}})"))
                .import_request_status,
            migration::RequestStatus::kUnknown);
  migration::PatchRequest empty = migration::ParsePatchBody(Json::object());
  EXPECT_FALSE(empty.import_request_status || empty.undo_request_status ||
               empty.target_environment || empty.target_project || empty.name ||
               empty.validation_status);
}

TEST(MigrationPatchBody, EveryErrorNamesItsFieldPath) {
  struct Case {
    const char* body;
    ErrorCode code;
    const char* message;
  };
  const Case cases[] = {
      {R"({"importInfo": {"importRequestStatus": "done"}})", ErrorCode::kInvalidInput,
       "importInfo.importRequestStatus: 'done' is not a request status; expected one of "
       "pending, requested, approved, rejected, unknown"},
      {R"({"importInfo": {"undoRequestStatus": 1}})", ErrorCode::kInvalidInput,
       "importInfo.undoRequestStatus: expected a string"},
      {R"({"validation": {"status": "validated"}})", ErrorCode::kInvalidInput,
       "validation.status: only 'validating' can be requested; the server sets 'validated' "
       "when the validation ends"},
      {R"({"packageInfo": {"name": " "}})", ErrorCode::kInvalidInput,
       "packageInfo.name: must not be empty"},
      {R"({"importInfo": {"project": {"id": "nope"}}})", ErrorCode::kInvalidInput,
       "importInfo.project.id: 'nope' is not an object id; expected 32 hexadecimal characters"},
      {R"({"importInfo": {"project": {"name": "Sales Prod"}}})", ErrorCode::kMissingField,
       "importInfo.project.id: required field is missing"},
      {R"({"packageInfo": "x"})", ErrorCode::kInvalidInput, "packageInfo: expected an object"},
  };
  for (const Case& error_case : cases) {
    SCOPED_TRACE(error_case.body);
    Thrown thrown = ThrownBy([&] { migration::ParsePatchBody(Json::parse(error_case.body)); });
    EXPECT_EQ(thrown.code, error_case.code);
    EXPECT_EQ(thrown.message, error_case.message);
  }
}

// Import PUT body ---------------------------------------------------------------------------------

Json ImportBody() {
  Json body = FullRecord();
  body["packageInfo"]["replicated"] = true;  // what mstrio-py's migrate() changes (§7.3c)
  return body;
}

TEST(MigrationImportBody, TheReplicatedShowContentAllRecordIsTheImport) {
  migration::MigrationRecord record =
      migration::ParseImportBody(ImportBody(), migration::ParseMigrationId(kMigrationId));

  EXPECT_TRUE(record.package_info.replicated);
  EXPECT_EQ(record.package_info.status, migration::PackageStatus::kLocked);
  EXPECT_EQ(record.import_info.import_request_status, migration::RequestStatus::kApproved);
  EXPECT_EQ(record.package_info.toc_view.content.size(), 2u);
  EXPECT_EQ(record.import_info.project.id, "F1E2D3C4B5A697887766554433221100");
}

TEST(MigrationImportBody, TheBodyIdMatchesThePathInEitherCase) {
  Json body = ImportBody();
  body["id"] = "4a7c1e9b2d3f4051a6b7c8d9e0f1a2b3:9d2e4f6a8b0c41d3e5f70819a2b3c4d5";

  EXPECT_EQ(
      migration::ParseImportBody(body, migration::ParseMigrationId(kMigrationId)).import_info.id,
      kImportId);
}

TEST(MigrationImportBody, RefusalsNameTheRowAndField) {
  const BodyErrorCase cases[] = {
      {"row 17: not replicated", "/packageInfo/replicated", "false", ErrorCode::kInvalidInput,
       "packageInfo.replicated: must be true: send the source's record (showContent=all) with "
       "replicated set to true"},
      {"row 17: replicated absent", "/packageInfo/replicated", "REMOVE", ErrorCode::kInvalidInput,
       "packageInfo.replicated: must be true..."},
      {"row 18: other id", "/id",
       R"("4A7C1E9B2D3F4051A6B7C8D9E0F1A2B3:00000000000000000000000000000000")",
       ErrorCode::kInvalidInput,
       "id: '4A7C1E9B2D3F4051A6B7C8D9E0F1A2B3:00000000000000000000000000000000' is not the "
       "migration of the request path, "
       "4A7C1E9B2D3F4051A6B7C8D9E0F1A2B3:9D2E4F6A8B0C41D3E5F70819A2B3C4D5"},
      {"row 18: malformed id", "/id", R"("4A7C")", ErrorCode::kInvalidInput,
       "id: '4A7C' is not the migration of the request path..."},
      {"row 18: parts disagree", "/importInfo/id", R"("00000000000000000000000000000000")",
       ErrorCode::kInvalidInput,
       "packageInfo.id: '4A7C1E9B2D3F4051A6B7C8D9E0F1A2B3' with importInfo.id "
       "'00000000000000000000000000000000' is not the migration "
       "4A7C1E9B2D3F4051A6B7C8D9E0F1A2B3:9D2E4F6A8B0C41D3E5F70819A2B3C4D5"},
      {"showContent=default record", "/packageInfo/tocView", "REMOVE", ErrorCode::kMissingField,
       "packageInfo.tocView: read the migration with showContent=all"},
      {"bad status", "/importInfo/status", R"("done")", ErrorCode::kInvalidInput,
       "importInfo.status: 'done' is not an import status; expected one of pending, importing, "
       "imported, import_failed, undoing, undo_success, undo_failed"},
      {"bad date", "/packageInfo/creationDate", R"("yesterday")", ErrorCode::kInvalidInput,
       "packageInfo.creationDate: 'yesterday' is not a timestamp; expected "
       "yyyy-MM-ddTHH:mm:ss.SSS+0000"},
  };
  for (const BodyErrorCase& error_case : cases) {
    SCOPED_TRACE(error_case.what);
    Json body = Edited(ImportBody(), error_case);
    Thrown thrown = ThrownBy(
        [&] { migration::ParseImportBody(body, migration::ParseMigrationId(kMigrationId)); });
    EXPECT_EQ(thrown.code, error_case.code);
    ExpectMessage(thrown.message, error_case.message);
  }
}

// Certification body
// --------------------------------------------------------------------------------

const migration::CertificationOperator kCaller{"6C5D4E3F2A1B40C9D8E7F6A5B4C3D2E1", "prod-admin",
                                               "Prod Admin"};

TEST(MigrationCertificationBody, MstrioBareFormKeepsOperatorAndDate) {
  migration::Certification certification =
      migration::CertificationFromBody(Json::parse(R"({"status": "certified",
        "operator": {"id": "AB12CD34EF5647A8B9C0D1E2F3A4B5C6", "name": "admin",
                     "fullName": "Administrator"},
        "lastUpdatedDate": "2025-06-03T08:00:00.000+0000"})"),
                                       kCaller, At("2025-06-04T00:00:00.000+0000"));

  EXPECT_EQ(certification, (migration::Certification{
                               migration::CertificationStatus::kCertified,
                               {"AB12CD34EF5647A8B9C0D1E2F3A4B5C6", "admin", "Administrator"},
                               At("2025-06-03T08:00:00.000+0000")}));
}

TEST(MigrationCertificationBody, DocsWrappedFormTakesCallerAndNow) {
  migration::Certification certification = migration::CertificationFromBody(
      Json::parse(R"({"packageInfo": {"certification": {"status": "requested"}}})"), kCaller,
      At("2025-06-04T00:00:00.000+0000"));

  EXPECT_EQ(certification, (migration::Certification{migration::CertificationStatus::kRequested,
                                                     kCaller, At("2025-06-04T00:00:00.000+0000")}));
}

TEST(MigrationCertificationBody, StatusIsRequiredAndFromTheFourValues) {
  Timestamp now = At("2025-06-04T00:00:00.000+0000");
  Thrown bad = ThrownBy(
      [&] { migration::CertificationFromBody(Json::parse(R"({"status": "ok"})"), kCaller, now); });
  EXPECT_EQ(bad.code, ErrorCode::kInvalidInput);
  EXPECT_EQ(bad.message,
            "status: 'ok' is not a certification status; expected one of uncertified, requested, "
            "certified, rejected");
  Thrown missing = ThrownBy([&] {
    migration::CertificationFromBody(Json::parse(R"({"packageInfo": {"certification": {}}})"),
                                     kCaller, now);
  });
  EXPECT_EQ(missing.code, ErrorCode::kMissingField);
  EXPECT_EQ(missing.message, "packageInfo.certification.status: required field is missing");
}

}  // namespace
}  // namespace tessera::service::migration
