// The request bodies of the migration routes: each parser's reading of the public samples and of
// mstrio-py's bodies, its tolerances, and the field path every refusal names. Unit tests of
// api/migration/migration_requests.h; no server runs.
#include "api/migration/migration_requests.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.h"

namespace tessera::api {
namespace {

namespace migration = service::migration;

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

// POST body ---------------------------------------------------------------------------------------

// The public sample of an object migration's creation.
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

TEST(MigrationCreateBody, AnObjectMigrationReadsWithTargetAndContent) {
  migration::CreateRequest request = api::migration::ParseCreateBody(CreateObjectMigrationBody());

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

  migration::CreateRequest request = api::migration::ParseCreateBody(body);

  EXPECT_TRUE(request.target_environment.empty());
  EXPECT_TRUE(request.target_project.empty());
}

TEST(MigrationCreateBody, AbsentImportInfoAndTreeViewAreTolerated) {
  Json body = CreateObjectMigrationBody();
  body.erase("importInfo");
  body["packageInfo"].erase("treeView");

  migration::CreateRequest request = api::migration::ParseCreateBody(body);

  EXPECT_TRUE(request.target_environment.empty());
  EXPECT_EQ(request.tree_view, Json::object());
}

TEST(MigrationCreateBody, TreeViewAsAStringIsKeptVerbatim) {
  Json body = CreateObjectMigrationBody();
  body["packageInfo"]["treeView"] = "{\"nodes\":[1,2]}";

  EXPECT_EQ(api::migration::ParseCreateBody(body).tree_view, Json("{\"nodes\":[1,2]}"));
}

TEST(MigrationCreateBody, BareStringAclOnNewObjectsReachesTheSettingsParser) {
  Json body = CreateObjectMigrationBody();
  body["packageInfo"]["tocView"]["settings"]["aclOnNewObjects"] = "inherit_acl_as_dest_folder";

  EXPECT_EQ(
      api::migration::ParseCreateBody(body).settings.acl_on_new,
      std::vector<model::package::AclOnNew>{model::package::AclOnNew::kInheritAclAsDestFolder});
}

TEST(MigrationCreateBody, AProjectMergeReadsWithoutContent) {
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

  migration::CreateRequest request = api::migration::ParseCreateBody(body);

  EXPECT_EQ(request.purpose, model::package::PackagePurpose::kProjectMerge);
  EXPECT_TRUE(request.content.empty());
  EXPECT_EQ(request.settings.default_action, model::package::ConflictRule::kUseNewer);
  ASSERT_EQ(request.settings.folder_actions.size(), 1u);
  EXPECT_EQ(request.settings.object_type_actions.size(), 2u);
}

TEST(MigrationCreateBody, AConfigurationPackageReadsWithoutATargetProject) {
  Json body = Json::parse(R"({"packageInfo": {"type": "configuration",
    "name": "Analyst group and role",
    "tocView": {"settings": {"updateSchema": null, "aclOnReplacingObjects": "replace",
                             "aclOnNewObjects": ["keep_acl_as_source_object"],
                             "defaultAction": "replace"},
      "content": [{"id": "5B6C7D8E9FA04B1C2D3E4F5061728394", "name": "Analysts", "type": 34,
                   "action": "replace", "includeDependents": true}]}},
    "importInfo": {"environment": {"id": "https://bi-prod.example.com/TesseraLibrary/",
                                   "name": "bi-prod"}}})");

  migration::CreateRequest request = api::migration::ParseCreateBody(body);

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
      {"empty content", "/packageInfo/tocView/content", "[]", ErrorCode::kMissingField,
       "packageInfo.tocView.content: an object migration needs at least one object"},
      {"no content", "/packageInfo/tocView/content", "REMOVE", ErrorCode::kMissingField,
       "packageInfo.tocView.content: an object migration needs at least one object"},
      {"merge with content", "/packageInfo/purpose", R"("project_merge")", ErrorCode::kInvalidInput,
       "packageInfo.tocView.content: a project merge copies the whole project and takes no "
       "content; remove it"},
      {"bad action", "/packageInfo/tocView/content/1/action", R"("merge")",
       ErrorCode::kInvalidInput, "packageInfo.tocView.content[1].action: 'merge' is not..."},
      {"bad ACL option", "/packageInfo/tocView/settings/aclOnNewObjects", R"(["inherit"])",
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
    Thrown thrown = ThrownBy([&] { api::migration::ParseCreateBody(body); });
    EXPECT_EQ(thrown.code, error_case.code);
    ExpectMessage(thrown.message, error_case.message);
  }
}

TEST(MigrationCreateBody, AProjectMergeIsOfTypeProject) {
  Json body = CreateObjectMigrationBody();
  body["packageInfo"]["type"] = "configuration";
  body["packageInfo"]["purpose"] = "project_merge";
  body["packageInfo"]["tocView"] = Json::parse(R"({"settings": {}})");

  Thrown thrown = ThrownBy([&] { api::migration::ParseCreateBody(body); });

  EXPECT_EQ(thrown.code, ErrorCode::kInvalidInput);
  EXPECT_EQ(thrown.message,
            "packageInfo.type: a project merge needs a package of type project, not "
            "'configuration'");
}

// PATCH body --------------------------------------------------------------------------------------

TEST(MigrationPatchBody, MstrioRequestCarriesTargetAndStatus) {
  migration::PatchRequest request = api::migration::ParsePatchBody(Json::parse(R"({"importInfo": {
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

  migration::PatchRequest request = api::migration::ParsePatchBody(body);

  EXPECT_EQ(request.name, "Revenue metric to prod");
  EXPECT_EQ(request.target_project,
            (migration::NamedRef{"F1E2D3C4B5A697887766554433221100", "Sales Prod"}));
  EXPECT_FALSE(request.import_request_status);
  EXPECT_FALSE(request.validation_status);
}

TEST(MigrationPatchBody, ValidationUndoAndUnknownStatusesRead) {
  EXPECT_EQ(
      api::migration::ParsePatchBody(Json::parse(R"({"validation": {"status": "validating"}})"))
          .validation_status,
      migration::ValidationStatus::kValidating);
  EXPECT_EQ(api::migration::ParsePatchBody(
                Json::parse(R"({"importInfo": {"undoRequestStatus": "approved"}})"))
                .undo_request_status,
            migration::RequestStatus::kApproved);
  EXPECT_EQ(api::migration::ParsePatchBody(
                Json::parse(R"({"importInfo": {"importRequestStatus": "unknown"}})"))
                .import_request_status,
            migration::RequestStatus::kUnknown);
  migration::PatchRequest empty = api::migration::ParsePatchBody(Json::object());
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
    Thrown thrown = ThrownBy([&] { api::migration::ParsePatchBody(Json::parse(error_case.body)); });
    EXPECT_EQ(thrown.code, error_case.code);
    EXPECT_EQ(thrown.message, error_case.message);
  }
}

// Import PUT body ---------------------------------------------------------------------------------

Json ImportBody() {
  Json body = FullRecord();
  body["packageInfo"]["replicated"] = true;  // what mstrio-py's migrate() changes
  return body;
}

TEST(MigrationImportBody, TheReplicatedShowContentAllRecordIsTheImport) {
  migration::MigrationRecord record =
      api::migration::ParseImportBody(ImportBody(), migration::ParseMigrationId(kMigrationId));

  EXPECT_TRUE(record.package_info.replicated);
  EXPECT_EQ(record.package_info.status, migration::PackageStatus::kLocked);
  EXPECT_EQ(record.import_info.import_request_status, migration::RequestStatus::kApproved);
  EXPECT_EQ(record.package_info.toc_view.content.size(), 2u);
  EXPECT_EQ(record.import_info.project.id, "F1E2D3C4B5A697887766554433221100");
}

TEST(MigrationImportBody, TheBodyIdMatchesThePathInEitherCase) {
  Json body = ImportBody();
  body["id"] = "4a7c1e9b2d3f4051a6b7c8d9e0f1a2b3:9d2e4f6a8b0c41d3e5f70819a2b3c4d5";

  EXPECT_EQ(api::migration::ParseImportBody(body, migration::ParseMigrationId(kMigrationId))
                .import_info.id,
            kImportId);
}

TEST(MigrationImportBody, RefusalsNameTheField) {
  const BodyErrorCase cases[] = {
      {"not replicated", "/packageInfo/replicated", "false", ErrorCode::kInvalidInput,
       "packageInfo.replicated: must be true: send the source's record (showContent=all) with "
       "replicated set to true"},
      {"replicated absent", "/packageInfo/replicated", "REMOVE", ErrorCode::kInvalidInput,
       "packageInfo.replicated: must be true..."},
      {"another id", "/id",
       R"("4A7C1E9B2D3F4051A6B7C8D9E0F1A2B3:00000000000000000000000000000000")",
       ErrorCode::kInvalidInput,
       "id: '4A7C1E9B2D3F4051A6B7C8D9E0F1A2B3:00000000000000000000000000000000' is not the "
       "migration of the request path, "
       "4A7C1E9B2D3F4051A6B7C8D9E0F1A2B3:9D2E4F6A8B0C41D3E5F70819A2B3C4D5"},
      {"a malformed id", "/id", R"("4A7C")", ErrorCode::kInvalidInput,
       "id: '4A7C' is not the migration of the request path..."},
      {"the parts disagree", "/importInfo/id", R"("00000000000000000000000000000000")",
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
        [&] { api::migration::ParseImportBody(body, migration::ParseMigrationId(kMigrationId)); });
    EXPECT_EQ(thrown.code, error_case.code);
    ExpectMessage(thrown.message, error_case.message);
  }
}

// Certification body ------------------------------------------------------------------------------

const migration::CertificationOperator kCaller{"6C5D4E3F2A1B40C9D8E7F6A5B4C3D2E1", "prod-admin",
                                               "Prod Admin"};

TEST(MigrationCertificationBody, MstrioBareFormKeepsOperatorAndDate) {
  migration::Certification certification =
      api::migration::ParseCertificationBody(Json::parse(R"({"status": "certified",
        "operator": {"id": "AB12CD34EF5647A8B9C0D1E2F3A4B5C6", "name": "admin",
                     "fullName": "Administrator"},
        "lastUpdatedDate": "2025-06-03T08:00:00.000+0000"})"))
          .CompletedWith(kCaller, At("2025-06-04T00:00:00.000+0000"));

  EXPECT_EQ(certification, (migration::Certification{
                               migration::CertificationStatus::kCertified,
                               {"AB12CD34EF5647A8B9C0D1E2F3A4B5C6", "admin", "Administrator"},
                               At("2025-06-03T08:00:00.000+0000")}));
}

TEST(MigrationCertificationBody, DocsWrappedFormTakesCallerAndNow) {
  migration::Certification certification =
      api::migration::ParseCertificationBody(
          Json::parse(R"({"packageInfo": {"certification": {"status": "requested"}}})"))
          .CompletedWith(kCaller, At("2025-06-04T00:00:00.000+0000"));

  EXPECT_EQ(certification, (migration::Certification{migration::CertificationStatus::kRequested,
                                                     kCaller, At("2025-06-04T00:00:00.000+0000")}));
}

TEST(MigrationCertificationBody, StatusIsRequiredAndFromTheFourValues) {
  Thrown bad =
      ThrownBy([&] { api::migration::ParseCertificationBody(Json::parse(R"({"status": "ok"})")); });
  EXPECT_EQ(bad.code, ErrorCode::kInvalidInput);
  EXPECT_EQ(bad.message,
            "status: 'ok' is not a certification status; expected one of uncertified, requested, "
            "certified, rejected");
  Thrown missing = ThrownBy([&] {
    api::migration::ParseCertificationBody(
        Json::parse(R"({"packageInfo": {"certification": {}}})"));
  });
  EXPECT_EQ(missing.code, ErrorCode::kMissingField);
  EXPECT_EQ(missing.message, "packageInfo.certification.status: required field is missing");
  Thrown empty = ThrownBy([&] { api::migration::ParseCertificationBody(Json::object()); });
  EXPECT_EQ(empty.code, ErrorCode::kMissingField);
  EXPECT_EQ(empty.message, "status: required field is missing");
}

// Edit body
// -----------------------------------------------------------------------------------------

TEST(MigrationEditBody, TheBarePackageAndTheWrappedOneReadAlike) {
  Json package = CreateObjectMigrationBody()["packageInfo"];

  migration::CreateRequest bare = api::migration::ParseEditBody(package);
  migration::CreateRequest wrapped = api::migration::ParseEditBody({{"packageInfo", package}});

  for (const migration::CreateRequest* request : {&bare, &wrapped}) {
    EXPECT_EQ(request->name, "Revenue metric to prod");
    EXPECT_EQ(request->content.size(), 2);
    EXPECT_TRUE(request->target_project.empty());
  }
}

TEST(MigrationEditBody, ErrorsNameThePathUnderPackageInfo) {
  Json package = CreateObjectMigrationBody()["packageInfo"];
  package.erase("name");

  Thrown thrown = ThrownBy([&] { api::migration::ParseEditBody(package); });

  EXPECT_EQ(thrown.code, ErrorCode::kMissingField);
  EXPECT_EQ(thrown.message, "packageInfo.name: required field is missing");
}

// Validation body
// -----------------------------------------------------------------------------------

TEST(MigrationValidationBody, TheRecordAsTheSourceReturnedItNeedNotBeReplicated) {
  migration::MigrationRecord record =
      api::migration::ParseValidationBody(FullRecord(), migration::ParseMigrationId(kMigrationId));

  EXPECT_FALSE(record.package_info.replicated);
  EXPECT_EQ(record.package_info.toc_view.content.size(), 2u);
}

// Reuse and uploaded-file bodies -----------------------------------------------------------------

TEST(MigrationReuseBody, TheTargetIsReadLeniently) {
  api::migration::ReuseTarget target =
      api::migration::ParseReuseBody(Json::parse(R"({"importInfo": {
    "environment": {"id": "https://bi-prod.example.com/TesseraLibrary/", "name": "bi-prod"},
    "project": "not an object"}})"));

  EXPECT_EQ(target.environment,
            (migration::NamedRef{"https://bi-prod.example.com/TesseraLibrary/", "bi-prod"}));
  EXPECT_TRUE(target.project.empty());
  EXPECT_TRUE(api::migration::ParseReuseBody(Json::object()).environment.empty());
}

// The public sample of an import of an uploaded file.
Json SharedFileImportBody() {
  return Json::parse(R"({"packageInfo": {
      "storage": {"sharedFileStore": {"files": {"id": "bWlncmF0aW9ucy5wYWNrYWdlczpBQkNE"}}},
      "purpose": "migration_from_shared_file_store",
      "project": {"id": "F1E2D3C4B5A697887766554433221100", "name": "Sales Prod"}},
    "importInfo": {
      "environment": {"id": "https://bi-prod.example.com/TesseraLibrary/",
                      "name": "https://bi-prod.example.com/TesseraLibrary/"},
      "project": {"id": "F1E2D3C4B5A697887766554433221100", "name": "Sales Prod"}}})");
}

TEST(MigrationSharedFileImportBody, ThePurposeSaysTheBodyImportsAnUploadedFile) {
  EXPECT_TRUE(api::migration::IsSharedFileImport(SharedFileImportBody()));
  EXPECT_FALSE(api::migration::IsSharedFileImport(CreateObjectMigrationBody()));
  EXPECT_FALSE(
      api::migration::IsSharedFileImport(Json::parse(R"({"packageInfo": {"purpose": 7}})")));
}

TEST(MigrationSharedFileImportBody, TheFileIdAndTheTargetAreRead) {
  migration::SharedFileImportRequest request =
      api::migration::ParseSharedFileImportBody(SharedFileImportBody());

  EXPECT_EQ(request.file_id, "bWlncmF0aW9ucy5wYWNrYWdlczpBQkNE");
  EXPECT_EQ(request.target_project,
            (migration::NamedRef{"F1E2D3C4B5A697887766554433221100", "Sales Prod"}));
  EXPECT_EQ(request.target_environment.id, "https://bi-prod.example.com/TesseraLibrary/");
}

TEST(MigrationSharedFileImportBody, WithoutTheFileTheBodyIsRefused) {
  Json body = SharedFileImportBody();
  body["packageInfo"]["storage"]["sharedFileStore"] = Json::object();

  Thrown thrown = ThrownBy([&] { api::migration::ParseSharedFileImportBody(body); });

  EXPECT_EQ(thrown.code, ErrorCode::kMissingField);
  EXPECT_EQ(thrown.message,
            "packageInfo.storage.sharedFileStore.files.id: the uploaded file is required");
}

// Shared file description -------------------------------------------------------------------------

// The public sample of an uploaded file's metadata.
Json SharedFileBody() {
  return Json::parse(R"({"name": "Revenue metric to prod", "type": "migrations.packages",
    "extension": "mmp", "size": 48213,
    "sha256": "9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B2B0B822CD15D6C15B0F00A08",
    "environment": {"id": "https://bi-dev.example.com/TesseraLibrary",
                    "name": "https://bi-dev.example.com/TesseraLibrary"},
    "extraInfo": {"packageType": "project",
                  "packagePurpose": "migration_from_shared_file_store"}})");
}

TEST(MigrationSharedFileBody, ThePublicSampleReads) {
  migration::SharedFileDescription description =
      api::migration::ParseSharedFileBody(SharedFileBody());

  EXPECT_EQ(description.name, "Revenue metric to prod");
  EXPECT_EQ(description.size, 48213);
  EXPECT_EQ(description.sha256, "9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B2B0B822CD15D6C15B0F00A08");
  ASSERT_TRUE(description.environment.has_value());
  EXPECT_EQ(description.environment->id, "https://bi-dev.example.com/TesseraLibrary");
  EXPECT_EQ(description.package_type, model::package::PackageKind::kProject);
  EXPECT_EQ(description.package_purpose,
            model::package::PackagePurpose::kMigrationFromSharedFileStore);
}

TEST(MigrationSharedFileBody, NameExtensionAndEnvironmentMayBeLeftOut) {
  Json body = SharedFileBody();
  body.erase("name");
  body.erase("extension");
  body["environment"] = nullptr;

  migration::SharedFileDescription description = api::migration::ParseSharedFileBody(body);

  EXPECT_EQ(description.name, "");
  EXPECT_FALSE(description.environment.has_value());
}

TEST(MigrationSharedFileBody, EveryRefusalSaysWhatIsExpected) {
  const BodyErrorCase cases[] = {
      {"another type", "/type", R"("migrations.bundles")", ErrorCode::kInvalidInput,
       "type: 'migrations.bundles' is not supported; expected 'migrations.packages'"},
      {"another extension", "/extension", R"("zip")", ErrorCode::kInvalidInput,
       "extension: 'zip' is not supported; expected 'mmp'"},
      {"no size", "/size", "REMOVE", ErrorCode::kMissingField,
       "size: the file's size in bytes is required"},
      {"a short sha256", "/sha256", R"("9F86D081")", ErrorCode::kInvalidInput,
       "sha256: 64 hexadecimal digits are expected"},
      {"environment not an object", "/environment", R"("bi-dev")", ErrorCode::kInvalidInput,
       "environment: an object {id, name} is expected"},
      {"no extraInfo", "/extraInfo", "REMOVE", ErrorCode::kMissingField,
       "extraInfo: an object is required"},
      {"unknown package type", "/extraInfo/packageType", R"("cube")", ErrorCode::kInvalidInput,
       "extraInfo.packageType: 'cube' is not a package type; expected one of project, "
       "configuration, project_security"},
  };
  for (const BodyErrorCase& error_case : cases) {
    SCOPED_TRACE(error_case.what);
    Json body = Edited(SharedFileBody(), error_case);
    Thrown thrown = ThrownBy([&] { api::migration::ParseSharedFileBody(body); });
    EXPECT_EQ(thrown.code, error_case.code);
    ExpectMessage(thrown.message, error_case.message);
  }
}

// Storage location body ---------------------------------------------------------------------------

TEST(MigrationStorageLocationBody, AFileSystemLocationOrUnsetIsRead) {
  migration::StorageLocationRequest location = api::migration::ParseStorageLocationBody(Json::parse(
      R"({"sharedFileStore": {"type": "file_system", "location": "/mnt/packages",
                              "alias": "shared"}})"));
  migration::StorageLocationRequest unset = api::migration::ParseStorageLocationBody(
      Json::parse(R"({"sharedFileStore": {"type": "unset"}})"));

  EXPECT_FALSE(location.unset);
  EXPECT_EQ(location.location.string(), "/mnt/packages");
  EXPECT_EQ(location.alias, "shared");
  EXPECT_TRUE(unset.unset);
}

TEST(MigrationStorageLocationBody, OtherTypesRelativeDirectoriesAndMissingPartsAreRefused) {
  struct Case {
    const char* body;
    ErrorCode code;
    const char* message;
  };
  const Case cases[] = {
      {R"({})", ErrorCode::kMissingField, "sharedFileStore: an object is required"},
      {R"({"sharedFileStore": "file_system"})", ErrorCode::kMissingField,
       "sharedFileStore: an object is required"},
      {R"({"sharedFileStore": {"type": "S3", "location": "bucket"}})", ErrorCode::kInvalidInput,
       "sharedFileStore.type: 'S3' is not supported by this server; expected file_system or "
       "unset"},
      {R"({"sharedFileStore": {"type": "file_system", "location": "relative/dir"}})",
       ErrorCode::kInvalidInput,
       "sharedFileStore.location: 'relative/dir' is not an absolute directory"},
  };
  for (const Case& error_case : cases) {
    SCOPED_TRACE(error_case.body);
    Thrown thrown =
        ThrownBy([&] { api::migration::ParseStorageLocationBody(Json::parse(error_case.body)); });
    EXPECT_EQ(thrown.code, error_case.code);
    EXPECT_EQ(thrown.message, error_case.message);
  }
}

}  // namespace
}  // namespace tessera::api
