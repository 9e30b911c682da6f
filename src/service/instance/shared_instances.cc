#include "service/instance/shared_instances.h"

#include "core/error.h"
#include "core/ids.h"

namespace tessera::service::instance {

namespace {

constexpr auto kSweepInterval = std::chrono::minutes(1);

}  // namespace

SharedInstances::SharedInstances(storage::MetadataStore& store, InstanceStore& instances,
                                 std::chrono::milliseconds idle_ttl)
    : store_(store), instances_(instances), idle_ttl_(idle_ttl) {
  // An instance this node drops to keep its session within the cap ends on every node.
  instances_.set_on_capped([this](const std::string& id) {
    try {
      Remove(id);
    } catch (const Error&) {
    }  // a record left behind expires with its last use
  });
}

void SharedInstances::Create(Instance& instance, const std::string& project_id,
                             std::string_view kind, Json data) {
  const Timestamp now = Now();
  storage::InstanceRecord record;
  record.id = instance.id();
  record.session_id = instance.owner().session_id;
  record.project_id = project_id;
  record.kind = std::string(kind);
  record.revision = 1;
  data["object"] = instance.owner().object_id;
  record.data = std::move(data);
  record.created = now;
  record.last_used = now;
  store_.Write([&](storage::MetadataTransaction& tx) {
    tx.PutInstance(record);
    RemoveUnusedIfDue(tx, now);
  });
  instance.recorded_revision() = record.revision;
  instance.recorded_use_ms() = ToUnixMillis(now);
}

void SharedInstances::Revise(Instance& instance, Json data) {
  storage::InstanceRecord record;
  record.id = instance.id();
  const int64_t held = instance.recorded_revision().load();
  record.revision = held + 1;
  data["object"] = instance.owner().object_id;
  record.data = std::move(data);
  record.last_used = Now();
  bool revised = false;
  bool exists = true;
  store_.Write([&](storage::MetadataTransaction& tx) {
    revised = tx.ReviseInstance(record, held);
    if (!revised) exists = tx.InstanceRevision(record.id).has_value();
  });
  if (revised) {
    instance.recorded_revision() = record.revision;
    instance.recorded_use_ms() = ToUnixMillis(record.last_used);
    return;
  }
  instances_.Remove(instance);
  if (!exists) {
    throw Error(ErrorCode::kNotFound,
                "Instance '" + instance.id() + "' was not found or has expired.");
  }
  throw Error(ErrorCode::kAlreadyExists,
              "Instance '" + instance.id() +
                  "' was changed by another request at the same time; its state now is that "
                  "change's. Apply this change again.");
}

std::optional<storage::InstanceRecord> SharedInstances::Find(const InstanceOwner& owner,
                                                             std::string_view id,
                                                             std::string_view kind) {
  const std::optional<std::string> canonical = CanonicalObjectId(id);
  if (!canonical) return std::nullopt;
  std::optional<storage::InstanceRecord> record;
  store_.Read([&](storage::MetadataTransaction& tx) { record = tx.FindInstance(*canonical); });
  if (!record || record->session_id != owner.session_id || record->kind != kind) {
    return std::nullopt;
  }
  if (Now() - record->last_used > idle_ttl_) return std::nullopt;
  auto object = record->data.find("object");
  if (object == record->data.end() || !object->is_string() ||
      object->get<std::string>() != owner.object_id) {
    return std::nullopt;
  }
  return record;
}

void SharedInstances::Adopted(Instance& instance, const storage::InstanceRecord& record) {
  instance.recorded_revision() = record.revision;
  instance.recorded_use_ms() = ToUnixMillis(record.last_used);
  TouchIfDue(instance, Now());
}

bool SharedInstances::IsCurrent(Instance& instance) {
  std::optional<int64_t> revision;
  store_.Read(
      [&](storage::MetadataTransaction& tx) { revision = tx.InstanceRevision(instance.id()); });
  if (!revision || *revision != instance.recorded_revision().load()) return false;
  TouchIfDue(instance, Now());
  return true;
}

void SharedInstances::Remove(const std::string& id) {
  store_.Write([&](storage::MetadataTransaction& tx) { tx.DeleteInstance(id); });
}

void SharedInstances::TouchIfDue(Instance& instance, Timestamp now) {
  const int64_t now_ms = ToUnixMillis(now);
  int64_t recorded = instance.recorded_use_ms().load();
  if (now_ms - recorded < idle_ttl_.count() / 4) return;
  if (!instance.recorded_use_ms().compare_exchange_strong(recorded, now_ms)) return;
  store_.Write([&](storage::MetadataTransaction& tx) { tx.TouchInstance(instance.id(), now); });
}

void SharedInstances::RemoveUnusedIfDue(storage::MetadataTransaction& tx, Timestamp now) {
  const int64_t now_ms = ToUnixMillis(now);
  int64_t last = last_sweep_ms_.load();
  const int64_t interval =
      std::chrono::duration_cast<std::chrono::milliseconds>(kSweepInterval).count();
  if (now_ms - last < interval || !last_sweep_ms_.compare_exchange_strong(last, now_ms)) return;
  tx.DeleteInstancesUnusedSince(now - idle_ttl_);
}

}  // namespace tessera::service::instance
