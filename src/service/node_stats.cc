#include "service/node_stats.h"

#include "core/error.h"

namespace tessera::service {

NodeStats CollectNodeStats(Services& services) {
  NodeStats stats;
  try {
    services.store.Read([&](storage::MetadataTransaction& tx) {
      stats.sessions = tx.CountSessions();
      stats.jobs = tx.CountJobs();
    });
    stats.storage_counts = true;
  } catch (const Error&) {  // the storage service is down: its counts are unknown
  }
  stats.instances = services.instances.InstanceCount();
  stats.instance_result_bytes = services.instances.CachedResultBytes();
  stats.instance_result_budget_bytes = services.instances.result_budget_bytes();
  stats.cubes = services.cubes.Loaded();
  stats.storage_pool = services.store.pool_usage();
  stats.warehouse_pools = services.warehouses.OpenPoolUsage();
  return stats;
}

}  // namespace tessera::service
