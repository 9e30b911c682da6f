// service/project/warehouse_registry.h
//
// The warehouses of one node, by the names the configuration gives them ([warehouses.NAME]),
// opened on first use and shared by every request. A project names its warehouse in its
// definition ("warehouse"); an empty name means "demo".
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/warehouse/warehouse.h"

namespace tessera::service::project {

class WarehouseRegistry {
 public:
  // name -> URL
  explicit WarehouseRegistry(std::map<std::string, std::string> urls);

  // Throws Error(kEngineUnreachable) naming the warehouse when no URL is configured for it.
  engine::warehouse::Warehouse& Get(const std::string& name);

  // Whether a URL is configured for `name` ("" = "demo"); opens nothing.
  bool Has(const std::string& name) const;
  // Every configured name, sorted.
  std::vector<std::string> Names() const;
  // The pool use of each warehouse opened so far, by name.
  std::map<std::string, PoolUsage> OpenPoolUsage();

 private:
  std::map<std::string, std::string> urls_;
  mutable std::mutex mutex_;
  std::map<std::string, std::unique_ptr<engine::warehouse::Warehouse>> open_;
};

}  // namespace tessera::service::project
