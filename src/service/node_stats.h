// service/node_stats.h
//
// A snapshot of what one node holds and does, for its /metrics page: sessions, instances and the
// memory of their results, cubes in memory, jobs by kind and state, and the use of the storage
// and warehouse connection pools.
//
// Contract: CollectNodeStats() never throws. Sessions and jobs live in the storage service,
// shared by every node; when it cannot be read they are left out (`storage_counts` false) and the
// rest, which this node holds itself, is still given.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "core/pool_usage.h"
#include "service/services.h"

namespace tessera::service {

struct NodeStats {
  bool storage_counts = false;  // sessions and jobs were read
  int64_t sessions = 0;
  std::map<std::pair<std::string, std::string>, int64_t> jobs;  // (kind, state) -> count
  size_t instances = 0;
  size_t instance_result_bytes = 0;
  size_t instance_result_budget_bytes = 0;
  cube::CubeService::LoadedCubes cubes;
  PoolUsage storage_pool;
  std::map<std::string, PoolUsage> warehouse_pools;  // warehouses opened so far, by name
};

NodeStats CollectNodeStats(Services& services);

}  // namespace tessera::service
