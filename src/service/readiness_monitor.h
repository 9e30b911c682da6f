// service/readiness_monitor.h
//
// CheckReadiness (service/health_check.h) for a probe that anyone may call often: a result is
// reused for `max_age`, and while one caller probes, the others get the previous result instead
// of probing too (or wait for the first result when there is none). So however often /health/ready
// is called, the storage service and the warehouses see at most one probe per `max_age`.
#pragma once

#include <chrono>
#include <mutex>
#include <optional>

#include "service/health_check.h"

namespace tessera::service {

class ReadinessMonitor {
 public:
  ReadinessMonitor(storage::MetadataStore& store, project::WarehouseRegistry& warehouses,
                   const migration::StorageLocationService& storage_location,
                   std::chrono::milliseconds probe_timeout,
                   std::chrono::milliseconds max_age = std::chrono::seconds(1));

  Readiness Current();

 private:
  using Clock = std::chrono::steady_clock;

  storage::MetadataStore& store_;
  project::WarehouseRegistry& warehouses_;
  const migration::StorageLocationService& storage_location_;
  std::chrono::milliseconds probe_timeout_;
  std::chrono::milliseconds max_age_;

  std::mutex probe_mutex_;  // held while probing
  std::mutex result_mutex_;
  std::optional<Readiness> last_;  // guarded by result_mutex_
  Clock::time_point last_at_;      // guarded by result_mutex_
};

}  // namespace tessera::service
