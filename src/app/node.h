// app/node.h
//
// One running Tessera node: the composition root that wires configuration, the storage service,
// the services, the REST API, the compute pool and the HTTP server. Tests start it in-process on
// an ephemeral port; `tessera serve` runs it until SIGTERM.
//
// Start() refuses (std::runtime_error) to listen beyond loopback without a configured
// administrator password. It does not need the storage service: when the database is
// unavailable the node still starts, answers 503 ERR016 where storage is needed, and bootstraps
// the metadata as soon as the database can be reached. On the first start (no project in the
// storage service) it generates the demo warehouse and loads the Tutorial project before it
// listens, unless configured not to.
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "app/config.h"
#include "http/server.h"

namespace tessera::app {

class Node {
 public:
  explicit Node(Config config);
  ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  void Start();
  uint16_t port() const;
  void Stop();  // graceful
  void Wait();

 private:
  struct Parts;
  // The steps of Start(), in order.
  void OpenStorage();
  void OpenWarehouses();
  void CreateServices();
  void ListenForNotices();
  void RecoverFromPreviousRun();
  void BootstrapOnFirstStart();
  void StartApi();
  void StartWebApp();
  void StartPools();
  void SetUpComputations();
  void StartServer();
  void StartMaintenance();
  // What StartServer() hands the server.
  http::Admit AdmitOnMetadataPool();
  http::Dispatch DispatchToPools();

  void EnsureBootstrapped();
  void LoadDemoOnFirstStart();
  void MaintenanceLoop();
  void RecoverJobs();
  void RemoveLeftovers();  // once, as soon as the storage service answers

  Config config_;
  std::unique_ptr<Parts> parts_;
  std::mutex bootstrap_mutex_;
  std::atomic<bool> bootstrapped_{false};
  // Written by Start() and then by the maintenance thread only.
  bool jobs_recovered_ = false;
  bool leftovers_removed_ = false;
  std::mutex stop_mutex_;
  std::condition_variable stop_signal_;
  bool stopping_ = false;
  std::thread maintenance_;
};

// Throws std::runtime_error when the configuration may not be served as given.
void CheckServable(const Config& config);

}  // namespace tessera::app
