#include "core/thread_pool.h"

#include <spdlog/spdlog.h>

#include <exception>

namespace tessera {

ThreadPool::ThreadPool(size_t threads) {
  if (threads == 0) threads = 1;
  workers_.reserve(threads);
  for (size_t i = 0; i < threads; ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

ThreadPool::~ThreadPool() { Shutdown(); }

void ThreadPool::Post(std::function<void()> task) {
  {
    std::lock_guard lock(mutex_);
    tasks_.push_back(std::move(task));
  }
  wake_.notify_one();
}

size_t ThreadPool::QueueLength() const {
  std::lock_guard lock(mutex_);
  return tasks_.size();
}

size_t ThreadPool::BusyWorkers() const { return busy_.load(std::memory_order_relaxed); }

void ThreadPool::Shutdown() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& worker : workers_) worker.join();
}

void ThreadPool::WorkerLoop() {
  while (true) {
    std::function<void()> task;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
      if (tasks_.empty()) return;
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    busy_.fetch_add(1, std::memory_order_relaxed);
    try {
      task();
    } catch (const std::exception& e) {
      spdlog::error("compute task failed: {}", e.what());
    } catch (...) {
      spdlog::error("compute task failed with an unknown exception");
    }
    busy_.fetch_sub(1, std::memory_order_relaxed);
  }
}

}  // namespace tessera
