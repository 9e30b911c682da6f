// engine/warehouse/sqlite_warehouse.h
//
// Warehouse connections to an SQLite file (the default warehouse is one, warehouse.db in the data
// directory). The file is created when missing; its directory must exist. Connections use WAL and
// wait up to a busy timeout for locks, so reports read while a load writes.
//
// Values are typed by what each cell holds (INTEGER, REAL, TEXT, NULL; a BLOB reads as text).
// Timeout and cancellation: a progress handler looks at the deadline and the cancel flag every
// few thousand virtual machine steps and interrupts the statement. A file that cannot be opened
// or is not a database (CANTOPEN, NOTADB, IOERR, CORRUPT, ...) is unreachable.
//
// BulkLoad runs in one write transaction with a reused prepared INSERT and synchronous=OFF
// (durability of a table being rebuilt does not matter until it commits), then checkpoints the
// WAL back into the file.
#pragma once

#include <memory>
#include <string>

#include "engine/warehouse/connection.h"

namespace tessera::engine::warehouse {

// Throws Error(kEngineUnreachable) when the file cannot be opened as a database.
std::unique_ptr<WarehouseConnection> OpenSqliteWarehouseConnection(
    const std::string& warehouse_name, const std::string& path);

}  // namespace tessera::engine::warehouse
