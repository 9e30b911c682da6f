// tests/support/pg_cluster.h
//
// A private PostgreSQL cluster for tests that stop and start the database under a running store
// (outage, error, recovery). The server binaries come from TESSERA_PG_BINDIR, `pg_config
// --bindir` or /usr/lib/postgresql/*/bin; without them available() is false and the test should
// skip. As root, the server runs as the "postgres" user (PostgreSQL refuses root). The cluster
// is initialised on construction, listens on one free loopback port for its whole life (so a
// restarted server has the same URL), and is stopped and removed on destruction.
#pragma once

#include <memory>
#include <string>

#include "support/temp_dir.h"

namespace tessera::testing {

class PrivatePgCluster {
 public:
  PrivatePgCluster();  // throws std::runtime_error when initdb fails
  ~PrivatePgCluster();
  PrivatePgCluster(const PrivatePgCluster&) = delete;
  PrivatePgCluster& operator=(const PrivatePgCluster&) = delete;

  bool available() const { return !bindir_.empty(); }
  bool is_running() const { return is_running_; }

  // Both wait until done; throw std::runtime_error (with the server log) on failure.
  void Start();
  void Stop();  // fast shutdown: open connections are terminated

  std::string url() const;  // postgresql://postgres@127.0.0.1:<port>/postgres

 private:
  void Run(const std::string& command) const;

  std::string bindir_;
  std::unique_ptr<TempDir> dir_;
  std::string run_as_;  // a prefix that runs a command as the server's user, or ""
  int port_ = 0;
  bool is_running_ = false;
};

}  // namespace tessera::testing
