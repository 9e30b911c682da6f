#include "app/demo_bundle_dir.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "support/temp_dir.h"

namespace tessera::app {
namespace {

using tessera::testing::TempDir;
using ::testing::HasSubstr;

void MakeBundle(const std::filesystem::path& bundle) {
  std::filesystem::create_directories(bundle);
  std::ofstream(bundle / "project.yaml") << "name: Tutorial\n";
}

TEST(DefaultDemoBundleDir, FindsTheCheckoutsBundleFromABuildDirectory) {
  TempDir checkout;
  MakeBundle(checkout.path() / "demo" / "tutorial");
  EXPECT_EQ(DefaultDemoBundleDir(checkout.path() / "build" / "release" / "tessera"),
            (checkout.path() / "demo" / "tutorial").string());
}

TEST(DefaultDemoBundleDir, PrefersTheInstalledLayout) {
  TempDir prefix;
  MakeBundle(prefix.path() / "share" / "tessera" / "demo" / "tutorial");
  MakeBundle(prefix.path() / "demo" / "tutorial");
  EXPECT_EQ(DefaultDemoBundleDir(prefix.path() / "bin" / "tessera"),
            (prefix.path() / "share" / "tessera" / "demo" / "tutorial").string());
}

TEST(DefaultDemoBundleDir, IgnoresAFolderWithoutProjectYaml) {
  TempDir prefix;
  std::filesystem::create_directories(prefix.path() / "share" / "tessera" / "demo" / "tutorial");
  EXPECT_EQ(DefaultDemoBundleDir(prefix.path() / "bin" / "tessera"), "");
}

TEST(FindDemoBundle, WithoutABundleNamesWhereItLookedAndTheSetting) {
  TempDir prefix;
  DemoBundleSearch search = FindDemoBundle(Config{}, prefix.path() / "bin" / "tessera");
  EXPECT_TRUE(search.dir.empty());
  EXPECT_THAT(search.problem,
              HasSubstr((prefix.path() / "share" / "tessera" / "demo" / "tutorial").string()));
  EXPECT_THAT(search.problem, HasSubstr((prefix.path() / "bin").string()));
  EXPECT_THAT(search.problem, HasSubstr("--demo-bundle-dir"));
}

TEST(FindDemoBundle, TheConfiguredFolderWinsWhenItHoldsABundle) {
  TempDir prefix, elsewhere;
  MakeBundle(prefix.path() / "share" / "tessera" / "demo" / "tutorial");
  MakeBundle(elsewhere.path());
  Config config;
  config.demo_bundle_dir = elsewhere.path().string();
  EXPECT_EQ(FindDemoBundle(config, prefix.path() / "bin" / "tessera").dir, elsewhere.path());
}

TEST(FindDemoBundle, AConfiguredFolderWithoutABundleIsNotReplacedByTheDefault) {
  TempDir prefix, empty;
  MakeBundle(prefix.path() / "share" / "tessera" / "demo" / "tutorial");
  Config config;
  config.demo_bundle_dir = empty.path().string();
  DemoBundleSearch search = FindDemoBundle(config, prefix.path() / "bin" / "tessera");
  EXPECT_TRUE(search.dir.empty());
  EXPECT_THAT(search.problem, HasSubstr("no demo bundle in " + empty.path().string()));
}

}  // namespace
}  // namespace tessera::app
