// service/dashboard/visualization_render.h
//
// The first rendering of a dashboard instance: the visualizations of the current chapter,
// identified by string keys and listed in `order` (the current page's first; a page's in their
// order on the page), are computed once each. A RenderRun pre-renders them on the compute pool,
// through the node's pre-render slots (render_slots.h), and lets each visualization's GET wait
// for its own key.
//
//   - Parallel: one pre-render per key, started in `order`, with no more running at once across
//     the node than there are slots (as many as the pool has workers, by default). The first
//     key's pre-render is submitted at Start(); the later keys' only once the first key is
//     finished (done or failed), by whichever thread finished it. A computation on data spreads
//     over the whole pool, so there is never a core free beyond those the first visualization
//     needs: a later pre-render started beside it would only take cores from it. The page's
//     later visualizations then render side by side. Await(key) returns as soon as that key is
//     done.
//   - Sequential: one pre-render (one slot) computes the keys strictly in `order`, one at a time,
//     so Await(key) returns only after every key before it is done too.
//
// Every HTTP handler runs on the same compute pool, so a waiting Await occupies a pool worker.
// Nothing ever waits for a task that has not started (claim-or-wait): an Await that finds its key
// still pending computes it itself at once, without a slot (parallel), or takes the sequence and
// computes the next pending key itself (sequential). It waits only while another thread is
// computing, so a run finishes on a pool of one worker, with one slot, or with no pool at all; a
// pre-render still waiting for a slot never delays a reader.
//
// Contract:
//   - Each key of `order` is computed exactly once, by whichever thread claims it first; a key
//     listed twice counts once (its first place).
//   - Pre-renders start in `order`; with shared slots, waiting pre-renders of all runs start by
//     their place in their run's order, then by submission (render_slots.h). Parallel: no later
//     key's pre-render starts before the first key is finished.
//   - Only pre-renders wait for the first key: an Await of a later key still computes it at once
//     (a user's read is never held back by a slow visualization, the first included).
//   - compute(key) may throw: the key is then failed, and every Await of it rethrows that same
//     exception; no other key is affected, and in sequential mode the keys after it are still
//     computed.
//   - Await(key) of a key not in `order` computes it directly on the caller's thread (no caching,
//     no waiting) and lets its exception through.
//   - Start() is called at most once (later calls do nothing) and needs the run to be owned by a
//     std::shared_ptr: each pre-render holds one, so the run outlives its tasks. `compute` and
//     the hooks must stay valid as long as the run.
//   - The mutex is never held while computing or calling a hook. Thread-safe.
#pragma once

#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/thread_pool.h"
#include "service/dashboard/render_slots.h"

namespace tessera::service::dashboard {

// Observation points for tests; an empty function is not called.
struct RenderHooks {
  // Called on the computing thread right before compute(key); may block.
  std::function<void(const std::string& key)> before_compute;
  // A caller of Await(key) starts waiting on `on`, which another thread is computing (parallel:
  // `on` is `key`; sequential: the key the sequence is at). Called once per distinct `on`.
  std::function<void(const std::string& key, const std::string& on)> waiting;
};

class RenderRun : public std::enable_shared_from_this<RenderRun> {
 public:
  using Compute = std::function<void(const std::string& key)>;

  RenderRun(std::vector<std::string> order, bool parallel, Compute compute, RenderHooks hooks = {});
  ~RenderRun();
  RenderRun(const RenderRun&) = delete;
  RenderRun& operator=(const RenderRun&) = delete;

  // Parallel: submits the first key's pre-render, and each later key's, ranked by its place in
  // `order`, once the first is finished. Sequential: submits one pre-render that runs the keys in
  // order. Null slots pre-render nothing; Await then computes on demand.
  void Start(const std::shared_ptr<RenderSlots>& slots);
  // Start() with slots of this run's own, as many as the pool has workers (none for a null pool).
  void Start(ThreadPool* pool);

  // Returns once `key` is done; rethrows its failure.
  void Await(const std::string& key);

  bool parallel() const { return is_parallel_; }

 private:
  enum class KeyState { kPending, kRunning, kDone, kFailed };
  struct Entry {
    KeyState state = KeyState::kPending;
    std::exception_ptr error;
  };

  using Lock = std::unique_lock<std::mutex>;

  static bool IsFinished(const Entry& entry) {
    return entry.state == KeyState::kDone || entry.state == KeyState::kFailed;
  }

  void RenderKeyInParallel(const std::string& key);
  void AwaitInParallel(Lock& lock, const std::string& key, Entry& entry);
  // ComputeEntry, then, if `key` is the first of the order, SubmitLaterKeys.
  void ComputeInParallel(Lock& lock, const std::string& key, Entry& entry);
  // Submits the pre-renders of every key after the first, once; called with the lock held.
  void SubmitLaterKeys(Lock& lock);
  void RunSequence();
  void AwaitInSequence(Lock& lock, const std::string& key, Entry& entry);
  // Computes the key at the sequence cursor; called with the lock held and the sequence free.
  void ComputeNextInSequence(Lock& lock);
  // Marks `entry` running, computes it outside the lock, then marks it done or failed.
  void ComputeEntry(Lock& lock, const std::string& key, Entry& entry);
  void CallWaiting(Lock& lock, const std::string& key, const std::string& on);

  const bool is_parallel_;
  const Compute compute_;
  const RenderHooks hooks_;
  std::vector<std::string> order_;  // without repeats

  std::mutex mutex_;
  std::condition_variable changed_;  // a key finished or the sequence was released
  std::unordered_map<std::string, Entry> entries_;
  bool started_ = false;
  // Parallel: the slots the later keys are submitted to once the first is finished; null before
  // Start(), without slots, and once they are submitted.
  std::shared_ptr<RenderSlots> later_slots_;
  size_t cursor_ = 0;           // sequential: index in order_ of the next key to compute
  bool sequence_busy_ = false;  // sequential: someone is computing order_[cursor_]
};

}  // namespace tessera::service::dashboard
