// tests/support/listening_port.h
//
// The port of a `tessera serve` that a test starts with --listen 127.0.0.1:0. The kernel picks a
// free port as the server binds it, and the server logs "Tessera listening on HOST:PORT" (in
// either log format). A port the test picked beforehand could be taken by another test's server
// in between; the test would then talk to that server without noticing.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>

namespace tessera::testing {

// The listen address to pass: loopback, port chosen when the server binds.
inline constexpr char kAnyLoopbackPort[] = "127.0.0.1:0";

struct ListeningPort {
  uint16_t port = 0;    // 0 until the server logged it
  bool exited = false;  // the process ended first (and was reaped)
};

// The size of `log` now (0 when it does not exist): where the output of a process started next
// begins, when a log is appended to across restarts.
std::uintmax_t LogSize(const std::filesystem::path& log);

// Waits until process `pid` (a child of this one) logs its port in `log` after `log_offset`,
// until it exits, or until `timeout` passed.
ListeningPort WaitForListeningPort(pid_t pid, const std::filesystem::path& log,
                                   std::uintmax_t log_offset,
                                   std::chrono::steady_clock::duration timeout);

}  // namespace tessera::testing
