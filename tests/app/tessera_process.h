// tests/app/tessera_process.h
//
// Running the real `tessera` binary from a test: a command's exit code and output, and a
// `tessera serve` process started in a working directory the test chooses, with none of the
// test's TESSERA_* environment (only its arguments configure it), its output going to a log
// file. A ServeProcess is stopped with SIGTERM and reaped when destroyed, and killed when the
// test process dies.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace tessera::testing {

struct Outcome {
  int exit_code;       // -1 when the command did not exit normally
  std::string output;  // standard output and standard error
};

// Runs `command` with /bin/sh.
Outcome RunCommand(const std::string& command);

class ServeProcess {
 public:
  ServeProcess(std::filesystem::path binary, std::filesystem::path working_dir,
               std::filesystem::path log);
  ~ServeProcess();
  ServeProcess(const ServeProcess&) = delete;
  ServeProcess& operator=(const ServeProcess&) = delete;

  // Starts `<binary> serve --listen 127.0.0.1:<a free port> <arguments...>`; fails the test
  // unless it answers GET /api/status within two minutes (a first start loads the demo first).
  void Start(const std::vector<std::string>& arguments);
  uint16_t port() const { return port_; }
  std::string Log() const;  // its output so far

 private:
  std::filesystem::path binary_;
  std::filesystem::path working_dir_;
  std::filesystem::path log_;
  pid_t pid_ = 0;
  uint16_t port_ = 0;
};

}  // namespace tessera::testing
