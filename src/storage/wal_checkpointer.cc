#include "storage/wal_checkpointer.h"

#include <spdlog/spdlog.h>

#include <memory>
#include <utility>

#include "storage/sql_connection.h"
#include "storage/sqlite_connection.h"

namespace tessera::storage {

WalCheckpointer::WalCheckpointer(std::string path, std::chrono::milliseconds busy_timeout)
    : path_(std::move(path)), busy_timeout_(busy_timeout), thread_([this] { Run(); }) {}

WalCheckpointer::~WalCheckpointer() {
  {
    std::lock_guard lock(mutex_);
    is_stopping_ = true;
  }
  wanted_.notify_one();
  thread_.join();
}

void WalCheckpointer::LogGrew(int64_t bytes) {
  if (bytes < kCheckpointBytes) return;
  {
    std::lock_guard lock(mutex_);
    is_wanted_ = true;
  }
  wanted_.notify_one();
}

void WalCheckpointer::Run() {
  std::unique_ptr<SqlConnection> connection;
  std::unique_lock lock(mutex_);
  while (true) {
    wanted_.wait(lock, [this] { return is_wanted_ || is_stopping_; });
    if (is_stopping_) return;
    is_wanted_ = false;
    lock.unlock();
    try {
      if (!connection) connection = OpenSqliteConnection(path_, busy_timeout_);
      connection->Query("PRAGMA wal_checkpoint(PASSIVE)", {});
    } catch (const std::exception& e) {
      spdlog::warn("storage: the write-ahead log of {} could not be checkpointed: {}", path_,
                   e.what());
      connection.reset();
    }
    lock.lock();
  }
}

}  // namespace tessera::storage
