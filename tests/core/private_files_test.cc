// Directories and files made private to the server's user whatever the process umask.
#include "core/private_files.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "support/temp_dir.h"

namespace tessera::testing {
namespace {

unsigned ModeOf(const std::filesystem::path& path) {
  struct stat info {};
  EXPECT_EQ(::stat(path.c_str(), &info), 0) << path;
  return info.st_mode & 0777;
}

// Runs `body` with the umask most systems start with, so that only explicit modes make it 0700.
template <typename Body>
void WithUmask022(Body body) {
  mode_t previous = ::umask(022);
  body();
  ::umask(previous);
}

TEST(PrivateFiles, EveryDirectoryCreatedIsTheOwnersAloneAndExistingOnesKeepTheirMode) {
  TempDir dir;
  std::filesystem::create_directory(dir.path() / "shared");
  std::filesystem::permissions(dir.path() / "shared", std::filesystem::perms(0755));
  WithUmask022([&] { CreatePrivateDirectories(dir.path() / "shared" / "a" / "b"); });

  EXPECT_EQ(ModeOf(dir.path() / "shared"), 0755u);
  EXPECT_EQ(ModeOf(dir.path() / "shared" / "a"), 0700u);
  EXPECT_EQ(ModeOf(dir.path() / "shared" / "a" / "b"), 0700u);
}

TEST(PrivateFiles, CreatingDirectoriesThatExistIsNoError) {
  TempDir dir;
  std::error_code error;
  CreatePrivateDirectories(dir.path(), error);
  EXPECT_FALSE(error) << error.message();
}

TEST(PrivateFiles, ADirectoryWhereAFileStandsIsAnError) {
  TempDir dir;
  ASSERT_TRUE(CreatePrivateFile(dir.path() / "file"));
  std::error_code error;
  CreatePrivateDirectories(dir.path() / "file" / "below", error);
  EXPECT_TRUE(error);
  EXPECT_THROW(CreatePrivateDirectories(dir.path() / "file"), std::filesystem::filesystem_error);
}

TEST(PrivateFiles, AFileCreatedIsTheOwnersAlone) {
  TempDir dir;
  WithUmask022([&] { ASSERT_TRUE(CreatePrivateFile(dir.path() / "metadata.db")); });
  EXPECT_EQ(ModeOf(dir.path() / "metadata.db"), 0600u);
  EXPECT_EQ(std::filesystem::file_size(dir.path() / "metadata.db"), 0u);
}

}  // namespace
}  // namespace tessera::testing
