// storage/schema.h
//
// The storage service's relational schema, one text for SQLite and PostgreSQL: TEXT, BIGINT and
// DOUBLE PRECISION columns, timestamps as BIGINT unix milliseconds, booleans as BIGINT 0/1, JSON as
// TEXT. Configuration-level objects have project_id ''.
#pragma once

#include "storage/sql_connection.h"

namespace tessera::storage {

// Brings a freshly opened connection's database to a usable state: a database without a
// schema_version table is initialised at kSchemaVersion in one transaction, and one at an older
// version from 1 on is upgraded to kSchemaVersion in one transaction, keeping its data
// (concurrent initialisers and upgraders are serialised, the loser finds the work done). Throws
// SqlError(kSchemaMismatch) when the database holds a version this binary cannot use: newer, or
// older than 1; SqlError of other kinds when the database cannot be read or written.
void EnsureSchema(SqlConnection& connection);

}  // namespace tessera::storage
