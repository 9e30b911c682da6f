#include "service/dashboard/visualization_render.h"

#include <utility>

namespace tessera::service::dashboard {

RenderRun::RenderRun(std::vector<std::string> order, bool parallel, Compute compute,
                     RenderHooks hooks)
    : is_parallel_(parallel), compute_(std::move(compute)), hooks_(std::move(hooks)) {
  order_.reserve(order.size());
  for (auto& key : order) {
    if (entries_.try_emplace(key).second) order_.push_back(std::move(key));
  }
}

// Posted tasks own the run through shared_ptr, so none can outlive it: nothing to wait for.
RenderRun::~RenderRun() = default;

void RenderRun::Start(ThreadPool* pool) {
  if (pool == nullptr) {
    Start(std::shared_ptr<RenderSlots>());
    return;
  }
  Start(std::make_shared<RenderSlots>(*pool, pool->size()));
}

void RenderRun::Start(const std::shared_ptr<RenderSlots>& slots) {
  Lock lock(mutex_);
  if (started_) return;
  started_ = true;
  if (slots == nullptr || order_.empty()) return;
  auto self = shared_from_this();
  if (!is_parallel_) {
    lock.unlock();
    slots->Submit(0, [self] { self->RunSequence(); });
    return;
  }
  later_slots_ = slots;
  if (IsFinished(entries_.at(order_.front()))) {
    SubmitLaterKeys(lock);
    return;
  }
  lock.unlock();
  slots->Submit(0, [self, key = order_.front()] { self->RenderKeyInParallel(key); });
}

void RenderRun::Await(const std::string& key) {
  Lock lock(mutex_);
  auto it = entries_.find(key);
  if (it == entries_.end()) {
    lock.unlock();
    if (hooks_.before_compute) hooks_.before_compute(key);
    compute_(key);
    return;
  }
  if (is_parallel_) {
    AwaitInParallel(lock, key, it->second);
  } else {
    AwaitInSequence(lock, key, it->second);
  }
  if (it->second.state == KeyState::kFailed) std::rethrow_exception(it->second.error);
}

void RenderRun::RenderKeyInParallel(const std::string& key) {
  Lock lock(mutex_);
  Entry& entry = entries_.at(key);
  // An Await claimed it first: that caller computes it, this task has nothing left to do.
  if (entry.state == KeyState::kPending) ComputeInParallel(lock, key, entry);
}

void RenderRun::AwaitInParallel(Lock& lock, const std::string& key, Entry& entry) {
  bool reported = false;
  while (!IsFinished(entry)) {
    if (entry.state == KeyState::kPending) {
      ComputeInParallel(lock, key, entry);
    } else if (!reported) {
      reported = true;
      CallWaiting(lock, key, key);
    } else {
      changed_.wait(lock);
    }
  }
}

void RenderRun::ComputeInParallel(Lock& lock, const std::string& key, Entry& entry) {
  ComputeEntry(lock, key, entry);
  if (key == order_.front()) SubmitLaterKeys(lock);
}

void RenderRun::SubmitLaterKeys(Lock& lock) {
  // Taken under the lock, so the later keys are submitted once, by whoever finished the first.
  std::shared_ptr<RenderSlots> slots = std::move(later_slots_);
  later_slots_ = nullptr;
  if (slots == nullptr) return;
  lock.unlock();
  auto self = shared_from_this();
  for (size_t rank = 1; rank < order_.size(); ++rank) {
    slots->Submit(rank, [self, key = order_[rank]] { self->RenderKeyInParallel(key); });
  }
  lock.lock();
}

void RenderRun::RunSequence() {
  Lock lock(mutex_);
  while (true) {
    // The sequence is busy only while its holder computes, so this wait always ends.
    changed_.wait(lock, [this] { return !sequence_busy_; });
    if (cursor_ == order_.size()) return;
    ComputeNextInSequence(lock);
  }
}

void RenderRun::AwaitInSequence(Lock& lock, const std::string& key, Entry& entry) {
  std::string reported_on;
  bool reported = false;
  while (entry.state == KeyState::kPending || entry.state == KeyState::kRunning) {
    if (!sequence_busy_) {
      // `key` is pending, so the cursor has not passed it: this computes `key` or one before it.
      ComputeNextInSequence(lock);
    } else if (!reported || order_[cursor_] != reported_on) {
      reported = true;
      reported_on = order_[cursor_];
      CallWaiting(lock, key, reported_on);
    } else {
      changed_.wait(lock);
    }
  }
}

void RenderRun::ComputeNextInSequence(Lock& lock) {
  sequence_busy_ = true;
  const std::string& key = order_[cursor_];
  ComputeEntry(lock, key, entries_.at(key));
  ++cursor_;
  sequence_busy_ = false;
  changed_.notify_all();
}

void RenderRun::ComputeEntry(Lock& lock, const std::string& key, Entry& entry) {
  entry.state = KeyState::kRunning;
  lock.unlock();
  std::exception_ptr error;
  try {
    if (hooks_.before_compute) hooks_.before_compute(key);
    compute_(key);
  } catch (...) {
    error = std::current_exception();
  }
  lock.lock();
  entry.state = error ? KeyState::kFailed : KeyState::kDone;
  entry.error = std::move(error);
  changed_.notify_all();
}

void RenderRun::CallWaiting(Lock& lock, const std::string& key, const std::string& on) {
  if (!hooks_.waiting) return;
  lock.unlock();
  hooks_.waiting(key, on);
  lock.lock();
}

}  // namespace tessera::service::dashboard
