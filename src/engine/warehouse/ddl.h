// engine/warehouse/ddl.h
//
// The statements BulkLoad writes for a TableSchema, per dialect. Identifiers are always quoted
// ("name", embedded quotes doubled), so any column name the model allows is safe.
//   SQLite:     integer -> INTEGER, real -> REAL, everything else -> TEXT (booleans as INTEGER
//               0/1); a single integer primary key becomes the rowid ("INTEGER PRIMARY KEY").
//   PostgreSQL: bigint, double precision, text, date, timestamp, boolean; the primary key is
//               added after the rows are copied in (AddPrimaryKeySql), which is faster.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/warehouse/warehouse.h"

namespace tessera::engine::warehouse {

std::string QuotedIdentifier(std::string_view identifier);

std::string ColumnTypeSql(model::DataType type, Dialect dialect);

std::string DropTableSql(const TableSchema& schema);

// CREATE TABLE with every column; SQLite declares the primary key here, PostgreSQL does not.
std::string CreateTableSql(const TableSchema& schema, Dialect dialect);

// ALTER TABLE ... ADD PRIMARY KEY, or "" when the schema has none.
std::string AddPrimaryKeySql(const TableSchema& schema);

// One CREATE INDEX per column, named "<table>_<column>_idx". Throws Error(kInvalidInput) for a
// column the schema does not have.
std::vector<std::string> CreateIndexSql(const TableSchema& schema,
                                        const std::vector<std::string>& columns);

// "col1", "col2", ... in schema order.
std::string ColumnListSql(const TableSchema& schema);

}  // namespace tessera::engine::warehouse
