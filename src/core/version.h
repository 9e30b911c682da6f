// core/version.h
//
// Tessera's own version (the project's version in CMakeLists.txt), as `tessera --version`,
// /health and /metrics show it. Not the platform version the REST API reports to clients
// (configuration `server.reported_version`), which mimics the reference server's.
#pragma once

#include <string_view>

namespace tessera {

std::string_view TesseraVersion();

}  // namespace tessera
