#include "service/instance/instance_store.h"

#include <algorithm>
#include <vector>

#include "core/error.h"
#include "core/ids.h"

namespace tessera::service::instance {

InstanceStore::InstanceStore(InstanceStoreOptions options) : options_(options) {}

std::shared_ptr<Instance> InstanceStore::Create(
    InstanceOwner owner, std::shared_ptr<const InstanceDefinition> definition) {
  const std::string session_id = owner.session_id;
  auto instance =
      std::make_shared<Instance>(NewObjectId(), std::move(owner), std::move(definition));
  std::vector<std::string> capped;
  {
    std::lock_guard lock(mutex_);
    const Clock::time_point now = Clock::now();
    SweepExpired(now);
    instance->last_used_ = now;
    instances_.emplace(instance->id(), instance);
    capped = EnforceSessionCap(session_id);
  }
  TellCapped(capped);
  return instance;
}

std::shared_ptr<Instance> InstanceStore::Adopt(
    std::string id, InstanceOwner owner, std::shared_ptr<const InstanceDefinition> definition) {
  const std::string session_id = owner.session_id;
  auto instance =
      std::make_shared<Instance>(std::move(id), std::move(owner), std::move(definition));
  std::vector<std::string> capped;
  std::shared_ptr<Instance> held;
  {
    std::lock_guard lock(mutex_);
    const Clock::time_point now = Clock::now();
    SweepExpired(now);
    auto [found, inserted] = instances_.emplace(instance->id(), instance);
    found->second->last_used_ = now;
    held = found->second;
    if (inserted) capped = EnforceSessionCap(session_id);
  }
  TellCapped(capped);
  return held;
}

std::shared_ptr<Instance> InstanceStore::Find(const InstanceOwner& owner, std::string_view id,
                                              std::string_view noun) {
  const std::optional<std::string> canonical = CanonicalObjectId(id);
  std::lock_guard lock(mutex_);
  const Clock::time_point now = Clock::now();
  auto found = canonical ? instances_.find(*canonical) : instances_.end();
  if (found != instances_.end() && now - found->second->last_used_ > options_.idle_ttl) {
    Forget(*found->second);
    instances_.erase(found);
    found = instances_.end();
  }
  if (found == instances_.end() || found->second->owner().session_id != owner.session_id ||
      found->second->owner().object_id != owner.object_id) {
    throw Error(ErrorCode::kNotFound, std::string(noun) + " instance '" + std::string(id) +
                                          "' was not found or has expired.");
  }
  found->second->last_used_ = now;
  return found->second;
}

ResultPtr InstanceStore::Result(Instance& instance, std::string_view key,
                                const std::function<ResultPtr()>& compute) {
  const std::shared_ptr<Instance::Slot> slot = SlotOf(instance, key);
  std::lock_guard computing(slot->computing);
  {
    std::lock_guard lock(mutex_);
    instance.last_used_ = Clock::now();
    if (slot->result) return slot->result;
  }
  ResultPtr result = compute();
  std::lock_guard lock(mutex_);
  if (instance.removed_) return result;
  slot->result = result;
  slot->bytes = result ? result->MemoryBytes() : 0;
  cached_bytes_ += slot->bytes;
  EnforceBudget(slot.get());
  return result;
}

void InstanceStore::RemoveSession(std::string_view session_id) {
  std::lock_guard lock(mutex_);
  for (auto it = instances_.begin(); it != instances_.end();) {
    if (it->second->owner().session_id == session_id) {
      Forget(*it->second);
      it = instances_.erase(it);
    } else {
      ++it;
    }
  }
}

void InstanceStore::Remove(Instance& instance) {
  std::lock_guard lock(mutex_);
  auto found = instances_.find(instance.id());
  if (found == instances_.end() || found->second.get() != &instance) return;
  Forget(instance);
  instances_.erase(found);
}

void InstanceStore::Drop(Instance& instance, std::string_view key) {
  std::lock_guard lock(mutex_);
  auto found = instance.slots_.find(key);
  if (found == instance.slots_.end() || !found->second->result) return;
  cached_bytes_ -= found->second->bytes;
  found->second->result.reset();
  found->second->bytes = 0;
}

size_t InstanceStore::InstanceCount() const {
  std::lock_guard lock(mutex_);
  return instances_.size();
}

size_t InstanceStore::CachedResultBytes() const {
  std::lock_guard lock(mutex_);
  return cached_bytes_;
}

std::shared_ptr<Instance::Slot> InstanceStore::SlotOf(Instance& instance, std::string_view key) {
  std::lock_guard lock(mutex_);
  auto found = instance.slots_.find(key);
  if (found == instance.slots_.end()) {
    found = instance.slots_.emplace(std::string(key), std::make_shared<Instance::Slot>()).first;
  }
  return found->second;
}

void InstanceStore::SweepExpired(Clock::time_point now) {
  for (auto it = instances_.begin(); it != instances_.end();) {
    if (now - it->second->last_used_ > options_.idle_ttl) {
      Forget(*it->second);
      it = instances_.erase(it);
    } else {
      ++it;
    }
  }
}

std::vector<std::string> InstanceStore::EnforceSessionCap(const std::string& session_id) {
  std::vector<std::map<std::string, std::shared_ptr<Instance>>::iterator> owned;
  for (auto it = instances_.begin(); it != instances_.end(); ++it) {
    if (it->second->owner().session_id == session_id) owned.push_back(it);
  }
  std::vector<std::string> capped;
  if (owned.size() <= options_.per_session_cap) return capped;
  std::sort(owned.begin(), owned.end(), [](const auto& a, const auto& b) {
    return a->second->last_used_ < b->second->last_used_;
  });
  for (size_t i = 0; i < owned.size() - options_.per_session_cap; ++i) {
    capped.push_back(owned[i]->first);
    Forget(*owned[i]->second);
    instances_.erase(owned[i]);
  }
  return capped;
}

void InstanceStore::TellCapped(const std::vector<std::string>& ids) const {
  if (!on_capped_) return;
  for (const auto& id : ids) on_capped_(id);
}

void InstanceStore::EnforceBudget(const Instance::Slot* keep) {
  if (cached_bytes_ <= options_.result_budget_bytes) return;
  std::vector<Instance*> by_age;
  for (const auto& [id, instance] : instances_) by_age.push_back(instance.get());
  std::sort(by_age.begin(), by_age.end(),
            [](const Instance* a, const Instance* b) { return a->last_used_ < b->last_used_; });
  for (Instance* instance : by_age) {
    for (auto& [key, slot] : instance->slots_) {
      if (cached_bytes_ <= options_.result_budget_bytes) return;
      if (slot.get() == keep || !slot->result) continue;
      cached_bytes_ -= slot->bytes;
      slot->result.reset();
      slot->bytes = 0;
    }
  }
}

void InstanceStore::Forget(Instance& instance) {
  instance.removed_ = true;
  for (auto& [key, slot] : instance.slots_) {
    cached_bytes_ -= slot->bytes;
    slot->bytes = 0;
    slot->result.reset();
  }
}

}  // namespace tessera::service::instance
