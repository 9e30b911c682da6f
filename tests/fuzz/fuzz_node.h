// tests/fuzz/fuzz_node.h
//
// The parts of a Tessera node that answer requests -- storage service (SQLite), warehouses, the
// services, a compute pool and the REST API -- wired as app/node.cc wires them, without the HTTP
// server, so a harness hands http::Request values straight to api::Api::Handle().
//
// Contract: the constructor opens (or creates) the node's files under `data_dir` and bootstraps
// the metadata (an administrator with an empty password); with `load_demo` it also loads the
// Tutorial project on a demo warehouse of `demo_rows` rows and publishes its cubes, returning
// once they are published. Throws what the node's parts throw when that fails. The destructor
// stops the compute pool and the jobs before the services go. Not thread-safe to construct.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "api/api.h"
#include "core/thread_pool.h"
#include "service/project/warehouse_registry.h"
#include "service/services.h"
#include "storage/metadata_store.h"

namespace tessera::fuzz {

struct FuzzNodeOptions {
  std::filesystem::path data_dir;
  bool load_demo = false;
  int64_t demo_rows = 2000;
  int compute_threads = 2;
};

class FuzzNode {
 public:
  explicit FuzzNode(const FuzzNodeOptions& options);
  ~FuzzNode();
  FuzzNode(const FuzzNode&) = delete;
  FuzzNode& operator=(const FuzzNode&) = delete;

  service::Services& services() { return *services_; }
  const api::Api& api() const { return *api_; }
  const std::string& demo_project_id() const { return demo_project_id_; }

 private:
  void LoadDemo(const FuzzNodeOptions& options);

  // In the order app/node.cc destroys them: reverse of declaration.
  std::unique_ptr<storage::MetadataStore> store_;
  std::unique_ptr<service::project::WarehouseRegistry> warehouses_;
  std::unique_ptr<service::Services> services_;
  std::unique_ptr<api::Api> api_;
  std::unique_ptr<ThreadPool> compute_;
  std::string demo_project_id_;
};

}  // namespace tessera::fuzz
