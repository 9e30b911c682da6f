// The migration state machine and its refusals: every guard row answers with its code and
// message and leaves the record untouched; legal transitions change exactly what they should, and
// asking for the current state again changes nothing. (The refusals of an import body that is
// not replicated or not the path's migration are the body parser's:
// tests/api/migration/migration_requests_test.cc.)
#include "service/migration/migration_state.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "core/error.h"

namespace tessera::service::migration {
namespace {

constexpr char kPackageId[] = "4A7C1E9B2D3F4051A6B7C8D9E0F1A2B3";
constexpr char kImportId[] = "9D2E4F6A8B0C41D3E5F70819A2B3C4D5";
constexpr char kSourceProject[] = "0C1D2E3F405162738495A6B7C8D9EAFB";
constexpr char kTargetProject[] = "F1E2D3C4B5A697887766554433221100";

Timestamp At(std::string_view text) { return ParseTimestamp(text).value(); }

const Timestamp kCreated = At("2025-06-02T09:14:05.120+0000");
const Timestamp kNow = At("2025-06-02T10:00:00.000+0000");

// A source record: package `status`, import request `request`.
migration::MigrationRecord Source(
    migration::PackageStatus status, migration::RequestStatus request,
    model::package::PackageKind type = model::package::PackageKind::kProject) {
  migration::MigrationRecord record;
  migration::PackageInfo& package = record.package_info;
  package.id = kPackageId;
  package.type = type;
  package.name = "Revenue metric to prod";
  package.status = status;
  package.creation_date = package.last_updated_date = kCreated;
  if (type != model::package::PackageKind::kConfiguration)
    package.project = {kSourceProject, "Sales Dev"};
  migration::ImportInfo& imp = record.import_info;
  imp.id = kImportId;
  imp.import_request_status = request;
  imp.creation_date = imp.last_updated_date = kCreated;
  imp.environment = {"https://bi-prod.example.com/TesseraLibrary/", "bi-prod"};
  if (type != model::package::PackageKind::kConfiguration)
    imp.project = {kTargetProject, "Sales Prod"};
  return record;
}

// A target record after an import: import `status`, undo request `undo`, an undo package.
migration::MigrationRecord Target(
    migration::ImportStatus status, migration::RequestStatus undo,
    model::package::PackageKind type = model::package::PackageKind::kProject) {
  migration::MigrationRecord record =
      Source(migration::PackageStatus::kLocked, migration::RequestStatus::kApproved, type);
  record.package_info.replicated = true;
  record.import_info.status = status;
  record.import_info.undo_request_status = undo;
  record.import_info.undo_storage =
      migration::StoredFile{3107,
                            "mstr/shared/migrations/undo/4A7C1E9B2D3F4051A6B7C8D9E0F1A2B3/"
                            "9D2E4F6A8B0C41D3E5F70819A2B3C4D5.mmp"};
  return record;
}

migration::MigrationRecord Validating() {
  migration::MigrationRecord record =
      Source(migration::PackageStatus::kCreated, migration::RequestStatus::kPending);
  record.validation =
      Validation{migration::ValidationStatus::kValidating, 0, "", kCreated, kCreated};
  return record;
}

const std::optional<std::string> kTargetHeader = std::string(kTargetProject);
const std::optional<std::string> kNoHeader;

struct GuardRow {
  const char* row;
  std::function<migration::MigrationRecord()> record;
  std::function<void(migration::MigrationRecord&)> act;
  ErrorCode code;
  std::string message;
};

auto ImportRequest(migration::RequestStatus status) {
  return [status](migration::MigrationRecord& record) {
    migration::ApplyImportRequestStatus(record, status, kNow);
  };
}

auto UndoRequest(migration::RequestStatus status, std::optional<std::string> header = kTargetHeader,
                 bool has_undo_package = true) {
  return [=](migration::MigrationRecord& record) {
    migration::ApplyUndoRequestStatus(record, status, header, has_undo_package, kNow);
  };
}

auto SourceWith(migration::PackageStatus status, migration::RequestStatus request) {
  return [=] { return Source(status, request); };
}

auto TargetWith(migration::ImportStatus status, migration::RequestStatus undo,
                model::package::PackageKind type = model::package::PackageKind::kProject) {
  return [=] { return Target(status, undo, type); };
}

TEST(MigrationState, EveryGuardRowAnswersWithItsCodeAndMessageAndChangesNothing) {
  using enum migration::PackageStatus;
  using enum migration::ImportStatus;
  using RS = migration::RequestStatus;
  const ErrorCode k006 = ErrorCode::kInvalidInput;
  const std::string kNotCreated = "The package is not in status created";
  const std::string kNotRequested = "The import must be requested before it can be approved";
  const std::string kUndoNotRequested = "The undo must be requested before it can be approved";
  const std::string kInProgress = "Operation in progress";
  const GuardRow rows[] = {
      {"12 creating", SourceWith(kCreating, RS::kPending), ImportRequest(RS::kRequested), k006,
       kNotCreated},
      {"12 create_failed", SourceWith(kCreateFailed, RS::kPending), ImportRequest(RS::kRequested),
       k006, kNotCreated},
      {"12 deleted",
       [] {
         migration::MigrationRecord record = Source(kCreated, RS::kPending);
         record.package_info.deleted = true;
         return record;
       },
       ImportRequest(RS::kRequested), k006, kNotCreated},
      {"12 after rejection, rebuilding", SourceWith(kCreating, RS::kRejected),
       ImportRequest(RS::kRequested), k006, kNotCreated},
      {"13 approved while pending", SourceWith(kCreated, RS::kPending),
       ImportRequest(RS::kApproved), k006, kNotRequested},
      {"13 approved while rejected", SourceWith(kCreated, RS::kRejected),
       ImportRequest(RS::kApproved), k006, kNotRequested},
      {"15 approved to requested", SourceWith(kLocked, RS::kApproved),
       ImportRequest(RS::kRequested), k006,
       "The import request cannot go back from approved to requested"},
      {"15 approved to pending", SourceWith(kLocked, RS::kApproved), ImportRequest(RS::kPending),
       k006, "The import request cannot go back from approved to pending"},
      {"15 requested to pending", SourceWith(kCreated, RS::kRequested), ImportRequest(RS::kPending),
       k006, "The import request cannot go back from requested to pending"},
      {"T6 rejected while pending", SourceWith(kCreated, RS::kPending),
       ImportRequest(RS::kRejected), k006,
       "Only a requested import can be rejected; the import request is pending"},
      {"T6 rejected after approval", SourceWith(kLocked, RS::kApproved),
       ImportRequest(RS::kRejected), k006,
       "Only a requested import can be rejected; the import request is approved"},
      {"unknown is not a request", SourceWith(kCreated, RS::kPending), ImportRequest(RS::kUnknown),
       k006,
       "importInfo.importRequestStatus: 'unknown' cannot be requested; expected one of "
       "requested, approved, rejected"},
      {"16 undo on the source", SourceWith(kLocked, RS::kApproved), UndoRequest(RS::kRequested),
       k006, "Undo must be requested on the target environment"},
      {"19 requested, not approved", SourceWith(kCreated, RS::kRequested),
       [](migration::MigrationRecord& record) { migration::CheckImportable(record); }, k006,
       "The import has not been approved on the source environment"},
      {"19 approved, package not locked", SourceWith(kCreated, RS::kApproved),
       [](migration::MigrationRecord& record) { migration::CheckImportable(record); }, k006,
       "The import has not been approved on the source environment"},
      {"20 already imported", TargetWith(kImported, RS::kPending),
       [](migration::MigrationRecord& record) { migration::CheckNotYetImported(record); }, k006,
       "Migration already imported; reuse the package to import again"},
      {"20 import failed", TargetWith(kImportFailed, RS::kPending),
       [](migration::MigrationRecord& record) { migration::CheckNotYetImported(record); }, k006,
       "Migration already imported; reuse the package to import again"},
      {"24 deleted on the source",
       [] {
         migration::MigrationRecord record = Source(kLocked, RS::kApproved);
         record.package_info.deleted = true;
         return record;
       },
       [](migration::MigrationRecord& record) { migration::CheckImportable(record); }, k006,
       "The shared file cannot be accessed. It may be deleted or the storage location cannot "
       "be accessed."},
      {"28 import failed", TargetWith(kImportFailed, RS::kPending), UndoRequest(RS::kRequested),
       k006, "Undo needs an imported migration; its status is import_failed"},
      {"28 still importing", TargetWith(kImporting, RS::kPending), UndoRequest(RS::kRequested),
       k006, "Undo needs an imported migration; its status is importing"},
      {"28 undo running", TargetWith(kUndoing, RS::kApproved), UndoRequest(RS::kRequested), k006,
       "Undo needs an imported migration; its status is undoing"},
      {"29 no undo package", TargetWith(kImported, RS::kPending),
       UndoRequest(RS::kRequested, kTargetHeader, false), k006,
       "No undo package is available for this migration"},
      {"29 undo package gone before approval", TargetWith(kImported, RS::kRequested),
       UndoRequest(RS::kApproved, kTargetHeader, false), k006,
       "No undo package is available for this migration"},
      {"30 approved while pending", TargetWith(kImported, RS::kPending), UndoRequest(RS::kApproved),
       k006, kUndoNotRequested},
      {"30 approved again after undo_failed", TargetWith(kUndoFailed, RS::kApproved),
       UndoRequest(RS::kApproved), k006, kUndoNotRequested},
      {"31 no project header", TargetWith(kImported, RS::kRequested),
       UndoRequest(RS::kApproved, kNoHeader), ErrorCode::kMissingParameter,
       "X-MSTR-ProjectID header is required to approve the undo of a project package"},
      {"31 empty project header", TargetWith(kImported, RS::kRequested),
       UndoRequest(RS::kApproved, std::string()), ErrorCode::kMissingParameter,
       "X-MSTR-ProjectID header is required to approve the undo of a project package"},
      {"31 other project", TargetWith(kImported, RS::kRequested),
       UndoRequest(RS::kApproved, std::string(kSourceProject)), k006,
       "X-MSTR-ProjectID header: project '0C1D2E3F405162738495A6B7C8D9EAFB' is not the target "
       "project F1E2D3C4B5A697887766554433221100 of this migration"},
      {"31 configuration with a header",
       TargetWith(kImported, RS::kRequested, model::package::PackageKind::kConfiguration),
       UndoRequest(RS::kApproved, std::string(kTargetProject)), k006,
       "A configuration package is undone without a project; do not send the X-MSTR-ProjectID "
       "header"},
      {"32 requested after undo_success", TargetWith(kUndoSuccess, RS::kApproved),
       UndoRequest(RS::kRequested), k006,
       "The migration has already been undone; reuse the package to import it again"},
      {"32 approved after undo_success", TargetWith(kUndoSuccess, RS::kApproved),
       UndoRequest(RS::kApproved), k006,
       "The migration has already been undone; reuse the package to import it again"},
      {"undo request never goes back", TargetWith(kImported, RS::kRequested),
       UndoRequest(RS::kPending), k006,
       "The undo request cannot go back from requested to pending"},
      {"35 creating", SourceWith(kCreating, RS::kPending),
       [](migration::MigrationRecord& record) { migration::CheckDeletable(record); }, k006,
       kInProgress},
      {"35 importing", TargetWith(kImporting, RS::kPending),
       [](migration::MigrationRecord& record) { migration::CheckDeletable(record); }, k006,
       kInProgress},
      {"35 undoing", TargetWith(kUndoing, RS::kApproved),
       [](migration::MigrationRecord& record) { migration::CheckDeletable(record); }, k006,
       kInProgress},
      {"35 validating", Validating,
       [](migration::MigrationRecord& record) { migration::CheckDeletable(record); }, k006,
       kInProgress},
      {"36 rename after approval", SourceWith(kLocked, RS::kApproved),
       [](migration::MigrationRecord& record) { Rename(record, "Another name", kNow); }, k006,
       "The package name can no longer change: the import was approved"},
      {"36 retarget after approval", SourceWith(kLocked, RS::kApproved),
       [](migration::MigrationRecord& record) {
         migration::Retarget(
             record, migration::NamedRef{"https://bi-qa.example.com/TesseraLibrary/", "bi-qa"},
             std::nullopt, kNow);
       },
       k006, "The target environment and project can no longer change: the import was approved"},
      {"36 edit while requested", SourceWith(kCreated, RS::kRequested),
       [](migration::MigrationRecord& record) { migration::CheckEditable(record); }, k006,
       "A package can be edited on its source environment while its status is created or "
       "create_failed and its import is not requested or approved; its status is created, the "
       "import request is requested"},
      {"36 edit while creating", SourceWith(kCreating, RS::kPending),
       [](migration::MigrationRecord& record) { migration::BeginRebuild(record, kNow); }, k006,
       "A package can be edited on its source environment while its status is created or "
       "create_failed and its import is not requested or approved; its status is creating, the "
       "import request is pending"},
      {"36 certify while locked", SourceWith(kLocked, RS::kApproved),
       [](migration::MigrationRecord& record) { migration::CheckCertifiable(record); }, k006,
       "A package can be certified only while its status is created; its status is locked"},
      {"T17 validate while creating", SourceWith(kCreating, RS::kPending),
       [](migration::MigrationRecord& record) { migration::StartValidation(record, kNow); }, k006,
       "Validation needs a package in status created; its status is creating"},
      {"T15 reuse a failed package", SourceWith(kCreateFailed, RS::kPending),
       [](migration::MigrationRecord& record) { migration::CheckReusable(record); }, k006,
       "A package can be reused while its status is created or locked; its status is "
       "create_failed"},
      {"retarget a configuration package to a project",
       [] { return Source(kCreated, RS::kPending, model::package::PackageKind::kConfiguration); },
       [](migration::MigrationRecord& record) {
         migration::Retarget(record, std::nullopt,
                             migration::NamedRef{kTargetProject, "Sales Prod"}, kNow);
       },
       k006,
       "importInfo.project: a configuration package has no target project; send {} or leave it "
       "out"},
  };
  for (const GuardRow& row : rows) {
    SCOPED_TRACE(row.row);
    migration::MigrationRecord record = row.record();
    std::string before = ToJson(record).dump();
    try {
      row.act(record);
      ADD_FAILURE() << "no error";
    } catch (const Error& error) {
      EXPECT_EQ(error.code(), row.code);
      EXPECT_EQ(error.message(), row.message);
    }
    EXPECT_EQ(ToJson(record).dump(), before);
  }
}

// Import request (source) ---------------------------------------------------------------------

TEST(MigrationState, RequestingAnImportOfACreatedPackageDatesOnlyTheImport) {
  migration::MigrationRecord record =
      Source(migration::PackageStatus::kCreated, migration::RequestStatus::kPending);

  EXPECT_TRUE(
      migration::ApplyImportRequestStatus(record, migration::RequestStatus::kRequested, kNow));

  EXPECT_EQ(record.import_info.import_request_status, migration::RequestStatus::kRequested);
  EXPECT_EQ(record.package_info.status, migration::PackageStatus::kCreated);
  EXPECT_EQ(record.import_info.last_updated_date, kNow);
  EXPECT_EQ(record.package_info.last_updated_date, kCreated);
}

TEST(MigrationState, ApprovingLocksThePackage) {
  migration::MigrationRecord record =
      Source(migration::PackageStatus::kCreated, migration::RequestStatus::kRequested);

  EXPECT_TRUE(
      migration::ApplyImportRequestStatus(record, migration::RequestStatus::kApproved, kNow));

  EXPECT_EQ(record.import_info.import_request_status, migration::RequestStatus::kApproved);
  EXPECT_EQ(record.package_info.status, migration::PackageStatus::kLocked);
  EXPECT_EQ(record.package_info.last_updated_date, kNow);
  EXPECT_EQ(record.import_info.last_updated_date, kNow);
}

TEST(MigrationState, TheSameImportRequestStatusAgainChangesNothingNotEvenADate) {
  const std::pair<migration::PackageStatus, migration::RequestStatus> states[] = {
      {migration::PackageStatus::kCreated, migration::RequestStatus::kPending},
      {migration::PackageStatus::kCreated, migration::RequestStatus::kRequested},
      {migration::PackageStatus::kLocked, migration::RequestStatus::kApproved},
      {migration::PackageStatus::kCreated, migration::RequestStatus::kRejected},
  };
  for (const auto& [package_status, request] : states) {
    SCOPED_TRACE(migration::RequestStatusName(request));
    migration::MigrationRecord record = Source(package_status, request);
    std::string before = ToJson(record).dump();

    EXPECT_FALSE(migration::ApplyImportRequestStatus(record, request, kNow));

    EXPECT_EQ(ToJson(record).dump(), before);
  }
}

TEST(MigrationState, ARejectedImportCanBeRequestedAgain) {
  migration::MigrationRecord record =
      Source(migration::PackageStatus::kCreated, migration::RequestStatus::kRequested);

  migration::ApplyImportRequestStatus(record, migration::RequestStatus::kRejected, kNow);
  EXPECT_EQ(record.import_info.import_request_status, migration::RequestStatus::kRejected);
  EXPECT_EQ(record.package_info.status, migration::PackageStatus::kCreated);  // still editable
  migration::ApplyImportRequestStatus(record, migration::RequestStatus::kRequested, kNow);

  EXPECT_EQ(record.import_info.import_request_status, migration::RequestStatus::kRequested);
}

// Rename, retarget, validation, edit, certification ----------------------------------------------

TEST(MigrationState, RenameAndRetargetWorkUntilApproval) {
  migration::MigrationRecord record =
      Source(migration::PackageStatus::kCreated, migration::RequestStatus::kRequested);

  EXPECT_TRUE(Rename(record, "Revenue v2", kNow));
  EXPECT_TRUE(migration::Retarget(
      record, migration::NamedRef{"https://bi-qa.example.com/TesseraLibrary/", "bi-qa"},
      migration::NamedRef{"00112233445566778899AABBCCDDEEFF", "Sales QA"}, kNow));

  EXPECT_EQ(record.package_info.name, "Revenue v2");
  EXPECT_EQ(record.import_info.environment.id, "https://bi-qa.example.com/TesseraLibrary/");
  EXPECT_EQ(record.import_info.project,
            (migration::NamedRef{"00112233445566778899AABBCCDDEEFF", "Sales QA"}));
  EXPECT_EQ(record.package_info.last_updated_date, kNow);
  EXPECT_EQ(record.import_info.last_updated_date, kNow);
}

TEST(MigrationState, TheCurrentNameAndTargetSentBackAfterApprovalChangeNothing) {
  migration::MigrationRecord record =
      Source(migration::PackageStatus::kLocked, migration::RequestStatus::kApproved);
  std::string before = ToJson(record).dump();

  EXPECT_FALSE(Rename(record, "Revenue metric to prod", kNow));
  EXPECT_FALSE(migration::Retarget(
      record, migration::NamedRef{"https://bi-prod.example.com/TesseraLibrary/", "bi-prod"},
      migration::NamedRef{kTargetProject, ""}, kNow));

  EXPECT_EQ(ToJson(record).dump(), before);
}

TEST(MigrationState, StartingValidationOfACreatedPackage) {
  migration::MigrationRecord record =
      Source(migration::PackageStatus::kCreated, migration::RequestStatus::kPending);

  EXPECT_TRUE(migration::StartValidation(record, kNow));
  EXPECT_FALSE(migration::StartValidation(record, At("2025-06-02T10:00:01.000+0000")));

  ASSERT_TRUE(record.validation);
  EXPECT_EQ(ShortForm(record, true)["validation"].dump(),
            R"({"status":"validating","progress":0})");
  EXPECT_EQ(record.validation->creation_date, kNow);
  EXPECT_EQ(record.validation->last_update_date, kNow);
}

TEST(MigrationState, ValidationOutcomeIsStored) {
  migration::MigrationRecord record = Validating();

  migration::MarkValidated(record, false, "Project Sales Prod is not related to Sales Dev", kNow);

  EXPECT_EQ(record.validation->status, migration::ValidationStatus::kValidationFailed);
  EXPECT_EQ(record.validation->message, "Project Sales Prod is not related to Sales Dev");
  EXPECT_EQ(record.validation->last_update_date, kNow);
}

TEST(MigrationState, EditingRebuildsACreatedOrFailedPackage) {
  migration::MigrationRecord record =
      Source(migration::PackageStatus::kCreated, migration::RequestStatus::kRejected);
  record.package_info.storage =
      migration::StoredFile{48213, "mstr/shared/migrations/packages/x.mmp"};
  record.package_info.existing = true;
  record.package_info.progress = 100;

  migration::BeginRebuild(record, kNow);

  EXPECT_EQ(record.package_info.status, migration::PackageStatus::kCreating);
  EXPECT_EQ(record.package_info.progress, 0);
  EXPECT_FALSE(record.package_info.storage);
  EXPECT_FALSE(record.package_info.existing);
  EXPECT_NO_THROW(migration::CheckEditable(
      Source(migration::PackageStatus::kCreateFailed, migration::RequestStatus::kPending)));
}

TEST(MigrationState, CertifyingACreatedPackageStoresTheCertification) {
  migration::MigrationRecord record =
      Source(migration::PackageStatus::kCreated, migration::RequestStatus::kPending);
  migration::Certification certification{
      migration::CertificationStatus::kCertified,
      {"AB12CD34EF5647A8B9C0D1E2F3A4B5C6", "admin", "Administrator"},
      kNow};

  migration::Certify(record, certification, kNow);

  EXPECT_EQ(record.package_info.certification, certification);
  EXPECT_EQ(record.package_info.last_updated_date, kNow);
}

// Creation, reuse, import, undo
// ----------------------------------------------------------------------

TEST(MigrationState, ABuiltPackageIsCreatedWithItsStorage) {
  migration::MigrationRecord record =
      Source(migration::PackageStatus::kCreating, migration::RequestStatus::kPending);

  migration::MarkCreated(
      record,
      {48213, "mstr/shared/migrations/packages/2025-06-02/E7D6C5B4A39281706F5E4D3C2B1A0F9E.mmp"},
      kNow);

  Json package = ToJson(record)["packageInfo"];
  EXPECT_EQ(package["status"], "created");
  EXPECT_EQ(package["progress"], 100);
  EXPECT_EQ(package["existing"], true);
  EXPECT_EQ(package["storage"].dump(),
            R"({"size":48213,"path":"mstr/shared/migrations/packages/2025-06-02/)"
            R"(E7D6C5B4A39281706F5E4D3C2B1A0F9E.mmp"})");
}

TEST(MigrationState, AFailedBuildKeepsNoStorageAndSaysWhy) {
  migration::MigrationRecord record =
      Source(migration::PackageStatus::kCreating, migration::RequestStatus::kPending);

  migration::MarkCreateFailed(record, "Package size 2251799813 bytes exceeds the 2 GB limit", kNow);

  Json package = ToJson(record)["packageInfo"];
  EXPECT_EQ(package["status"], "create_failed");
  EXPECT_EQ(package["storage"], Json::object());
  EXPECT_EQ(package["existing"], false);
  EXPECT_EQ(package["message"], "Package size 2251799813 bytes exceeds the 2 GB limit");
}

TEST(MigrationState, ReusingAPackageMakesALockedApprovedImport) {
  migration::MigrationRecord source =
      Source(migration::PackageStatus::kLocked, migration::RequestStatus::kApproved);
  source.import_info.status = migration::ImportStatus::kImported;

  migration::MigrationRecord reused =
      migration::ReuseRecord(source, "00112233445566778899AABBCCDDEEFF",
                             {"https://bi-prod.example.com/TesseraLibrary/", "bi-prod"},
                             {kTargetProject, "Sales Prod"}, kNow);

  EXPECT_EQ(migration::FormatMigrationId(IdOf(reused)),
            "4A7C1E9B2D3F4051A6B7C8D9E0F1A2B3:00112233445566778899AABBCCDDEEFF");
  EXPECT_EQ(reused.package_info.status, migration::PackageStatus::kLocked);
  EXPECT_EQ(reused.import_info.import_request_status, migration::RequestStatus::kApproved);
  EXPECT_EQ(reused.import_info.status, migration::ImportStatus::kPending);
  EXPECT_EQ(reused.import_info.creation_date, kNow);
  EXPECT_NO_THROW(migration::CheckImportable(reused));
}

TEST(MigrationState, BeginningAnImportResetsTheImportPart) {
  migration::MigrationRecord record =
      Source(migration::PackageStatus::kLocked, migration::RequestStatus::kApproved);
  record.package_info.replicated = true;

  migration::BeginImport(record, {"6C5D4E3F2A1B40C9D8E7F6A5B4C3D2E1", "prod-admin"},
                         {"https://bi-prod.example.com/TesseraLibrary/", "bi-prod"},
                         {kTargetProject, "Sales Prod"}, kNow);

  EXPECT_EQ(ShortForm(record, false)["importInfo"].dump(),
            R"({"id":"9D2E4F6A8B0C41D3E5F70819A2B3C4D5","status":"importing",)"
            R"("importRequestStatus":"approved","undoRequestStatus":"pending","progress":0})");
  EXPECT_EQ(record.import_info.creator.name, "prod-admin");
  EXPECT_EQ(record.import_info.creation_date, kNow);
  EXPECT_NO_THROW(migration::CheckNotYetImported(
      Source(migration::PackageStatus::kLocked, migration::RequestStatus::kApproved)));
}

TEST(MigrationState, ImportOutcomesSetStatusAndUndoStorage) {
  migration::MigrationRecord imported =
      Target(migration::ImportStatus::kImporting, migration::RequestStatus::kPending);
  migration::MigrationRecord failed = imported;

  migration::MarkImported(imported,
                          migration::StoredFile{3107, "mstr/shared/migrations/undo/a/b.mmp"}, kNow);
  migration::MarkImportFailed(failed, "Cannot delete 'Old Margin'", kNow);

  EXPECT_EQ(imported.import_info.status, migration::ImportStatus::kImported);
  EXPECT_EQ(imported.import_info.progress, 100);
  EXPECT_EQ(imported.import_info.undo_storage,
            (migration::StoredFile{3107, "mstr/shared/migrations/undo/a/b.mmp"}));
  EXPECT_EQ(failed.import_info.status, migration::ImportStatus::kImportFailed);
  EXPECT_FALSE(failed.import_info.undo_storage);
  EXPECT_EQ(failed.import_info.message, "Cannot delete 'Old Margin'");
}

TEST(MigrationState, UndoIsRequestedThenApprovedWithTheTargetProject) {
  migration::MigrationRecord record =
      Target(migration::ImportStatus::kImported, migration::RequestStatus::kPending);

  EXPECT_TRUE(migration::ApplyUndoRequestStatus(record, migration::RequestStatus::kRequested,
                                                kNoHeader, true, kNow));
  EXPECT_EQ(record.import_info.status,
            migration::ImportStatus::kImported);  // a requested undo stays imported
  EXPECT_TRUE(migration::ApplyUndoRequestStatus(record, migration::RequestStatus::kApproved,
                                                std::string("f1e2d3c4b5a697887766554433221100"),
                                                true, kNow));

  EXPECT_EQ(record.import_info.undo_request_status, migration::RequestStatus::kApproved);
  EXPECT_EQ(record.import_info.status, migration::ImportStatus::kUndoing);
  EXPECT_EQ(record.import_info.progress, 0);
  EXPECT_EQ(record.import_info.last_updated_date, kNow);
}

TEST(MigrationState, AConfigurationPackageIsUndoneWithoutAProject) {
  migration::MigrationRecord record =
      Target(migration::ImportStatus::kImported, migration::RequestStatus::kRequested,
             model::package::PackageKind::kConfiguration);

  migration::ApplyUndoRequestStatus(record, migration::RequestStatus::kApproved, kNoHeader, true,
                                    kNow);

  EXPECT_EQ(record.import_info.status, migration::ImportStatus::kUndoing);
}

TEST(MigrationState, TheSameUndoRequestAgainChangesNothing) {
  const std::pair<migration::ImportStatus, migration::RequestStatus> states[] = {
      {migration::ImportStatus::kImported, migration::RequestStatus::kPending},
      {migration::ImportStatus::kImported, migration::RequestStatus::kRequested},
      {migration::ImportStatus::kUndoing, migration::RequestStatus::kApproved},
  };
  for (const auto& [status, undo] : states) {
    SCOPED_TRACE(migration::RequestStatusName(undo));
    migration::MigrationRecord record = Target(status, undo);
    std::string before = ToJson(record).dump();

    EXPECT_FALSE(migration::ApplyUndoRequestStatus(record, undo, kTargetHeader, true, kNow));

    EXPECT_EQ(ToJson(record).dump(), before);
  }
}

TEST(MigrationState, TheSourcesOwnUndoStatusSentBackChangesNothing) {
  migration::MigrationRecord record =
      Source(migration::PackageStatus::kCreated, migration::RequestStatus::kPending);

  EXPECT_FALSE(migration::ApplyUndoRequestStatus(record, migration::RequestStatus::kPending,
                                                 kNoHeader, false, kNow));
}

TEST(MigrationState, AfterAFailedUndoANewCycleMayStart) {
  migration::MigrationRecord record =
      Target(migration::ImportStatus::kUndoing, migration::RequestStatus::kApproved);
  migration::MarkUndone(record, false, "Cannot delete 'Margin': used by 1 object", kNow);
  EXPECT_EQ(record.import_info.status, migration::ImportStatus::kUndoFailed);

  migration::ApplyUndoRequestStatus(record, migration::RequestStatus::kRequested, kNoHeader, true,
                                    kNow);
  migration::ApplyUndoRequestStatus(record, migration::RequestStatus::kApproved, kTargetHeader,
                                    true, kNow);

  EXPECT_EQ(record.import_info.status, migration::ImportStatus::kUndoing);
}

TEST(MigrationState, ASuccessfulUndoKeepsItsUndoStorage) {
  migration::MigrationRecord record =
      Target(migration::ImportStatus::kUndoing, migration::RequestStatus::kApproved);

  migration::MarkUndone(record, true, "", kNow);

  EXPECT_EQ(record.import_info.status, migration::ImportStatus::kUndoSuccess);
  EXPECT_EQ(record.import_info.progress, 100);
  EXPECT_TRUE(record.import_info.undo_storage);  // an undone import keeps its undo storage
}

TEST(MigrationState, FinishedRecordsCanBeDeleted) {
  EXPECT_NO_THROW(migration::CheckDeletable(
      Source(migration::PackageStatus::kCreated, migration::RequestStatus::kPending)));
  EXPECT_NO_THROW(migration::CheckDeletable(
      Source(migration::PackageStatus::kCreateFailed, migration::RequestStatus::kPending)));
  EXPECT_NO_THROW(migration::CheckDeletable(
      Target(migration::ImportStatus::kImported, migration::RequestStatus::kPending)));
  EXPECT_NO_THROW(migration::CheckDeletable(
      Target(migration::ImportStatus::kUndoSuccess, migration::RequestStatus::kApproved)));
}

}  // namespace
}  // namespace tessera::service::migration
