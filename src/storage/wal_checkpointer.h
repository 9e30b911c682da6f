// storage/wal_checkpointer.h
//
// Copies a SQLite store's write-ahead log into its database file on a thread of its own, so that
// no write waits for it. By default the connection whose commit brings the log past its limit
// does that copy, and its fsync, before its caller gets an answer: for an upload chunk of
// megabytes that was as long as the write itself.
//
// Connections opened with a checkpointer (OpenSqliteConnection) do not checkpoint; each commit
// reports the log's length here (LogGrew), and once it reaches kCheckpointPages the thread runs a
// PASSIVE checkpoint on a connection of its own: it copies what no reader still needs and never
// blocks readers or writers. A failed checkpoint is logged and tried again at the next commit.
// The destructor stops the thread; SQLite checkpoints what is left when the last connection to the
// file closes. Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace tessera::storage {

class WalCheckpointer {
 public:
  static constexpr int kCheckpointPages = 1000;  // SQLite's own default limit

  WalCheckpointer(std::string path, std::chrono::milliseconds busy_timeout);
  ~WalCheckpointer();
  WalCheckpointer(const WalCheckpointer&) = delete;
  WalCheckpointer& operator=(const WalCheckpointer&) = delete;

  // Called by a connection after each commit with the log's length in pages.
  void LogGrew(int pages);

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
