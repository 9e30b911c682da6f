// tests/api/node_process.h
//
// A node running as a separate `tessera serve` process (the binary TESSERA_BINARY names), for
// tests that kill it: started on a data directory and a storage service, killed with SIGKILL at a
// moment the test chooses, started again on the same data directory (a node that died and came
// back), or started beside another node on the same storage service. Its output goes to
// log_path(); it listens on a free loopback port chosen at each start.
//
// Start() fails the test unless the node answers GET /api/status within 60 s, then logs in as
// the administrator (empty password). Kill() and Stop() reap the process; the destructor stops a
// running one.
#pragma once

#include <gtest/gtest.h>
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "api/api_fixture.h"

namespace tessera::testing {

struct NodeSettings {
  std::string storage_url;  // empty: the node's default (SQLite in its data directory)
  std::filesystem::path data_dir;
  std::filesystem::path packages_dir;    // empty: the node's default
  std::string public_url;                // empty: the node's default
  std::vector<std::string> environment;  // "NAME=VALUE" for the process, e.g. settings
  std::filesystem::path log_file;        // empty: server.log in the data directory
};

class NodeProcess {
 public:
  explicit NodeProcess(NodeSettings settings);
  ~NodeProcess();
  NodeProcess(const NodeProcess&) = delete;
  NodeProcess& operator=(const NodeProcess&) = delete;

  void Start();
  void Kill();
  void Stop();  // SIGTERM: a graceful stop

  bool is_running() const { return pid_ != 0; }
  uint16_t port() const { return port_; }
  const NodeSettings& settings() const { return settings_; }
  std::filesystem::path log_path() const;

  ApiClient& client() { return *client_; }
  const std::string& token() const { return token_; }
  http::Headers Headers(const std::string& project_id = "") const;

 private:
  NodeSettings settings_;
  pid_t pid_ = 0;
  uint16_t port_ = 0;
  std::unique_ptr<ApiClient> client_;
  std::string token_;
};

// Whether `text` appears in the file within `timeout` (a log line a test waits for); the failure
// names the file and the text.
::testing::AssertionResult WaitForLogLine(
    const std::filesystem::path& log, const std::string& text,
    std::chrono::milliseconds timeout = std::chrono::seconds(30));

}  // namespace tessera::testing
