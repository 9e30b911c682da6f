// app/demo_bundle_dir.h
//
// Where the demo project's bundle (the repository's demo/tutorial, holding project.yaml) is found
// at run time when the setting demo.bundle_dir does not say: the rules of app/share_dir.h, i.e.
//   1. <directory of the executable>/../share/tessera/demo/tutorial  (an installation),
//   2. demo/tutorial of the nearest ancestor directory of the executable that holds one (a
//      checkout: build/release/tessera finds the checkout's demo/tutorial).
// Never a path compiled into the binary. Both functions only read the file system.
#pragma once

#include <filesystem>
#include <string>

#include "app/config.h"

namespace tessera::app {

// The default bundle folder for `executable`, by the rules above; "" when none is found.
std::string DefaultDemoBundleDir(const std::filesystem::path& executable);

struct DemoBundleSearch {
  std::filesystem::path dir;  // the bundle folder; empty when there is none
  std::string problem;        // when there is none: where it looked and the setting to set
};

// The folder `config.demo_bundle_dir` names, else DefaultDemoBundleDir(executable), when it
// holds project.yaml. Otherwise `problem` says where it looked (that folder, or the default
// search for `executable`) and names the setting to set (--demo-bundle-dir,
// TESSERA_DEMO_BUNDLE_DIR, demo.bundle_dir).
DemoBundleSearch FindDemoBundle(const Config& config, const std::filesystem::path& executable);

}  // namespace tessera::app
