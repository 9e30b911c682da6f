// engine/warehouse/postgres_warehouse.h
//
// Warehouse connections to a PostgreSQL server (or any engine speaking its protocol). The URL is
// handed to libpq as is; connecting gives up after a few seconds, and TCP keepalives make a call
// on a server that vanished without closing the socket fail too. Sessions use UTF-8 and ISO
// dates, so a `date` column reads as "yyyy-MM-dd".
//
// Query streams in libpq's single-row mode. Values are typed by the result column's type:
// int2/int4/int8 -> integer, float4/float8/numeric -> real, bool -> integer 0/1, anything else
// (text, varchar, date, timestamp, ...) -> text; NULL -> null. Parameters go as text with int8
// and float8 types for numbers and an unspecified type otherwise, so the server infers text,
// date or timestamp from where the value is used.
//
// Timeout and cancellation: while waiting for the server the connection looks at the deadline
// and the cancel flag every few tens of milliseconds (and the flag between rows); when either
// trips it sends a cancel request (PQcancel), drains what is left of the result, and throws
// kTimeout. The connection stays usable. Errors with SQLSTATE class 08 or 57P01-57P03, or a
// connection libpq reports as bad, are unreachable.
//
// BulkLoad: one transaction; CREATE TABLE, COPY ... FROM STDIN in text format sent in chunks of
// about 1 MiB, then the primary key and the indexes; ANALYZE after commit.
#pragma once

#include "core/sql_placeholders.h"

#include <memory>
#include <string>
#include <string_view>

#include "engine/warehouse/connection.h"

namespace tessera::engine::warehouse {

// Throws Error(kEngineUnreachable) when the server cannot be reached.
std::unique_ptr<WarehouseConnection> OpenPostgresWarehouseConnection(
    const std::string& warehouse_name, const std::string& url);

}  // namespace tessera::engine::warehouse
