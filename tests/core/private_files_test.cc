// Directories and files made private to the server's user whatever the process umask.
#include "core/private_files.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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

// SQLite keeps POSIX locks on an open database; closing any descriptor of the file would drop
// them, so a file that exists is not opened again.
TEST(PrivateFiles, AFileThatExistsKeepsItsContentModeAndTheLocksHeldOnIt) {
  TempDir dir;
  const std::filesystem::path file = dir.path() / "warehouse.db";
  ASSERT_TRUE(CreatePrivateFile(file));
  int fd = ::open(file.c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, "data", 4), 4);
  ::fchmod(fd, 0640);
  struct flock lock {};
  lock.l_type = F_WRLCK;
  lock.l_whence = SEEK_SET;
  lock.l_start = 0;
  lock.l_len = 1;
  ASSERT_EQ(::fcntl(fd, F_SETLK, &lock), 0);

  ASSERT_TRUE(CreatePrivateFile(file));

  EXPECT_EQ(std::filesystem::file_size(file), 4u);
  EXPECT_EQ(ModeOf(file), 0640u);
  // Another process still finds the byte locked.
  pid_t child = ::fork();
  if (child == 0) {
    int other = ::open(file.c_str(), O_RDWR);
    struct flock probe {};
    probe.l_type = F_WRLCK;
    probe.l_whence = SEEK_SET;
    probe.l_start = 0;
    probe.l_len = 1;
    ::fcntl(other, F_GETLK, &probe);
    ::_exit(probe.l_type == F_UNLCK ? 1 : 0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the lock was dropped";
  ::close(fd);
}

}  // namespace
}  // namespace tessera::testing
