#include "service/health_check.h"

#include "core/error.h"

namespace tessera::service {
namespace {

using Clock = std::chrono::steady_clock;

// Runs `probe`, which returns the detail of a success or throws the reason of a failure.
template <typename Probe>
HealthCheck Timed(std::string name, Probe probe) {
  HealthCheck check;
  check.name = std::move(name);
  const auto started = Clock::now();
  try {
    check.detail = probe();
    check.ok = true;
  } catch (const Error& e) {
    check.detail = e.message();
  } catch (const std::exception& e) {
    check.detail = e.what();
  }
  check.milliseconds = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
  return check;
}

class DiscardingSink : public engine::warehouse::RowSink {
 public:
  void OnColumns(const std::vector<std::string>&) override {}
  void OnRow(const std::vector<engine::warehouse::SqlValue>&) override {}
};

HealthCheck CheckStorage(storage::MetadataStore& store) {
  return Timed("storage", [&]() -> std::string {
    if (!store.IsAvailable()) {
      throw Error(ErrorCode::kStorageUnavailable,
                  "the storage service (" + store.backend_name() + ") cannot be reached");
    }
    return store.backend_name() + " answers";
  });
}

HealthCheck CheckWarehouse(project::WarehouseRegistry& warehouses, const std::string& name,
                           std::chrono::milliseconds timeout) {
  return Timed("warehouse:" + name, [&]() -> std::string {
    engine::warehouse::Warehouse& warehouse = warehouses.Get(name);
    DiscardingSink sink;
    engine::warehouse::QueryOptions options;
    options.timeout = timeout;
    warehouse.Query({"SELECT 1", {}}, sink, options);
    return "SELECT 1 answered";
  });
}

HealthCheck CheckPackageLocation(const migration::StorageLocationService& storage_location) {
  if (!storage_location.IsConfigured()) {
    return {"packageLocation", true, false,
            "not configured: migrations and the shared file store are unavailable", 0};
  }
  return Timed("packageLocation", [&]() -> std::string {
    return storage_location.Require().root().string() + " is writable";
  });
}

}  // namespace

Readiness CheckReadiness(storage::MetadataStore& store, project::WarehouseRegistry& warehouses,
                         const migration::StorageLocationService& storage_location,
                         std::chrono::milliseconds probe_timeout) {
  Readiness readiness;
  readiness.checks.push_back(CheckStorage(store));
  readiness.ready = readiness.checks.front().ok;
  for (const std::string& name : warehouses.Names()) {
    readiness.checks.push_back(CheckWarehouse(warehouses, name, probe_timeout));
  }
  // The package location is kept in the storage service's settings: without storage it is unknown.
  if (readiness.ready) readiness.checks.push_back(CheckPackageLocation(storage_location));
  for (const auto& check : readiness.checks) {
    if (!check.ok && check.name != "storage") readiness.degraded = true;
  }
  return readiness;
}

}  // namespace tessera::service
