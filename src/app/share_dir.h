// app/share_dir.h
//
// Where a folder of files the server reads at run time (the web app, the demo bundle) is found,
// never through a path compiled into the binary. A folder is named by its path `relative` inside
// share/tessera/ of an installation and inside a checkout (both "web", both "demo/tutorial"),
// and counts as present when it holds the file `marker`. It is the first of
//   1. <directory of the executable>/../share/tessera/<relative>  (an installed layout: bin/,
//      share/, as `make install` writes it),
//   2. <ancestor>/<relative> of the nearest ancestor directory of the executable where it is
//      present (a checkout: build/release/tessera finds the checkout's folder).
// Both functions only read the file system.
#pragma once

#include <filesystem>
#include <string>

namespace tessera::app {

struct ShareFolder {
  std::string relative;  // e.g. "demo/tutorial"
  std::string marker;    // a file the folder holds, e.g. "project.yaml"
};

// The folder for `executable` by the rules above; "" when neither rule finds one, or when
// `executable` is empty.
std::string FindShareFolder(const std::filesystem::path& executable, const ShareFolder& folder);

// Where FindShareFolder looks for `executable`, in words for a message, e.g.
// "/opt/tessera/share/tessera/demo/tutorial, then demo/tutorial in /opt/tessera/bin and each
// folder above it".
std::string DescribeShareFolderSearch(const std::filesystem::path& executable,
                                      const ShareFolder& folder);

}  // namespace tessera::app
