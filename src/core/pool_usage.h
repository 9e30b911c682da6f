// core/pool_usage.h
//
// A snapshot of a connection pool's use, for monitoring: how many connections are open, how many
// of those are lent out now, and the most the pool will open.
#pragma once

#include <cstddef>

namespace tessera {

struct PoolUsage {
  size_t open = 0;
  size_t in_use = 0;
  size_t max = 0;
};

}  // namespace tessera
