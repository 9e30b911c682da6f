#include "storage/connection_pool.h"

#include <spdlog/spdlog.h>

#include "core/error.h"
#include "storage/schema.h"

namespace tessera::storage {
namespace {

using Clock = std::chrono::steady_clock;

// How long a call waits for a busy pool before giving up; long enough for any sane transaction.
constexpr std::chrono::seconds kPoolWait{30};

}  // namespace

ConnectionPool::ConnectionPool(Connector connect, int max_connections,
                               std::chrono::milliseconds retry_interval)
    : connect_(std::move(connect)), retry_interval_(retry_interval), pool_(max_connections) {}

ConnectionPool::Lease ConnectionPool::Acquire() {
  const Clock::time_point deadline = Clock::now() + kPoolWait;
  auto wait_or_give_up = [&] {
    if (Clock::now() >= deadline) {
      spdlog::warn("storage: all {} connections stayed busy for {} s", pool_.max_connections(),
                   kPoolWait.count());
      throw StorageUnavailableError();
    }
    return deadline;
  };
  auto refuse_while_down = [&] {
    if (IsWaitingToRetry()) throw StorageUnavailableError();
  };
  return pool_.Acquire(wait_or_give_up, refuse_while_down, [&] { return OpenNew(); });
}

bool ConnectionPool::IsWaitingToRetry() {
  std::lock_guard lock(state_mutex_);
  return is_down_ && Clock::now() - last_failure_ < retry_interval_;
}

std::unique_ptr<SqlConnection> ConnectionPool::OpenNew() {
  try {
    auto connection = connect_();
    EnsureSchema(*connection);
    MarkUp();
    return connection;
  } catch (const std::exception& error) {
    MarkDown(error.what());
    throw StorageUnavailableError();
  }
}

void ConnectionPool::ReportLost(std::string_view reason) { MarkDown(reason); }

void ConnectionPool::DiscardIdle() { pool_.DiscardIdle(); }

void ConnectionPool::MarkDown(std::string_view reason) {
  {
    std::lock_guard lock(state_mutex_);
    if (!is_down_ || down_reason_ != reason) {
      spdlog::error("storage service unavailable: {}", reason);
    }
    is_down_ = true;
    down_reason_ = std::string(reason);
    last_failure_ = Clock::now();
  }
  pool_.DiscardIdle();
}

void ConnectionPool::MarkUp() {
  std::lock_guard lock(state_mutex_);
  if (is_down_) spdlog::info("storage service available again");
  is_down_ = false;
  down_reason_.clear();
}

PoolUsage ConnectionPool::Usage() { return pool_.Usage(); }

}  // namespace tessera::storage
