// The source's view of a validation, import or undo run on the target: which outcome in the
// status file it shows, when it keeps its own, and when it gives up on a target gone silent.
#include "service/migration/status_sync.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <fstream>

#include "core/ids.h"
#include "core/time.h"
#include "support/temp_dir.h"

namespace tessera::testing {
namespace {

using namespace std::chrono_literals;
using service::migration::Validation;
using service::migration::ValidationStatus;

class MigrationStatusSync : public ::testing::Test {
 protected:
  MigrationStatusSync() : location_(dir_.path()) {
    record_.package_info.id = NewObjectId();
    record_.import_info.id = NewObjectId();
    record_.validation = Validation{ValidationStatus::kValidating, 0, "", now_, now_};
  }

  Validation Finished(Timestamp begun, bool success) {
    return {success ? ValidationStatus::kValidated : ValidationStatus::kValidationFailed,
            success ? 100 : 0, success ? "3 object(s) would be imported" : "Cannot delete 'X'",
            begun, begun + 2s};
  }

  std::filesystem::path StatusFile() {
    return location_.Resolve(
        storage::package::StatusFileRelativePath(record_.package_info.id, record_.import_info.id));
  }

  TempDir dir_;
  storage::package::PackageLocation location_;
  Timestamp now_ = Now();
  service::migration::MigrationRecord record_;
};

TEST_F(MigrationStatusSync, WithoutAStatusFileTheSourceShowsItsOwnValidation) {
  auto shown = service::migration::WithTargetStatus(location_, record_);
  EXPECT_EQ(shown.validation->status, ValidationStatus::kValidating);
}

TEST_F(MigrationStatusSync, ATargetOutcomeBegunJustBeforeTheSourceWasMarkedIsShown) {
  service::migration::WriteValidationStatus(location_, service::migration::IdOf(record_),
                                            Finished(now_ - 30s, false));

  auto shown = service::migration::WithTargetStatus(location_, record_);

  EXPECT_EQ(shown.validation->status, ValidationStatus::kValidationFailed);
  EXPECT_EQ(shown.validation->message, "Cannot delete 'X'");
  EXPECT_EQ(ToUnixMillis(shown.validation->creation_date), ToUnixMillis(now_ - 30s));
}

TEST_F(MigrationStatusSync, AnOutcomeOlderThanTheClockToleranceIsAPreviousRunAndIsNotShown) {
  service::migration::WriteValidationStatus(location_, service::migration::IdOf(record_),
                                            Finished(now_ - 6min, true));

  EXPECT_EQ(service::migration::WithTargetStatus(location_, record_).validation->status,
            ValidationStatus::kValidating);

  service::migration::WriteValidationStatus(location_, service::migration::IdOf(record_),
                                            Finished(now_ - 4min, true));
  EXPECT_EQ(service::migration::WithTargetStatus(location_, record_).validation->status,
            ValidationStatus::kValidated);
}

TEST_F(MigrationStatusSync, AnUnfinishedOrUnreadableStatusFileLeavesTheRecordAsItIs) {
  service::migration::WriteValidationStatus(
      location_, service::migration::IdOf(record_),
      Validation{ValidationStatus::kValidating, 10, "", now_, now_});
  EXPECT_EQ(service::migration::WithTargetStatus(location_, record_).validation->status,
            ValidationStatus::kValidating);

  std::ofstream(StatusFile(), std::ios::trunc) << "{\"validation\": {\"status\": \"sideways\"";
  EXPECT_EQ(service::migration::WithTargetStatus(location_, record_).validation->status,
            ValidationStatus::kValidating);

  service::migration::MigrationRecord never_validated = record_;
  never_validated.validation.reset();
  service::migration::WriteValidationStatus(location_, service::migration::IdOf(record_),
                                            Finished(now_, true));
  EXPECT_FALSE(
      service::migration::WithTargetStatus(location_, never_validated).validation.has_value());
}

TEST_F(MigrationStatusSync, TheTargetsLaterImportStatusIsShownButNotItsRequestStatus) {
  record_.import_info.import_request_status = service::migration::RequestStatus::kApproved;
  record_.import_info.last_updated_date = now_;
  service::migration::MigrationRecord target = record_;
  target.import_info.status = service::migration::ImportStatus::kImportFailed;
  target.import_info.message = "Cannot delete 'X'";
  target.import_info.import_request_status = service::migration::RequestStatus::kPending;
  target.import_info.last_updated_date = now_ - 1s;
  service::migration::WriteImportStatus(location_, target);

  EXPECT_EQ(service::migration::WithTargetStatus(location_, record_).import_info.status,
            service::migration::ImportStatus::kPending);  // older than what the source knows

  target.import_info.last_updated_date = now_ + 1s;
  service::migration::WriteImportStatus(location_, target);
  service::migration::WriteValidationStatus(location_, service::migration::IdOf(record_),
                                            Finished(now_, true));
  auto shown = service::migration::WithTargetStatus(location_, record_);

  EXPECT_EQ(shown.import_info.status, service::migration::ImportStatus::kImportFailed);
  EXPECT_EQ(shown.import_info.message, "Cannot delete 'X'");
  EXPECT_EQ(shown.import_info.import_request_status, service::migration::RequestStatus::kApproved);
  EXPECT_EQ(shown.validation->status, ValidationStatus::kValidated);  // both parts kept
}

class TargetSilence : public MigrationStatusSync {
 protected:
  // The target's record of a running import or undo, written to the status file.
  void TargetReports(service::migration::ImportStatus status) {
    service::migration::MigrationRecord target = record_;
    target.import_info.status = status;
    target.import_info.message = "";
    target.import_info.last_updated_date = now_ + 1s;
    service::migration::WriteImportStatus(location_, target);
  }

  // The status file as if its last write or touch was `age` ago.
  void AgeStatusFile(std::chrono::seconds age) {
    const auto then = std::chrono::system_clock::now() - age;
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(then.time_since_epoch());
    timespec times[2] = {{static_cast<time_t>(seconds.count()), 0},
                         {static_cast<time_t>(seconds.count()), 0}};
    ASSERT_EQ(::utimensat(AT_FDCWD, StatusFile().c_str(), times, 0), 0);
  }
};

TEST_F(TargetSilence, AnImportTheTargetStillReportsOnShowsAsImporting) {
  TargetReports(service::migration::ImportStatus::kImporting);
  AgeStatusFile(50s);

  auto shown = service::migration::WithTargetStatus(location_, record_, 60s);

  EXPECT_EQ(shown.import_info.status, service::migration::ImportStatus::kImporting);
  EXPECT_EQ(shown.import_info.message, "");
}

TEST_F(TargetSilence, AnImportWhoseTargetFellSilentShowsAsFailedSayingSince) {
  TargetReports(service::migration::ImportStatus::kImporting);
  AgeStatusFile(90s);

  auto shown = service::migration::WithTargetStatus(location_, record_, 60s);

  EXPECT_EQ(shown.import_info.status, service::migration::ImportStatus::kImportFailed);
  const std::string& message = shown.import_info.message;
  EXPECT_EQ(message.rfind("The target environment has not reported on this import since ", 0), 0u)
      << message;
  EXPECT_NE(message.find(", more than 60 s ago: it is stopped or cannot reach the package "
                         "location"),
            std::string::npos)
      << message;
}

TEST_F(TargetSilence, AnUndoWhoseTargetFellSilentShowsAsUndoFailed) {
  TargetReports(service::migration::ImportStatus::kUndoing);
  AgeStatusFile(90s);

  auto shown = service::migration::WithTargetStatus(location_, record_, 60s);

  EXPECT_EQ(shown.import_info.status, service::migration::ImportStatus::kUndoFailed);
  EXPECT_NE(shown.import_info.message.find("on this undo since"), std::string::npos);
}

TEST_F(TargetSilence, AFinishedImportIsShownWhateverItsAge) {
  TargetReports(service::migration::ImportStatus::kImported);
  AgeStatusFile(3600s);

  EXPECT_EQ(service::migration::WithTargetStatus(location_, record_, 60s).import_info.status,
            service::migration::ImportStatus::kImported);
}

TEST_F(TargetSilence, ATouchOfTheTargetIsASignOfLife) {
  TargetReports(service::migration::ImportStatus::kImporting);
  AgeStatusFile(90s);

  service::migration::TouchImportStatus(location_, service::migration::IdOf(record_));

  EXPECT_EQ(service::migration::WithTargetStatus(location_, record_, 60s).import_info.status,
            service::migration::ImportStatus::kImporting);
}

TEST_F(TargetSilence, TouchingAMissingStatusFileCreatesNothing) {
  service::migration::TouchImportStatus(location_, service::migration::IdOf(record_));
  EXPECT_FALSE(std::filesystem::exists(StatusFile()));
}

}  // namespace
}  // namespace tessera::testing
