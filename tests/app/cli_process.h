// tests/app/cli_process.h
//
// Running the real `tessera` binary (TESSERA_BINARY, set by CMake for the app tests) through the
// shell, with its exit code and everything it wrote to stdout and stderr.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace tessera::testing {

inline std::string Binary() {
  const char* path = std::getenv("TESSERA_BINARY");
  return path ? path : "tessera";
}

struct Outcome {
  int exit_code;
  std::string output;  // stdout and stderr, interleaved
};

// Runs `command` with /bin/sh.
inline Outcome RunCommand(const std::string& command) {
  std::string output;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  std::array<char, 4096> buffer;
  size_t read = 0;
  while ((read = fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
    output.append(buffer.data(), read);
  int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

}  // namespace tessera::testing
