#include "storage/connection_pool.h"

#include <spdlog/spdlog.h>

#include "core/error.h"
#include "storage/schema.h"

namespace tessera::storage {
namespace {

// How long a call waits for a busy pool before giving up; long enough for any sane transaction.
constexpr std::chrono::seconds kPoolWait{30};

Error Unavailable() {
  return Error(ErrorCode::kStorageUnavailable, std::string(kStorageUnavailableMessage));
}

}  // namespace

ConnectionPool::Lease::~Lease() {
  if (connection_ == nullptr) return;  // moved from
  if (discarded_ || !connection_->is_healthy()) connection_.reset();
  pool_->Return(std::move(connection_));
}

ConnectionPool::ConnectionPool(Connector connect, int max_connections,
                               std::chrono::milliseconds retry_interval)
    : connect_(std::move(connect)),
      max_connections_(static_cast<size_t>(std::max(1, max_connections))),
      retry_interval_(retry_interval) {}

ConnectionPool::Lease ConnectionPool::Acquire() {
  std::unique_lock lock(mutex_);
  auto deadline = std::chrono::steady_clock::now() + kPoolWait;
  while (idle_.empty() && open_count_ >= max_connections_) {
    if (returned_.wait_until(lock, deadline) == std::cv_status::timeout && idle_.empty() &&
        open_count_ >= max_connections_) {
      spdlog::warn("storage: all {} connections stayed busy for {} s", max_connections_,
                   kPoolWait.count());
      throw Unavailable();
    }
  }
  if (!idle_.empty()) {
    auto connection = std::move(idle_.back());
    idle_.pop_back();
    return Lease(*this, std::move(connection), /*reused=*/true);
  }
  if (is_down_ && std::chrono::steady_clock::now() - last_failure_ < retry_interval_) {
    throw Unavailable();
  }
  ++open_count_;
  lock.unlock();
  return Lease(*this, OpenNew(), /*reused=*/false);
}

std::unique_ptr<SqlConnection> ConnectionPool::OpenNew() {
  try {
    auto connection = connect_();
    EnsureSchema(*connection);
    std::lock_guard lock(mutex_);
    MarkUpLocked();
    return connection;
  } catch (const std::exception& error) {
    std::lock_guard lock(mutex_);
    --open_count_;
    MarkDownLocked(error.what());
    returned_.notify_one();
    throw Unavailable();
  }
}

void ConnectionPool::Return(std::unique_ptr<SqlConnection> connection) {
  std::lock_guard lock(mutex_);
  if (connection != nullptr) {
    idle_.push_back(std::move(connection));
  } else {
    --open_count_;
  }
  returned_.notify_one();
}

void ConnectionPool::ReportLost(std::string_view reason) {
  std::lock_guard lock(mutex_);
  MarkDownLocked(reason);
}

void ConnectionPool::DiscardIdle() {
  std::vector<std::unique_ptr<SqlConnection>> closing;
  {
    std::lock_guard lock(mutex_);
    closing.swap(idle_);
    open_count_ -= closing.size();
    returned_.notify_all();
  }
}

void ConnectionPool::MarkDownLocked(std::string_view reason) {
  if (!is_down_ || down_reason_ != reason) {
    spdlog::error("storage service unavailable: {}", reason);
  }
  is_down_ = true;
  down_reason_ = std::string(reason);
  last_failure_ = std::chrono::steady_clock::now();
  open_count_ -= idle_.size();
  idle_.clear();
  returned_.notify_all();
}

void ConnectionPool::MarkUpLocked() {
  if (is_down_) spdlog::info("storage service available again");
  is_down_ = false;
  down_reason_.clear();
}

PoolUsage ConnectionPool::Usage() {
  std::lock_guard lock(mutex_);
  return {open_count_, open_count_ - idle_.size(), max_connections_};
}

}  // namespace tessera::storage
