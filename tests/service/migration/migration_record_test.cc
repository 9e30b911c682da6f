// The migration record: its public JSON as mstrio-py reads it, the stored round trip,
// showContent, the short form, and the parts read alone for request bodies and the status file.
// Expected JSON is written out from the public samples
// (tests/api/migration/migration_requests_test.cc reads the request bodies).
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

// The public sample of an imported record, with tocView.settings in normalised form (every key,
// defaults filled in).
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

// What the service puts in a record when POST creates it (the public samples of a creation).
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

  // The public sample of the response to the PATCH that requests the import.
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

// Parts read alone
// ---------------------------------------------------------------------------------

TEST(MigrationRecordParts, NamedRefsNeedAnIdOnceNamedAndCheckItsForm) {
  Json holder = Json::parse(R"({"project": {"id": "f1e2d3c4b5a697887766554433221100", "name": "P"},
    "environment": {"id": "https://bi-prod.example.com/", "name": "prod"},
    "creator": {"name": "admin"}, "empty": {}})");

  EXPECT_EQ(NamedRefFromJson(holder, "project", "importInfo", RefIdForm::kObjectId),
            (NamedRef{"F1E2D3C4B5A697887766554433221100", "P"}));
  EXPECT_EQ(NamedRefFromJson(holder, "environment", "importInfo", RefIdForm::kAnyText),
            (NamedRef{"https://bi-prod.example.com/", "prod"}));
  EXPECT_TRUE(NamedRefFromJson(holder, "empty", "importInfo", RefIdForm::kObjectId).empty());
  EXPECT_TRUE(NamedRefFromJson(holder, "absent", "importInfo", RefIdForm::kObjectId).empty());
  Thrown nameless =
      ThrownBy([&] { NamedRefFromJson(holder, "creator", "packageInfo", RefIdForm::kObjectId); });
  EXPECT_EQ(nameless.code, ErrorCode::kMissingField);
  EXPECT_EQ(nameless.message, "packageInfo.creator.id: required field is missing");
  Thrown not_an_id = ThrownBy(
      [&] { NamedRefFromJson(holder, "environment", "importInfo", RefIdForm::kObjectId); });
  EXPECT_EQ(not_an_id.code, ErrorCode::kInvalidInput);
  EXPECT_TRUE(not_an_id.message.starts_with("importInfo.environment.id: 'https://bi-prod"))
      << not_an_id.message;
}

TEST(MigrationRecordParts, ACertificationChangeLeavesTheAbsentOperatorAndDateToTheCaller) {
  const CertificationOperator caller{"6C5D4E3F2A1B40C9D8E7F6A5B4C3D2E1", "prod-admin",
                                     "Prod Admin"};
  const Timestamp now = At("2025-06-04T00:00:00.000+0000");

  CertificationChange bare =
      CertificationChangeFromJson(Json::parse(R"({"status": "requested"})"), "certification");

  EXPECT_EQ(bare.status, CertificationStatus::kRequested);
  EXPECT_FALSE(bare.by.has_value());
  EXPECT_FALSE(bare.last_updated.has_value());
  EXPECT_EQ(bare.CompletedWith(caller, now),
            (Certification{CertificationStatus::kRequested, caller, now}));
  Thrown bad_date = ThrownBy([] {
    CertificationChangeFromJson(Json::parse(R"({"status": "certified", "lastUpdatedDate": "x"})"),
                                "certification");
  });
  EXPECT_EQ(bad_date.message,
            "certification.lastUpdatedDate: 'x' is not a timestamp; expected "
            "yyyy-MM-ddTHH:mm:ss.SSS+0000");
}

TEST(MigrationRecordParts, ARecordIsTheMigrationOfItsIdsOnly) {
  MigrationRecord record = RecordFromJson(FullRecord());

  RequireMigrationId(record, ParseMigrationId(kMigrationId));
  Thrown other = ThrownBy([&] {
    RequireMigrationId(record, {kPackageId, "00000000000000000000000000000000"});
  });

  EXPECT_EQ(other.code, ErrorCode::kInvalidInput);
  EXPECT_EQ(other.message,
            "packageInfo.id: '4A7C1E9B2D3F4051A6B7C8D9E0F1A2B3' with importInfo.id "
            "'9D2E4F6A8B0C41D3E5F70819A2B3C4D5' is not the migration "
            "4A7C1E9B2D3F4051A6B7C8D9E0F1A2B3:00000000000000000000000000000000");
}

}  // namespace
}  // namespace tessera::service::migration
