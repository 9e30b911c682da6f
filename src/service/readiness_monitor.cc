#include "service/readiness_monitor.h"

namespace tessera::service {

ReadinessMonitor::ReadinessMonitor(storage::MetadataStore& store,
                                   project::WarehouseRegistry& warehouses,
                                   const migration::StorageLocationService& storage_location,
                                   std::chrono::milliseconds probe_timeout,
                                   std::chrono::milliseconds max_age)
    : store_(store),
      warehouses_(warehouses),
      storage_location_(storage_location),
      probe_timeout_(probe_timeout),
      max_age_(max_age) {}

Readiness ReadinessMonitor::Current() {
  {
    std::lock_guard lock(result_mutex_);
    if (last_ && Clock::now() - last_at_ < max_age_) return *last_;
  }
  std::unique_lock probing(probe_mutex_, std::try_to_lock);
  if (!probing.owns_lock()) {
    {
      std::lock_guard lock(result_mutex_);
      if (last_) return *last_;
    }
    probing.lock();  // the first probe is running: wait for it
    std::lock_guard lock(result_mutex_);
    if (last_) return *last_;
  }
  Readiness readiness = CheckReadiness(store_, warehouses_, storage_location_, probe_timeout_);
  std::lock_guard lock(result_mutex_);
  last_ = readiness;
  last_at_ = Clock::now();
  return readiness;
}

}  // namespace tessera::service
