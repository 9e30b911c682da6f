// tests/app/serve_process.h
//
// A `tessera serve` process started by a test in a working directory the test chooses, with none
// of the test's TESSERA_* environment (only its arguments configure it), its output going to a
// log file. It is stopped with SIGTERM and reaped when the ServeProcess is destroyed, and killed
// when the test process dies.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace tessera::testing {

class ServeProcess {
 public:
  ServeProcess(std::filesystem::path binary, std::filesystem::path working_dir,
               std::filesystem::path log);
  ~ServeProcess();
  ServeProcess(const ServeProcess&) = delete;
  ServeProcess& operator=(const ServeProcess&) = delete;

  // Starts `<binary> serve --listen 127.0.0.1:0 <arguments...>` and learns its port from its log;
  // fails the test unless it answers GET /api/status within two minutes (a first start loads the
  // demo first).
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
