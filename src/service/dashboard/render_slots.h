// service/dashboard/render_slots.h
//
// The node's pre-render slots: a cap on how many visualization pre-renders (RenderRun tasks) run
// on the compute pool at once, across every dashboard instance. A computation on data already
// spreads over the whole pool (core/parallel.h), so more pre-renders at once than the pool has
// workers only share the cores: each one, the first visualization of a page included, ends later.
// The cap is node-wide rather than per instance because under load the instances of many users
// share the same cores, and a per-instance cap would still let them all run at once.
//
// Waiting pre-renders start by rank (a visualization's place in its instance's render order, the
// current page's first one being 0), then in submission order: under load every instance's first
// visualization starts before any instance's second. A run submits its later visualizations only
// once its first is computed, so the first never shares the cores with a pre-render of its page
// (visualization_render.h). A pre-render that waits long never blocks a reader, since a reader
// computes a visualization still pending itself.
//
// Contract:
//   - At most slots() submitted steps run at once; a step is posted to the pool only when it gets
//     a slot, so waiting steps occupy neither a worker nor the pool's queue.
//   - The slot is freed when the step returns or throws (a step's exception is swallowed: it is a
//     bug of the step, as for any pool task).
//   - A RenderSlots is owned by a std::shared_ptr (each posted step holds one); `pool` must
//     outlive it. Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "core/thread_pool.h"

namespace tessera::service::dashboard {

class RenderSlots : public std::enable_shared_from_this<RenderSlots> {
 public:
  // `slots` of 0 counts as 1.
  RenderSlots(ThreadPool& pool, size_t slots);
  RenderSlots(const RenderSlots&) = delete;
  RenderSlots& operator=(const RenderSlots&) = delete;

  // Runs `step` on the pool once a slot is free and no step of a lower rank, or of the same rank
  // submitted earlier, is waiting.
  void Submit(size_t rank, std::function<void()> step);

  size_t slots() const { return slots_; }

 private:
  using Place = std::pair<size_t, uint64_t>;  // rank, then submission order

  // Posts waiting steps while slots are free.
  void Dispatch(std::unique_lock<std::mutex>& lock);
  void RunStep(const std::function<void()>& step);

  ThreadPool& pool_;
  const size_t slots_;

  std::mutex mutex_;
  size_t running_ = 0;
  uint64_t submitted_ = 0;
  std::map<Place, std::function<void()>> waiting_;
};

}  // namespace tessera::service::dashboard
