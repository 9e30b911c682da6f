// db/pool.h
//
// The bookkeeping of a pool of connections to one database, whatever the connection type (it
// needs `bool is_healthy() const`): the idle connections, and how many are open (idle, lent out
// or being opened), never more than `max_connections`.
//
// Acquire lends an idle connection, or opens a new one when fewer than the most are open; while
// every connection is lent out it waits for one to come back, asking its caller's `while_full`
// (under the pool's lock) whether to give up (it throws) or until when to wait. A Lease gives its
// connection back when it ends, or closes it when it reports itself unhealthy or was discarded.
// Everything here is thread-safe; a lent connection is its borrower's alone.
#pragma once

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <vector>

#include "core/pool_usage.h"

namespace tessera::db {

template <typename Connection>
class Pool {
 public:
  using Clock = std::chrono::steady_clock;

  class Lease {
   public:
    Lease(Pool& pool, std::unique_ptr<Connection> connection, bool reused)
        : pool_(&pool), connection_(std::move(connection)), reused_(reused) {}
    Lease(Lease&& other) noexcept = default;
    Lease& operator=(Lease&&) = delete;
    ~Lease() {
      if (connection_ == nullptr) return;  // moved from
      if (discarded_ || !connection_->is_healthy()) connection_.reset();
      pool_->Return(std::move(connection_));
    }

    Connection& operator*() const { return *connection_; }
    Connection* operator->() const { return connection_.get(); }
    bool reused() const { return reused_; }  // it was idle in the pool, so it may have gone stale
    void Discard() { discarded_ = true; }    // close it instead of giving it back

   private:
    Pool* pool_;
    std::unique_ptr<Connection> connection_;
    bool reused_;
    bool discarded_ = false;
  };

  explicit Pool(int max_connections)
      : max_connections_(static_cast<size_t>(std::max(1, max_connections))) {}
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  // `while_full()` returns the time to look again (a connection coming back wakes the caller
  // sooner) or throws to give up. `may_open()` runs before a new connection is opened and throws
  // to refuse. Both run under the pool's lock. `open()` makes the new connection, outside the
  // lock; when it throws, the connection it would have been is no longer counted.
  template <typename WhileFull, typename MayOpen, typename Open>
  Lease Acquire(WhileFull while_full, MayOpen may_open, Open open) {
    std::unique_lock lock(mutex_);
    while (idle_.empty() && open_count_ >= max_connections_) {
      returned_.wait_until(lock, while_full());
    }
    if (!idle_.empty()) {
      std::unique_ptr<Connection> connection = std::move(idle_.back());
      idle_.pop_back();
      return Lease(*this, std::move(connection), /*reused=*/true);
    }
    may_open();
    ++open_count_;
    lock.unlock();
    try {
      return Lease(*this, open(), /*reused=*/false);
    } catch (...) {
      Return(nullptr);
      throw;
    }
  }

  // Closes the idle connections (they most likely point at the same dead server).
  void DiscardIdle() {
    std::vector<std::unique_ptr<Connection>> closing;
    std::lock_guard lock(mutex_);
    closing.swap(idle_);
    open_count_ -= closing.size();
    returned_.notify_all();
  }

  size_t max_connections() const { return max_connections_; }

  PoolUsage Usage() {
    std::lock_guard lock(mutex_);
    return {open_count_, open_count_ - idle_.size(), max_connections_};
  }

 private:
  // Takes `connection` back as idle, or, when null, stops counting the one it was.
  void Return(std::unique_ptr<Connection> connection) {
    std::lock_guard lock(mutex_);
    if (connection != nullptr) {
      idle_.push_back(std::move(connection));
    } else {
      --open_count_;
    }
    returned_.notify_one();
  }

  const size_t max_connections_;
  std::mutex mutex_;
  std::condition_variable returned_;
  std::vector<std::unique_ptr<Connection>> idle_;
  size_t open_count_ = 0;  // idle + lent out + being opened
};

}  // namespace tessera::db
