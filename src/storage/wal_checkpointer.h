// storage/wal_checkpointer.h
//
// Copies a SQLite store's write-ahead log into its database file on a thread of its own, so that
// no write waits for it. By default the connection whose commit brings the log past its limit
// does that copy, and its fsync, before its caller gets an answer: for an upload chunk of
// megabytes that was as long as the write itself.
//
// Connections opened with a checkpointer (OpenSqliteConnection) do not checkpoint; each commit
// reports the length of a log it wrote here (LogGrew; the main file and the chunk file each have
// one), and once one reaches kCheckpointBytes the thread runs a PASSIVE checkpoint of both files
// on a connection of its own: it copies what no reader still needs and never blocks readers or
// writers. A failed checkpoint is logged and tried again at the next commit.
// The destructor stops the thread; SQLite checkpoints what is left when the last connection to the
// file closes. Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace tessera::storage {

class WalCheckpointer {
 public:
  // SQLite's own default limit, 1000 pages, at the main file's 4 KiB pages.
  static constexpr int64_t kCheckpointBytes = int64_t{1000} * 4096;

  WalCheckpointer(std::string path, std::chrono::milliseconds busy_timeout);
  ~WalCheckpointer();
  WalCheckpointer(const WalCheckpointer&) = delete;
  WalCheckpointer& operator=(const WalCheckpointer&) = delete;

  // Called by a connection after each commit with the length of a log it wrote.
  void LogGrew(int64_t bytes);

 private:
  void Run();

  const std::string path_;
  const std::chrono::milliseconds busy_timeout_;
  std::mutex mutex_;
  std::condition_variable wanted_;
  bool is_wanted_ = false;
  bool is_stopping_ = false;
  std::thread thread_;
};

}  // namespace tessera::storage
