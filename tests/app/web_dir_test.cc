#include "app/web_dir.h"

#include "app/config.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "support/temp_dir.h"

namespace tessera::app {
namespace {

void MakeWebDir(const std::filesystem::path& web) {
  std::filesystem::create_directories(web);
  std::ofstream(web / "index.html") << "<!doctype html>\n";
}

TEST(DefaultWebDir, FindsTheCheckoutsWebFolderFromABuildDirectory) {
  testing::TempDir checkout;
  MakeWebDir(checkout.path() / "web");
  std::filesystem::create_directories(checkout.path() / "build" / "release");
  EXPECT_EQ(DefaultWebDir(checkout.path() / "build" / "release" / "tessera"),
            (checkout.path() / "web").string());
}

TEST(DefaultWebDir, PrefersTheInstalledLayout) {
  testing::TempDir prefix;
  MakeWebDir(prefix.path() / "share" / "tessera" / "web");
  MakeWebDir(prefix.path() / "web");
  std::filesystem::create_directories(prefix.path() / "bin");
  EXPECT_EQ(DefaultWebDir(prefix.path() / "bin" / "tessera"),
            (prefix.path() / "share" / "tessera" / "web").string());
}

TEST(DefaultWebDir, IgnoresAWebFolderWithoutIndex) {
  testing::TempDir checkout;
  std::filesystem::create_directories(checkout.path() / "web");
  std::filesystem::create_directories(checkout.path() / "build");
  std::string found = DefaultWebDir(checkout.path() / "build" / "tessera");
  EXPECT_NE(found, (checkout.path() / "web").string());
}

TEST(DefaultWebDir, IsEmptyWithoutAnExecutable) { EXPECT_EQ(DefaultWebDir(""), ""); }

TEST(Config, WebDirComesFromTheFlagAndIsMadeAbsolute) {
  Config config = LoadConfig({{"web.dir", "relative/web"}}, std::nullopt);
  EXPECT_EQ(config.ResolvedWebDir(),
            (std::filesystem::current_path() / "relative" / "web").lexically_normal().string());
}

TEST(Config, WebDirComesFromTheEnvironment) {
  setenv("TESSERA_WEB_DIR", "/srv/tessera/web", 1);
  Config config = LoadConfig({}, std::nullopt);
  unsetenv("TESSERA_WEB_DIR");
  EXPECT_EQ(config.ResolvedWebDir(), "/srv/tessera/web");
}

}  // namespace
}  // namespace tessera::app
