// engine/warehouse/pool.h
//
// A Warehouse over pooled WarehouseConnections, whatever the dialect. Calls borrow an idle
// connection or open a new one (at most `max_connections` open at once; a caller waits for one
// to come back, up to its query timeout, and gives up early when its cancel flag is set).
//
// Recovery: a connection that reports itself unhealthy is closed, and so are the idle ones (they
// most likely point at the same dead server). A call that failed as unreachable on a connection
// taken from the idle list, before it handed anything to its sink or pulled anything from its
// source, is retried once on a fresh connection — so the first call after a server restart
// succeeds instead of tripping over a stale socket. Nothing remembers an outage: every call
// tries to connect.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "db/pool.h"
#include "engine/warehouse/connection.h"
#include "engine/warehouse/warehouse.h"

namespace tessera::engine::warehouse {

class PooledWarehouse : public Warehouse {
 public:
  // Opens a new connection; throws Error(kEngineUnreachable) when the database cannot be used.
  using Connector = std::function<std::unique_ptr<WarehouseConnection>()>;

  PooledWarehouse(Dialect dialect, std::string name, int max_connections, Connector connect);
  ~PooledWarehouse() override;

  Dialect dialect() const override { return dialect_; }
  const std::string& name() const override { return name_; }

  void Query(const SqlStatement& statement, RowSink& sink,
             const QueryOptions& options = {}) override;
  void BulkLoad(const TableSchema& schema, const RowSource& source,
                const std::vector<std::string>& indexed_columns = {}) override;
  std::string QuoteIdentifier(std::string_view identifier) const override;
  PoolUsage pool_usage() override;

 private:
  using Connections = db::Pool<WarehouseConnection>;
  using Clock = Connections::Clock;

  Connections::Lease Acquire(Clock::time_point deadline, const std::atomic<bool>* cancel);

  // Runs `call` on a leased connection, with the one retry described above; `call` sets
  // `started` once a retry would repeat work its caller can see.
  void WithConnection(Clock::time_point deadline, const std::atomic<bool>* cancel,
                      const std::function<void(WarehouseConnection&, bool& started)>& call);

  Dialect dialect_;
  std::string name_;
  Connector connect_;
  Connections connections_;
};

}  // namespace tessera::engine::warehouse
