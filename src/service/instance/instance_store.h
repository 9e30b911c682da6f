// service/instance/instance_store.h
//
// The report, cube and dashboard instances of one node. An instance belongs to the session that
// created it and to the object in its path. It keeps its definition (what was asked, fixed at
// creation) for its whole life, and the frozen results computed from it under string keys ("" for a
// report or cube grid, a visualization key for a dashboard). A memory budget may drop results;
// Result() then recomputes them from the definition, which gives the same rows in the same order,
// so pages cut from a result never shift.
//
// Contract:
//   - Create() returns a new instance id (32 upper-case hex). When the owner's session then holds
//     more than `per_session_cap` instances, its least recently used one is removed, and the
//     function set_on_capped() gave hears its id (after the store's lock is released).
//   - Adopt() is Create() with the id given (an instance rebuilt from another node's record).
//   - Find() returns the instance when the id (any case) exists, belongs to `owner`'s session and
//     object, and was used within `idle_ttl`; it marks it used. Otherwise Error(kNotFound) with
//     "<noun> instance '<id>' was not found or has expired." -- the same answer for an unknown,
//     expired or foreign id, so an instance's existence does not leak across sessions.
//   - Result() returns the instance's cached result for `key`, or runs `compute` outside the
//     store's lock (concurrent callers for one key wait for the one computation; an exception
//     reaches each of them and nothing is cached) and caches what it returns (unless the instance
//     was removed meanwhile: the result is returned, not kept). Then, while the
//     cached results of all instances exceed `result_budget_bytes`, the results of the least
//     recently used instances are dropped -- never the result just returned.
//   - RemoveSession() drops every instance of a session (logout); Remove() one instance; Drop()
//     the cached result of one key, which the next Result() computes again. Expired instances are
//     removed by the sweep each Create() runs.
//   - Thread-safe; an Instance may be used by many requests at once.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "engine/cube_query.h"

namespace tessera::service::instance {

// What a kind of instance keeps about the request that created it; kinds derive from it.
struct InstanceDefinition {
  virtual ~InstanceDefinition() = default;
};

struct InstanceOwner {
  std::string session_id;
  std::string object_id;  // the report, cube or dashboard in the path (upper case)
};

struct InstanceStoreOptions {
  std::chrono::milliseconds idle_ttl{std::chrono::minutes(30)};
  size_t per_session_cap = 50;
  size_t result_budget_bytes = size_t{1} << 30;
};

using ResultPtr = std::shared_ptr<const engine::ResultSet>;

class Instance {
 public:
  Instance(std::string id, InstanceOwner owner,
           std::shared_ptr<const InstanceDefinition> definition)
      : id_(std::move(id)), owner_(std::move(owner)), definition_(std::move(definition)) {}

  const std::string& id() const { return id_; }
  const InstanceOwner& owner() const { return owner_; }
  const InstanceDefinition& definition() const { return *definition_; }
  // The revision of its record this node holds, and when this node last recorded its use in
  // the storage service (unix ms): service/instance/shared_instances.h.
  std::atomic<int64_t>& recorded_revision() { return recorded_revision_; }
  std::atomic<int64_t>& recorded_use_ms() { return recorded_use_ms_; }

 private:
  friend class InstanceStore;

  struct Slot {
    std::mutex computing;  // held while the result of this key is computed
    ResultPtr result;      // guarded by the store's mutex
    size_t bytes = 0;
  };

  const std::string id_;
  const InstanceOwner owner_;
  const std::shared_ptr<const InstanceDefinition> definition_;
  std::map<std::string, std::shared_ptr<Slot>, std::less<>> slots_;  // guarded by the store
  std::chrono::steady_clock::time_point last_used_;                  // guarded by the store
  bool removed_ = false;                                             // guarded by the store
  std::atomic<int64_t> recorded_revision_{0};
  std::atomic<int64_t> recorded_use_ms_{0};
};

class InstanceStore {
 public:
  explicit InstanceStore(InstanceStoreOptions options = {});

  std::shared_ptr<Instance> Create(InstanceOwner owner,
                                   std::shared_ptr<const InstanceDefinition> definition);
  // Takes in an instance another node created (service/instance/shared_instances.h) under its own
  // id; the instance already held under that id, if any, wins.
  std::shared_ptr<Instance> Adopt(std::string id, InstanceOwner owner,
                                  std::shared_ptr<const InstanceDefinition> definition);
  std::shared_ptr<Instance> Find(const InstanceOwner& owner, std::string_view id,
                                 std::string_view noun);
  ResultPtr Result(Instance& instance, std::string_view key,
                   const std::function<ResultPtr()>& compute);
  void RemoveSession(std::string_view session_id);
  // Forgets one instance (its computation failed) / the cached result of one key (its
  // definition changed).
  void Remove(Instance& instance);
  void Drop(Instance& instance, std::string_view key);

  void set_on_capped(std::function<void(const std::string& id)> on_capped) {
    on_capped_ = std::move(on_capped);
  }

  size_t InstanceCount() const;
  size_t CachedResultBytes() const;
  size_t result_budget_bytes() const { return options_.result_budget_bytes; }

 private:
  using Clock = std::chrono::steady_clock;

  std::shared_ptr<Instance::Slot> SlotOf(Instance& instance, std::string_view key);
  void SweepExpired(Clock::time_point now);
  // The ids of the instances removed.
  std::vector<std::string> EnforceSessionCap(const std::string& session_id);
  void TellCapped(const std::vector<std::string>& ids) const;
  void EnforceBudget(const Instance::Slot* keep);
  void Forget(Instance& instance);

  const InstanceStoreOptions options_;
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<Instance>, std::less<>> instances_;
  size_t cached_bytes_ = 0;
  std::function<void(const std::string&)> on_capped_;
};

}  // namespace tessera::service::instance
