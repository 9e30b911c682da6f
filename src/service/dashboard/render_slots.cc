#include "service/dashboard/render_slots.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <exception>

namespace tessera::service::dashboard {

RenderSlots::RenderSlots(ThreadPool& pool, size_t slots)
    : pool_(pool), slots_(std::max<size_t>(1, slots)) {}

void RenderSlots::Submit(size_t rank, std::function<void()> step) {
  std::unique_lock lock(mutex_);
  waiting_.emplace(Place(rank, submitted_++), std::move(step));
  Dispatch(lock);
}

void RenderSlots::Dispatch(std::unique_lock<std::mutex>& lock) {
  std::vector<std::function<void()>> starting;
  while (running_ < slots_ && !waiting_.empty()) {
    auto first = waiting_.begin();
    starting.push_back(std::move(first->second));
    waiting_.erase(first);
    ++running_;
  }
  lock.unlock();
  auto self = shared_from_this();
  for (auto& step : starting) {
    pool_.Post([self, step = std::move(step)] { self->RunStep(step); });
  }
}

void RenderSlots::RunStep(const std::function<void()>& step) {
  try {
    step();
  } catch (const std::exception& e) {
    spdlog::error("pre-render step failed: {}", e.what());
  } catch (...) {
    spdlog::error("pre-render step failed with an unknown exception");
  }
  std::unique_lock lock(mutex_);
  --running_;
  Dispatch(lock);
}

}  // namespace tessera::service::dashboard
