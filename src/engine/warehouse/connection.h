// engine/warehouse/connection.h
//
// One open connection to a warehouse database, used by one thread at a time; the dialect's half
// of Warehouse (engine/warehouse/warehouse.h). Query and BulkLoad keep the Warehouse contract, with
// one addition: a connection that finds its database gone throws Error(kEngineUnreachable) and
// reports is_healthy() == false from then on, so the pool closes it instead of reusing it. Any
// other failure leaves the connection usable, with no transaction open.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "core/error.h"
#include "engine/warehouse/warehouse.h"

namespace tessera::engine::warehouse {

class WarehouseConnection {
 public:
  virtual ~WarehouseConnection() = default;

  virtual void Query(const SqlStatement& statement, RowSink& sink, const QueryOptions& options) = 0;
  virtual void BulkLoad(const TableSchema& schema, const RowSource& source,
                        const std::vector<std::string>& indexed_columns) = 0;

  virtual bool is_healthy() const = 0;
};

// The messages every dialect uses, so callers see one wording.
Error UnreachableError(const std::string& warehouse_name);
Error TimedOutError(const std::string& warehouse_name, std::chrono::milliseconds timeout);
Error CancelledError(const std::string& warehouse_name);
Error RefusedError(const std::string& warehouse_name, std::string_view database_message);

}  // namespace tessera::engine::warehouse
