// core/thread_pool.h
//
// The compute pool: a fixed number of worker threads taking tasks in FIFO order. Post() never
// blocks the caller. The destructor (or Shutdown) lets queued tasks finish, then joins. A task
// that throws is a bug: the exception is logged and swallowed so a worker never dies.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace tessera {

class ThreadPool {
 public:
  explicit ThreadPool(size_t threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  void Post(std::function<void()> task);
  void Shutdown();
  size_t size() const { return workers_.size(); }
  size_t QueueLength() const;  // tasks posted and not yet started
  size_t BusyWorkers() const;

 private:
  void WorkerLoop();

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> tasks_;
  bool stopping_ = false;
  std::atomic<size_t> busy_{0};
  std::vector<std::thread> workers_;
};

}  // namespace tessera
