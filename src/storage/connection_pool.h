// storage/connection_pool.h
//
// Connections to one database, shared by many threads. Acquire() hands out an idle connection or
// opens a new one (at most `max_connections` open at once; callers wait for one to come back) and
// brings every new connection's database to the current schema (EnsureSchema).
//
// While the database is down the pool remembers the last failed attempt and refuses at once,
// without trying, until `retry_interval` has passed. Every refusal throws
// Error(kStorageUnavailable, kStorageUnavailableMessage). The reason is logged once per change of
// state (available -> unavailable, a new reason, unavailable -> available).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "core/pool_usage.h"
#include "db/pool.h"
#include "storage/sql_connection.h"

namespace tessera::storage {

class ConnectionPool {
 public:
  // Opens a new connection; throws SqlError when the database cannot be used.
  using Connector = std::function<std::unique_ptr<SqlConnection>()>;

  // One connection borrowed from the pool; returned on destruction if still healthy. reused():
  // it was idle in the pool, so it may have gone stale. Discard(): close it instead.
  using Lease = db::Pool<SqlConnection>::Lease;

  ConnectionPool(Connector connect, int max_connections, std::chrono::milliseconds retry_interval);
  ConnectionPool(const ConnectionPool&) = delete;
  ConnectionPool& operator=(const ConnectionPool&) = delete;

  Lease Acquire();

  // A connection failed because the database went away: closes the idle connections (they are
  // most likely broken too) and starts the retry interval.
  void ReportLost(std::string_view reason);

  // Closes the idle connections without marking the database down.
  void DiscardIdle();

  PoolUsage Usage();

 private:
  std::unique_ptr<SqlConnection> OpenNew();
  bool IsWaitingToRetry();
  void MarkDown(std::string_view reason);
  void MarkUp();

  Connector connect_;
  std::chrono::milliseconds retry_interval_;
  db::Pool<SqlConnection> pool_;

  std::mutex state_mutex_;  // guards the three below; taken after the pool's lock, never before
  bool is_down_ = false;
  std::string down_reason_;
  std::chrono::steady_clock::time_point last_failure_{};
};

}  // namespace tessera::storage
