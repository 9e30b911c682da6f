// core/process_stats.h
//
// This process's use of the machine, read from /proc (Linux): resident memory, CPU time, open
// file descriptors and the descriptor limit. A figure that cannot be read is 0.
#pragma once

#include <cstdint>

namespace tessera {

struct ProcessStats {
  uint64_t resident_bytes = 0;
  double cpu_seconds = 0;  // user + system
  uint64_t open_fds = 0;
  uint64_t max_fds = 0;
  double start_time_seconds = 0;  // since the Unix epoch
};

ProcessStats ReadProcessStats();

}  // namespace tessera
