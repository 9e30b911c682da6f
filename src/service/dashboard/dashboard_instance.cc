#include "service/dashboard/dashboard_instance.h"

namespace tessera::service::dashboard {

DashboardInstance::Snapshot DashboardInstance::Current() const {
  std::lock_guard lock(mutex_);
  return current_;
}

void DashboardInstance::Publish(Snapshot snapshot) const {
  std::lock_guard lock(mutex_);
  current_ = std::move(snapshot);
}

}  // namespace tessera::service::dashboard
