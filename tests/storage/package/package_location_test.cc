#include "storage/package/location.h"

#include <gtest/gtest.h>

#include <functional>

#include "core/error.h"
#include "storage/package/package_samples.h"
#include "support/temp_dir.h"

namespace tessera::storage {
namespace {

using testing::FileNames;

constexpr char kFileId[] = "E7D6C5B4A39281706F5E4D3C2B1A0F9E";
constexpr char kPackageId[] = "4A7C1E9B2D3F4051A6B7C8D9E0F1A2B3";
constexpr char kImportId[] = "9D2E4F6A8B0C41D3E5F70819A2B3C4D5";

void ExpectError(const std::function<void()>& action, ErrorCode code, std::string_view message) {
  try {
    action();
    ADD_FAILURE() << "nothing was thrown; expected: " << message;
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), code);
    EXPECT_EQ(error.message(), message);
  }
}

TEST(PackageLocation, AnEmptyRootIsNotConfigured) {
  ExpectError([] { package::PackageLocation location(""); }, ErrorCode::kServiceUnavailable,
              "The Storage Service is not configured properly, please contact your "
              "administrator to configure Storage Service");
}

TEST(PackageLocation, ResolvesEachLayoutShape) {
  package::PackageLocation location("/srv/tessera/packages");
  for (std::string path :
       {std::string("mstr/shared/migrations/packages/2025-06-02/") + kFileId + ".mmp",
        std::string("mstr/shared/migrations/undo/") + kPackageId + "/" + kImportId + ".mmp",
        std::string("mstr/shared/migrations/status/") + kPackageId + "/" + kImportId + ".json",
        std::string("mstr/shared/files/") + kFileId + ".mmp"}) {
    EXPECT_EQ(location.Resolve(path), std::filesystem::path("/srv/tessera/packages/" + path));
  }
}

TEST(PackageLocation, RefusesEveryOtherPath) {
  package::PackageLocation location("/srv/tessera/packages");
  const std::string id = kFileId;
  const std::string lower = "e7d6c5b4a39281706f5e4d3c2b1a0f9e";
  for (std::string path : {
           std::string(""),
           std::string("../x"),
           std::string("/etc/passwd"),
           std::string("mstr/shared/migrations/packages/2025-06-02/../../x.mmp"),
           "mstr/shared/migrations/packages/2025-06-02/../2025-06-03/" + id + ".mmp",
           "/srv/tessera/packages/mstr/shared/migrations/packages/2025-06-02/" + id + ".mmp",
           "./mstr/shared/migrations/packages/2025-06-02/" + id + ".mmp",
           "mstr//shared/migrations/packages/2025-06-02/" + id + ".mmp",
           "mstr\\shared\\migrations\\packages\\2025-06-02\\" + id + ".mmp",
           "mstr/shared/migrations/packages/2025-06-02/" + lower + ".mmp",
           "mstr/shared/migrations/packages/2025-06-02/" + id + ".zip",
           "mstr/shared/migrations/packages/2025-06-02/" + id + ".mmp.tmp",
           "mstr/shared/migrations/packages/2025-06-02/." + id + ".mmp.tmp",
           "mstr/shared/migrations/packages/2025-13-02/" + id + ".mmp",
           "mstr/shared/migrations/packages/25-06-02/" + id + ".mmp",
           "mstr/shared/migrations/packages/" + id + ".mmp",
           "mstr/shared/migrations/packages/2025-06-02/" + id.substr(1) + ".mmp",
           "mstr/shared/migrations/undo/" + id + "/" + lower + ".mmp",
           "mstr/shared/migrations/undo/" + id + ".mmp",
           "mstr/shared/migrations/status/" + id + "/" + id + ".mmp",
           "mstr/shared/files/" + id + ".json",
           "mstr/shared/files/" + id + ".mmp/",
           "mstr/shared/files/" + id + ".mmp\n",
           "mstr/shared/files/sub/" + id + ".mmp",
       }) {
    try {
      location.Resolve(path);
      ADD_FAILURE() << "resolved '" << path << "'";
    } catch (const Error& error) {
      EXPECT_EQ(error.code(), ErrorCode::kInvalidInput) << path;
      EXPECT_TRUE(error.message().starts_with("storage.path: '")) << error.message();
    }
  }
}

TEST(PackageLocation, BuildsPathsItResolves) {
  package::PackageLocation location("/srv/p");
  // 1748908799999 ms is 2025-06-02T23:59:59.999Z (`date -u -d 2025-06-02T23:59:59.999Z +%s`).
  std::string package = package::PackageRelativePath(FromUnixMillis(1748908799999), kFileId);
  EXPECT_EQ(package, std::string("mstr/shared/migrations/packages/2025-06-02/") + kFileId + ".mmp");
  EXPECT_EQ(package::PackageRelativePath(FromUnixMillis(1748908800000), kFileId),
            std::string("mstr/shared/migrations/packages/2025-06-03/") + kFileId + ".mmp");
  std::string undo = package::UndoPackageRelativePath(kPackageId, kImportId);
  EXPECT_EQ(undo,
            std::string("mstr/shared/migrations/undo/") + kPackageId + "/" + kImportId + ".mmp");
  std::string status = package::StatusFileRelativePath(kPackageId, kImportId);
  EXPECT_EQ(status,
            std::string("mstr/shared/migrations/status/") + kPackageId + "/" + kImportId + ".json");
  std::string upload = package::UploadedFileRelativePath(kFileId);
  EXPECT_EQ(upload, std::string("mstr/shared/files/") + kFileId + ".mmp");
  for (const std::string& path : {package, undo, status, upload}) {
    EXPECT_EQ(location.Resolve(path), std::filesystem::path("/srv/p") / path);
  }
}

TEST(PackageLocation, BuildersRefuseMalformedIds) {
  EXPECT_THROW(package::UploadedFileRelativePath("e7d6c5b4a39281706f5e4d3c2b1a0f9e"), Error);
  EXPECT_THROW(package::UndoPackageRelativePath(kPackageId, "../../etc"), Error);
  EXPECT_THROW(package::StatusFileRelativePath("", kImportId), Error);
  EXPECT_THROW(package::PackageRelativePath(Now(), "x"), Error);
}

TEST(PackageLocation, ProbeWritesReadsAndLeavesNothing) {
  testing::TempDir dir;
  package::PackageLocation location(dir.path());
  location.Probe();
  EXPECT_TRUE(FileNames(dir.path() / "mstr" / "shared").empty());
}

// Tests run as root, which chmod does not stop; a root below a regular file (ENOTDIR) or in
// /proc cannot be written by anyone.
TEST(PackageLocation, ProbeFailsWhereNothingCanBeWritten) {
  testing::TempDir dir;
  testing::WriteWholeFile(dir.path() / "plain-file", "not a directory");
  for (std::filesystem::path root : {dir.path() / "plain-file" / "packages",
                                     std::filesystem::path("/proc/self/tessera-packages")}) {
    ExpectError([&] { package::PackageLocation(root).Probe(); }, ErrorCode::kServiceUnavailable,
                "Cannot create or modify the shared file. It may be temporarily unavailable for "
                "accessing the storage location.");
  }
}

TEST(PackageLocation, WritesSmallFilesAtomically) {
  testing::TempDir dir;
  std::filesystem::path file = dir.path() / "mstr/shared/migrations/status/A/B.json";
  package::WriteFileAtomically(file, "{\"v\":1}");
  package::WriteFileAtomically(file, "{\"v\":2}");
  EXPECT_EQ(testing::ReadWholeFile(file), "{\"v\":2}");
  EXPECT_EQ(FileNames(file.parent_path()), std::vector<std::string>{"B.json"});

  testing::WriteWholeFile(dir.path() / "plain-file", "x");
  ExpectError([&] { package::WriteFileAtomically(dir.path() / "plain-file" / "s.json", "{}"); },
              ErrorCode::kServiceUnavailable,
              "Cannot create or modify the shared file. It may be temporarily unavailable for "
              "accessing the storage location.");
}

TEST(PackageLocation, RemovingAMissingFileIsNotAnError) {
  testing::TempDir dir;
  testing::WriteWholeFile(dir.path() / "a.mmp", "x");
  EXPECT_TRUE(package::RemoveFileIfExists(dir.path() / "a.mmp"));
  EXPECT_FALSE(package::RemoveFileIfExists(dir.path() / "a.mmp"));
  package::RemoveFileQuietly(dir.path() / "a.mmp");
  EXPECT_TRUE(FileNames(dir.path()).empty());
}

TEST(PackageLocation, AWriterRemovesTheTemporaryFilesItLeftAndNoOneElses) {
  testing::TempDir dir;
  const std::string me = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
  const std::string other = "BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB";
  package::PackageLocation mine(dir.path(), me);
  const auto status = dir.path() / "mstr/shared/migrations/status" / kPackageId;
  const auto files = dir.path() / "mstr/shared/files";
  std::filesystem::create_directories(status);
  std::filesystem::create_directories(files);
  // What a writer killed in the middle of a write leaves, and what others are writing.
  testing::WriteWholeFile(status / (std::string(".") + kImportId + ".json." + me + ".1234.tmp"),
                          "{");
  testing::WriteWholeFile(files / ("." + std::string(kFileId) + ".mmp." + me + ".5678.tmp"), "PK");
  testing::WriteWholeFile(status / (std::string(".") + kImportId + ".json." + other + ".1.tmp"),
                          "{");
  testing::WriteWholeFile(status / (std::string(kImportId) + ".json"), "{}");
  package::WriteFileAtomically(status / "written.json", "{}",
                               me);  // a complete write leaves nothing

  EXPECT_EQ(mine.RemoveTemporaryFilesOfWriter(), 2);

  EXPECT_EQ(FileNames(status),
            (std::vector<std::string>{"." + std::string(kImportId) + ".json." + other + ".1.tmp",
                                      std::string(kImportId) + ".json", "written.json"}));
  EXPECT_TRUE(FileNames(files).empty());
  EXPECT_EQ(package::PackageLocation(dir.path()).RemoveTemporaryFilesOfWriter(), 0);  // no writer
}

}  // namespace
}  // namespace tessera::storage
