// storage/metadata_store.h
//
// The storage service: one relational schema, versioned by a schema_version table, on SQLite
// ("sqlite:///abs/path/metadata.db") or PostgreSQL ("postgresql://...").
//
// Contract:
//   - Open() never fails because the database is down: it returns a store whose calls fail until
//     the database can be used. A URL that names no supported backend also yields such a store.
//   - Every call that cannot use the database -- unreachable, stopped mid-run, schema older or
//     newer than kSchemaVersion, configuration missing or invalid -- throws
//     Error(kStorageUnavailable, kStorageUnavailableMessage). The reason is logged, not shown.
//   - The store recovers by itself: a broken connection is discarded and the next call connects
//     again (at most one attempt per retry interval while the database stays down).
//   - A database with no Tessera tables is initialised at the current schema version; one at an
//     older version this binary knows how to upgrade is upgraded in place (storage/schema.h).
//   - Write() runs its work in one transaction: committed when the work returns, rolled back when
//     it throws (the exception propagates unchanged). Read() runs read-only work the same way.
//   - Safe to use from many threads; each transaction holds one pooled connection.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/pool_usage.h"
#include "model/object.h"
#include "storage/change_notices.h"
#include "storage/metadata_transaction.h"
#include "storage/records.h"

namespace tessera::storage {

inline constexpr int kSchemaVersion = 9;

struct StoreOptions {
  std::string url;
  int max_connections = 8;
  std::chrono::milliseconds retry_interval{250};
  std::chrono::milliseconds busy_timeout{5000};  // SQLite lock wait
};

// The directory: projects and the objects outside every project (users, groups, the projects'
// object rows, with their ACLs and owners). A write transaction that puts a project, or puts or
// deletes an object outside every project, sends a notice on this channel (empty payload) when it
// commits, and counts in DirectoryGeneration().
inline constexpr char kDirectoryNoticeChannel[] = "tessera_directory";

class MetadataStore {
 public:
  static std::unique_ptr<MetadataStore> Open(const StoreOptions& options);
  virtual ~MetadataStore() = default;

  virtual void Write(const std::function<void(MetadataTransaction&)>& work) = 0;
  virtual void Read(const std::function<void(MetadataTransaction&)>& work) = 0;

  // True when a call made now would reach a usable database (tries to connect if needed).
  virtual bool IsAvailable() = 0;
  virtual std::string backend_name() const = 0;  // "sqlite", "postgresql" or "invalid"
  virtual PoolUsage pool_usage() = 0;

  // Hears the notices sent on `channels` (storage/change_notices.h); null when the backend has
  // none.
  virtual std::unique_ptr<NoticeSubscription> Subscribe(std::vector<std::string> channels,
                                                        NoticeHandler handler) = 0;

  // How many write transactions that changed the directory (see kDirectoryNoticeChannel) this
  // store object has committed; never decreases. What a node keeps of the directory is current
  // with its own writes while this number stays the same.
  virtual uint64_t DirectoryGeneration() const = 0;
};

}  // namespace tessera::storage
