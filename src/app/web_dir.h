// app/web_dir.h
//
// Where the browser app's files (web/, with web/index.html) are found at run time when the
// setting web.dir does not say: the first of
//   1. <directory of the executable>/../share/tessera/web   (an installed layout: bin/, share/),
//   2. <ancestor>/web of the nearest ancestor directory of the executable that holds
//      web/index.html (a checkout: build/release/tessera finds the checkout's web/).
// Never a path compiled into the binary. Both functions only read the file system.
#pragma once

#include <filesystem>
#include <string>

namespace tessera::app {

// The running executable (/proc/self/exe); empty when it cannot be read.
std::filesystem::path ExecutablePath();

// The web directory for `executable`, by the rules above; "" when neither rule finds one.
std::string DefaultWebDir(const std::filesystem::path& executable);

}  // namespace tessera::app
