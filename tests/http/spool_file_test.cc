// The spool file of a request body: created new in the spool directory, readable by its owner
// only, removed with its SpoolFile unless its path was handed on.
#include "http/spool_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <boost/asio/error.hpp>
#include <cerrno>
#include <filesystem>

#include "support/temp_dir.h"

namespace tessera::http {
namespace {

TEST(SpoolFile, IsANewFileOfTheSpoolDirectoryOnlyItsOwnerReads) {
  tessera::testing::TempDir dir;
  std::optional<NewSpoolFile> created = CreateSpoolFile(dir.path().string());
  ASSERT_TRUE(created);
  const std::filesystem::path path(created->path);
  EXPECT_EQ(path.parent_path(), dir.path());
  EXPECT_TRUE(path.filename().string().starts_with("tessera-body-"));
  EXPECT_EQ(path.extension(), ".tmp");
  struct stat status {};
  ASSERT_EQ(::stat(created->path.c_str(), &status), 0);
  EXPECT_EQ(status.st_mode & 0777, 0600u);
  EXPECT_EQ(status.st_size, 0);

  std::optional<NewSpoolFile> other = CreateSpoolFile(dir.path().string());
  ASSERT_TRUE(other);
  EXPECT_NE(other->path, created->path);
}

TEST(SpoolFile, CannotBeCreatedWhereNoDirectoryIs) {
  tessera::testing::TempDir dir;
  EXPECT_FALSE(CreateSpoolFile((dir.path() / "missing").string()));
}

TEST(SpoolFile, IsRemovedWithItsOwnerUnlessReleased) {
  tessera::testing::TempDir dir;
  std::string removed_path;
  {
    std::optional<NewSpoolFile> created = CreateSpoolFile(dir.path().string());
    ASSERT_TRUE(created);
    removed_path = created->path;
    SpoolFile spool(created->path);
  }
  EXPECT_FALSE(std::filesystem::exists(removed_path));

  std::string kept_path;
  {
    std::optional<NewSpoolFile> created = CreateSpoolFile(dir.path().string());
    ASSERT_TRUE(created);
    SpoolFile spool(created->path);
    kept_path = spool.Release();
    EXPECT_EQ(kept_path, created->path);
  }
  EXPECT_TRUE(std::filesystem::exists(kept_path));
}

TEST(SpoolFile, ADiskFaultIsAStorageErrorAndADroppedConnectionIsNot) {
  for (int code : {ENOSPC, EDQUOT, EFBIG, EIO}) {
    EXPECT_TRUE(IsStorageError({code, boost::system::system_category()})) << code;
  }
  EXPECT_FALSE(IsStorageError({ECONNRESET, boost::system::system_category()}));
  EXPECT_FALSE(IsStorageError(boost::asio::error::eof));
}

}  // namespace
}  // namespace tessera::http
