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
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/pool_usage.h"
#include "core/time.h"
#include "storage/sql_connection.h"

namespace tessera::storage {

class ConnectionPool {
 public:
  // Opens a new connection; throws SqlError when the database cannot be used.
  using Connector = std::function<std::unique_ptr<SqlConnection>()>;

  // One connection borrowed from the pool; returned on destruction if still healthy.
  class Lease {
   public:
    Lease(ConnectionPool& pool, std::unique_ptr<SqlConnection> connection, bool reused)
        : pool_(&pool), connection_(std::move(connection)), reused_(reused) {}
    Lease(Lease&& other) noexcept = default;
    Lease& operator=(Lease&&) = delete;
    ~Lease();

    SqlConnection& operator*() const { return *connection_; }
    SqlConnection* operator->() const { return connection_.get(); }
    bool reused() const { return reused_; }  // it was idle in the pool, so it may have gone stale
    void Discard() { discarded_ = true; }    // close instead of returning to the pool

   private:
    ConnectionPool* pool_;
    std::unique_ptr<SqlConnection> connection_;
    bool reused_;
    bool discarded_ = false;
  };

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
  void Return(std::unique_ptr<SqlConnection> connection);
  std::unique_ptr<SqlConnection> OpenNew();
  void MarkDownLocked(std::string_view reason);
  void MarkUpLocked();

  Connector connect_;
  size_t max_connections_;
  std::chrono::milliseconds retry_interval_;

  std::mutex mutex_;
  std::condition_variable returned_;
  std::vector<std::unique_ptr<SqlConnection>> idle_;
  size_t open_count_ = 0;  // idle + leased + being opened
  bool is_down_ = false;
  std::string down_reason_;
  std::chrono::steady_clock::time_point last_failure_{};
};

}  // namespace tessera::storage
