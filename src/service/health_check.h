// service/health_check.h
//
// Whether a node can serve now, for load balancers and monitors (GET /health/ready).
//
// Contract:
//   - CheckReadiness() probes, each bounded by `probe_timeout` where the driver allows:
//       "storage"         a read transaction on the storage service;
//       "warehouse:NAME"  SELECT 1 on every configured warehouse;
//       "packageLocation" the package location exists and this process may write it; when none
//                         is configured the check passes as not configured (migrations are
//                         then refused, as configured).
//   - `ready` is false only when the storage service cannot be used: without it no call but
//     /api/status can be answered. A warehouse or package location that fails leaves the node
//     ready but `degraded`: metadata, published cubes and everything else still work, and taking
//     every node out of a balancer because a shared warehouse is down would stop those too.
//   - Never throws; a check that fails carries the reason in `detail`.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "service/migration/storage_location_service.h"
#include "service/project/warehouse_registry.h"
#include "storage/metadata_store.h"

namespace tessera::service {

struct HealthCheck {
  std::string name;
  bool ok = false;
  bool configured = true;  // false: deliberately absent (no package location), not a failure
  std::string detail;      // what was checked, or why it failed
  double milliseconds = 0;
};

struct Readiness {
  bool ready = false;
  bool degraded = false;
  std::vector<HealthCheck> checks;
};

Readiness CheckReadiness(storage::MetadataStore& store, project::WarehouseRegistry& warehouses,
                         const migration::StorageLocationService& storage_location,
                         std::chrono::milliseconds probe_timeout);

}  // namespace tessera::service
