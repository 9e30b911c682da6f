#include "service/project/warehouse_registry.h"

#include "core/error.h"

namespace tessera::service::project {

WarehouseRegistry::WarehouseRegistry(std::map<std::string, std::string> urls)
    : urls_(std::move(urls)) {}

namespace {

std::string Resolved(const std::string& name) { return name.empty() ? "demo" : name; }

}  // namespace

bool WarehouseRegistry::Has(const std::string& name) const {
  return urls_.count(Resolved(name)) > 0;
}

std::vector<std::string> WarehouseRegistry::Names() const {
  std::vector<std::string> names;
  for (const auto& [name, url] : urls_) names.push_back(name);
  return names;
}

engine::warehouse::Warehouse& WarehouseRegistry::Get(const std::string& requested) {
  const std::string name = Resolved(requested);
  std::lock_guard lock(mutex_);
  if (auto it = open_.find(name); it != open_.end()) return *it->second;
  auto url = urls_.find(name);
  if (url == urls_.end()) {
    throw Error(ErrorCode::kEngineUnreachable,
                "The warehouse '" + name + "' is not configured on this server");
  }
  engine::warehouse::WarehouseOptions options;
  options.name = name;
  options.url = url->second;
  return *open_.emplace(name, engine::warehouse::Warehouse::Open(options)).first->second;
}

std::map<std::string, PoolUsage> WarehouseRegistry::OpenPoolUsage() {
  std::lock_guard lock(mutex_);
  std::map<std::string, PoolUsage> usage;
  for (const auto& [name, warehouse] : open_) usage[name] = warehouse->pool_usage();
  return usage;
}

}  // namespace tessera::service::project
