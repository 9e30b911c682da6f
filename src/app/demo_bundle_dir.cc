#include "app/demo_bundle_dir.h"

#include <system_error>

#include "app/share_dir.h"

namespace tessera::app {

namespace {

const ShareFolder kDemoBundle = {"demo/tutorial", "project.yaml"};

constexpr const char* kHowToSet =
    "; set --demo-bundle-dir (TESSERA_DEMO_BUNDLE_DIR, demo.bundle_dir in the configuration file) "
    "to the folder of the demo bundle (demo/tutorial in the source tree)";

bool HoldsBundle(const std::filesystem::path& directory) {
  std::error_code error;
  return !directory.empty() &&
         std::filesystem::is_regular_file(directory / kDemoBundle.marker, error);
}

}  // namespace

std::string DefaultDemoBundleDir(const std::filesystem::path& executable) {
  return FindShareFolder(executable, kDemoBundle);
}

DemoBundleSearch FindDemoBundle(const Config& config, const std::filesystem::path& executable) {
  if (config.demo_bundle_dir.empty()) {
    std::string found = DefaultDemoBundleDir(executable);
    if (!found.empty()) return {found, ""};
    return {{},
            "no demo bundle found (looked in " +
                DescribeShareFolderSearch(executable, kDemoBundle) + ")" + kHowToSet};
  }
  const std::filesystem::path configured = config.demo_bundle_dir;
  if (HoldsBundle(configured)) return {configured, ""};
  return {{},
          "no demo bundle in " + configured.string() + ": it holds no " + kDemoBundle.marker +
              kHowToSet};
}

}  // namespace tessera::app
