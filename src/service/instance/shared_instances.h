// service/instance/shared_instances.h
//
// The instances of every node: what a report, cube or dashboard instance was made from, kept in the
// storage service so that a node that never saw an instance -- or a node that replaced one that
// died -- rebuilds it and answers for it. The instance services record an instance when they create
// it and whenever its definition changes (a new sorting, a dashboard manipulation), and rebuild it
// from its record when their own store does not hold it or holds an older revision of it.
//
// Contract:
//   - Create() records a new instance (revision 1; its id, session and object come from the
//     instance) as used now. Once a minute at most it also removes the records no node used
//     within `idle_ttl`.
//   - Revise() records a change of the instance's definition (one revision more) only if the
//     record is still at the revision this node holds; otherwise another node changed it first:
//     the instance is removed from this node's store (the next request rebuilds the newer one)
//     and Error(kAlreadyExists) says to apply the change again. A record gone meanwhile (deleted,
//     its session ended) is Error(kNotFound).
//   - Find() returns the record when the id (any case) exists, belongs to `owner`'s session and
//     object, is of `kind`, and was used within `idle_ttl`; nullopt otherwise (the callers then
//     answer as for any unknown instance). Adopted() tells the rebuilt instance its revision.
//   - IsCurrent() reads the record's revision (one indexed read): false when the record is gone
//     or at another revision than this node's copy. It also marks the instance used, writing at
//     most once per quarter of `idle_ttl` per instance and node.
//   - An instance `instances` removes to keep a session within its cap loses its record too.
//   - Remove() forgets one instance's record. A session's records go with the session
//     (SessionService), a user's with the user's sessions.
//   - Thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/json.h"
#include "service/instance/instance_store.h"
#include "storage/metadata_store.h"

namespace tessera::service::instance {

class SharedInstances {
 public:
  SharedInstances(storage::MetadataStore& store, InstanceStore& instances,
                  std::chrono::milliseconds idle_ttl);

  void Create(Instance& instance, const std::string& project_id, std::string_view kind, Json data);
  void Revise(Instance& instance, Json data);
  std::optional<storage::InstanceRecord> Find(const InstanceOwner& owner, std::string_view id,
                                              std::string_view kind);
  void Adopted(Instance& instance, const storage::InstanceRecord& record);
  bool IsCurrent(Instance& instance);
  void Remove(const std::string& id);

 private:
  void TouchIfDue(Instance& instance, Timestamp now);
  void RemoveUnusedIfDue(storage::MetadataTransaction& tx, Timestamp now);

  storage::MetadataStore& store_;
  InstanceStore& instances_;
  const std::chrono::milliseconds idle_ttl_;
  std::atomic<int64_t> last_sweep_ms_{0};
};

}  // namespace tessera::service::instance
