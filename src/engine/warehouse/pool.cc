#include "engine/warehouse/pool.h"

#include <algorithm>

#include "core/error.h"
#include "engine/warehouse/ddl.h"

namespace tessera::engine::warehouse {
namespace {

// How often a caller waiting for a busy pool looks at its cancel flag.
constexpr std::chrono::milliseconds kCancelPollInterval{50};
// Longer timeouts are treated as this one, so deadlines never overflow the clock.
constexpr std::chrono::hours kLongestTimeout{24 * 365};

// A sink that remembers whether anything reached the caller's sink.
class TrackingSink : public RowSink {
 public:
  TrackingSink(RowSink& inner, bool& started) : inner_(inner), started_(started) {}
  void OnColumns(const std::vector<std::string>& names) override {
    started_ = true;
    inner_.OnColumns(names);
  }
  void OnRow(const std::vector<SqlValue>& row) override {
    started_ = true;
    inner_.OnRow(row);
  }

 private:
  RowSink& inner_;
  bool& started_;
};

bool IsCancelled(const std::atomic<bool>* cancel) {
  return cancel != nullptr && cancel->load(std::memory_order_relaxed);
}

}  // namespace

PooledWarehouse::PooledWarehouse(Dialect dialect, std::string name, int max_connections,
                                 Connector connect)
    : dialect_(dialect),
      name_(std::move(name)),
      connect_(std::move(connect)),
      connections_(max_connections) {}

PooledWarehouse::~PooledWarehouse() = default;

void PooledWarehouse::Query(const SqlStatement& statement, RowSink& sink,
                            const QueryOptions& options) {
  if (IsCancelled(options.cancel)) throw CancelledError(name_);
  auto deadline = Clock::now() + std::min<Clock::duration>(options.timeout, kLongestTimeout);
  WithConnection(deadline, options.cancel, [&](WarehouseConnection& connection, bool& started) {
    TrackingSink tracking(sink, started);
    QueryOptions remaining = options;
    remaining.timeout =
        std::max(std::chrono::milliseconds(1),
                 std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()));
    // Messages name the timeout the caller asked for, not what was left of it.
    try {
      connection.Query(statement, tracking, remaining);
    } catch (const Error& error) {
      if (error.code() == ErrorCode::kTimeout && !IsCancelled(options.cancel)) {
        throw TimedOutError(name_, options.timeout);
      }
      throw;
    }
  });
}

void PooledWarehouse::BulkLoad(const TableSchema& schema, const RowSource& source,
                               const std::vector<std::string>& indexed_columns) {
  auto no_deadline = Clock::time_point::max();
  WithConnection(no_deadline, nullptr, [&](WarehouseConnection& connection, bool& started) {
    RowSource tracking = [&](std::vector<SqlValue>& row) {
      started = true;
      return source(row);
    };
    connection.BulkLoad(schema, tracking, indexed_columns);
  });
}

std::string PooledWarehouse::QuoteIdentifier(std::string_view identifier) const {
  return QuotedIdentifier(identifier);
}

void PooledWarehouse::WithConnection(
    Clock::time_point deadline, const std::atomic<bool>* cancel,
    const std::function<void(WarehouseConnection&, bool& started)>& call) {
  for (int attempt = 0;; ++attempt) {
    Connections::Lease lease = Acquire(deadline, cancel);
    bool started = false;
    try {
      call(*lease, started);
      return;
    } catch (const Error& error) {
      if (error.code() != ErrorCode::kEngineUnreachable) throw;
      connections_.DiscardIdle();
      if (!lease.reused() || started || attempt > 0) throw;
    }
  }
}

PooledWarehouse::Connections::Lease PooledWarehouse::Acquire(Clock::time_point deadline,
                                                             const std::atomic<bool>* cancel) {
  auto wait_or_give_up = [&] {
    if (IsCancelled(cancel)) throw CancelledError(name_);
    if (Clock::now() >= deadline) {
      throw Error(ErrorCode::kTimeout, "The warehouse '" + name_ + "' had no free connection (" +
                                           std::to_string(connections_.max_connections()) +
                                           " in use) before the query timed out");
    }
    return std::min(deadline, Clock::now() + kCancelPollInterval);
  };
  return connections_.Acquire(
      wait_or_give_up, [] {}, [&] { return connect_(); });
}

PoolUsage PooledWarehouse::pool_usage() { return connections_.Usage(); }

}  // namespace tessera::engine::warehouse
