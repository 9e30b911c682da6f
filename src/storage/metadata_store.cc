#include "storage/metadata_store.h"

#include <spdlog/spdlog.h>

#include <atomic>

#include "core/error.h"
#include "storage/connection_pool.h"
#include "storage/memory_only.h"
#include "storage/metadata_transaction.h"
#include "storage/postgres_listener.h"
#include "storage/store_url.h"
#include "storage/wal_checkpointer.h"

namespace tessera::storage {
namespace {

using Work = std::function<void(MetadataTransaction&)>;

// The store for a URL that names no backend: configuration is missing or wrong.
class InvalidMetadataStore : public MetadataStore {
 public:
  void Write(const Work&) override {
    RequireStoreAccess();
    throw StorageUnavailableError();
  }
  void Read(const Work&) override {
    RequireStoreAccess();
    throw StorageUnavailableError();
  }
  bool IsAvailable() override { return false; }
  std::string backend_name() const override { return "invalid"; }
  PoolUsage pool_usage() override { return {}; }
  std::unique_ptr<NoticeSubscription> Subscribe(std::vector<std::string>, NoticeHandler) override {
    return nullptr;
  }
  uint64_t DirectoryGeneration() const override { return 0; }
};

class SqlMetadataStore : public MetadataStore {
 public:
  SqlMetadataStore(const StoreUrl& url, const StoreOptions& options)
      : url_(url),
        checkpointer_(url.backend == Backend::kSqlite
                          ? std::make_unique<WalCheckpointer>(url.target, options.busy_timeout)
                          : nullptr),
        pool_(
            [url, busy_timeout = options.busy_timeout, checkpointer = checkpointer_.get()] {
              return Connect(url, busy_timeout, checkpointer);
            },
            options.max_connections, options.retry_interval) {}

  void Write(const Work& work) override { Run(TransactionMode::kWrite, work); }
  void Read(const Work& work) override { Run(TransactionMode::kRead, work); }

  bool IsAvailable() override {
    try {
      Read([](MetadataTransaction&) {});
      return true;
    } catch (const std::exception&) {
      return false;
    }
  }

  std::string backend_name() const override { return std::string(BackendName(url_.backend)); }
  PoolUsage pool_usage() override { return pool_.Usage(); }

  std::unique_ptr<NoticeSubscription> Subscribe(std::vector<std::string> channels,
                                                NoticeHandler handler) override {
    if (url_.backend != Backend::kPostgres) return nullptr;
    return ListenOnPostgres(url_.target, std::move(channels), std::move(handler));
  }

  uint64_t DirectoryGeneration() const override { return directory_generation_.load(); }

 private:
  void Run(TransactionMode mode, const Work& work) {
    RequireStoreAccess();
    ConnectionPool::Lease lease = BeginTransaction(mode);
    MetadataTransaction transaction(*lease);
    try {
      work(transaction);
      if (transaction.changed_directory()) transaction.Notify(kDirectoryNoticeChannel, "");
      if (transaction.changed_objects()) transaction.CountObjectChange();
      lease->Commit();
      if (transaction.changed_directory()) ++directory_generation_;
    } catch (const SqlError& error) {
      RollbackQuietly(lease);
      throw Translate(error);
    } catch (...) {
      RollbackQuietly(lease);
      throw;
    }
  }

  ConnectionPool::Lease BeginTransaction(TransactionMode mode) {
    for (int attempt = 0;; ++attempt) {
      ConnectionPool::Lease lease = pool_.Acquire();
      try {
        lease->Begin(mode);
        return lease;
      } catch (const SqlError& error) {
        // A connection that sat idle while the server restarted fails on its first statement;
        // that says nothing about the database now, so try once more on a new connection.
        bool is_stale = error.kind() == SqlError::Kind::kConnectionLost && lease.reused();
        if (is_stale && attempt == 0) {
          lease.Discard();
          pool_.DiscardIdle();
          continue;
        }
        throw Translate(error);
      }
    }
  }

  static void RollbackQuietly(ConnectionPool::Lease& lease) {
    if (!lease->is_healthy()) return;
    try {
      lease->Rollback();
    } catch (const SqlError&) {
      lease.Discard();
    }
  }

  Error Translate(const SqlError& error) {
    switch (error.kind()) {
      case SqlError::Kind::kConnectionLost:
        pool_.ReportLost(error.what());
        return StorageUnavailableError();
      case SqlError::Kind::kBusy:
        spdlog::warn("storage: database busy: {}", error.what());
        return StorageUnavailableError();
      default:
        spdlog::error("storage: statement failed: {}", error.what());
        return Error(ErrorCode::kInternal, "The storage service could not complete the request.");
    }
  }

  const StoreUrl url_;
  std::unique_ptr<WalCheckpointer> checkpointer_;  // SQLite only; outlives the pool's connections
  ConnectionPool pool_;
  std::atomic<uint64_t> directory_generation_{0};
};

}  // namespace

std::unique_ptr<MetadataStore> MetadataStore::Open(const StoreOptions& options) {
  std::optional<StoreUrl> url = ParseStoreUrl(options.url);
  if (!url) {
    spdlog::error(
        "storage: the storage URL names no supported backend; expected sqlite:///path/to/file.db "
        "or postgresql://user@host:port/database");
    return std::make_unique<InvalidMetadataStore>();
  }
  return std::make_unique<SqlMetadataStore>(*url, options);
}

}  // namespace tessera::storage
