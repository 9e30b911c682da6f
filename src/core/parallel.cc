#include "core/parallel.h"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>

namespace tessera {
namespace {

struct ParallelState {
  std::mutex mutex;
  std::condition_variable idle;
  size_t chunks = 0;
  size_t next = 0;     // next chunk to claim
  size_t workers = 0;  // workers registered so far (the caller is worker 0)
  size_t active = 0;   // registered workers still running
  std::exception_ptr error;
  const std::function<void(size_t, size_t)>* task = nullptr;

  std::optional<size_t> Claim() {
    std::lock_guard lock(mutex);
    if (error || next >= chunks) return std::nullopt;
    return next++;
  }

  void Run(size_t worker) {
    while (auto chunk = Claim()) {
      try {
        (*task)(worker, *chunk);
      } catch (...) {
        std::lock_guard lock(mutex);
        if (!error) error = std::current_exception();
      }
    }
  }
};

void RunPosted(const std::shared_ptr<ParallelState>& state) {
  size_t worker = 0;
  {
    std::lock_guard lock(state->mutex);
    if (state->error || state->next >= state->chunks) return;
    worker = state->workers++;
    ++state->active;
  }
  state->Run(worker);
  std::lock_guard lock(state->mutex);
  if (--state->active == 0) state->idle.notify_all();
}

}  // namespace

size_t ParallelWorkers(const ThreadPool* pool) { return pool ? pool->size() + 1 : 1; }

void ParallelFor(ThreadPool* pool, size_t chunks,
                 const std::function<void(size_t worker, size_t chunk)>& task) {
  auto state = std::make_shared<ParallelState>();
  state->chunks = chunks;
  state->workers = 1;
  state->task = &task;
  const size_t helpers = pool && chunks > 1 ? std::min(pool->size(), chunks - 1) : 0;
  for (size_t i = 0; i < helpers; ++i) pool->Post([state] { RunPosted(state); });
  state->Run(0);
  std::unique_lock lock(state->mutex);
  state->idle.wait(lock, [&] { return state->active == 0; });
  if (state->error) std::rethrow_exception(state->error);
}

}  // namespace tessera
