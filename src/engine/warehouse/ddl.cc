#include "engine/warehouse/ddl.h"

#include <algorithm>

#include "core/error.h"

namespace tessera::engine::warehouse {
namespace {

bool HasColumn(const TableSchema& schema, std::string_view name) {
  return std::any_of(schema.columns.begin(), schema.columns.end(),
                     [&](const model::Column& column) { return column.name == name; });
}

const model::Column* FindColumn(const TableSchema& schema, std::string_view name) {
  for (const model::Column& column : schema.columns) {
    if (column.name == name) return &column;
  }
  return nullptr;
}

bool IsSqliteRowidKey(const TableSchema& schema) {
  if (schema.primary_key.size() != 1) return false;
  const model::Column* key = FindColumn(schema, schema.primary_key.front());
  return key != nullptr && key->type == model::DataType::kInteger;
}

std::string QuotedList(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) {
    if (!out.empty()) out += ", ";
    out += QuotedIdentifier(name);
  }
  return out;
}

void CheckColumnsExist(const TableSchema& schema, const std::vector<std::string>& names,
                       std::string_view what) {
  for (const std::string& name : names) {
    if (!HasColumn(schema, name)) {
      throw Error(ErrorCode::kInvalidInput, "table '" + schema.name + "': " + std::string(what) +
                                                " names '" + name + "', which is not a column");
    }
  }
}

}  // namespace

std::string QuotedIdentifier(std::string_view identifier) {
  std::string out;
  out.reserve(identifier.size() + 2);
  out += '"';
  for (char c : identifier) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

std::string ColumnTypeSql(model::DataType type, Dialect dialect) {
  using model::DataType;
  if (dialect == Dialect::kSqlite) {
    switch (type) {
      case DataType::kInteger:
      case DataType::kBoolean:
        return "INTEGER";
      case DataType::kReal:
        return "REAL";
      default:
        return "TEXT";
    }
  }
  switch (type) {
    case DataType::kInteger:
      return "bigint";
    case DataType::kReal:
      return "double precision";
    case DataType::kText:
      return "text";
    case DataType::kDate:
      return "date";
    case DataType::kDateTime:
      return "timestamp";
    case DataType::kBoolean:
      return "boolean";
  }
  return "text";
}

std::string DropTableSql(const TableSchema& schema) {
  return "DROP TABLE IF EXISTS " + QuotedIdentifier(schema.name);
}

std::string CreateTableSql(const TableSchema& schema, Dialect dialect) {
  CheckColumnsExist(schema, schema.primary_key, "primary_key");
  bool rowid_key = dialect == Dialect::kSqlite && IsSqliteRowidKey(schema);
  std::string sql = "CREATE TABLE " + QuotedIdentifier(schema.name) + " (";
  for (size_t i = 0; i < schema.columns.size(); ++i) {
    const model::Column& column = schema.columns[i];
    if (i > 0) sql += ", ";
    sql += QuotedIdentifier(column.name) + " " + ColumnTypeSql(column.type, dialect);
    if (rowid_key && column.name == schema.primary_key.front()) sql += " PRIMARY KEY";
  }
  if (dialect == Dialect::kSqlite && !rowid_key && !schema.primary_key.empty()) {
    sql += ", PRIMARY KEY (" + QuotedList(schema.primary_key) + ")";
  }
  return sql + ")";
}

std::string AddPrimaryKeySql(const TableSchema& schema) {
  if (schema.primary_key.empty()) return "";
  CheckColumnsExist(schema, schema.primary_key, "primary_key");
  return "ALTER TABLE " + QuotedIdentifier(schema.name) + " ADD PRIMARY KEY (" +
         QuotedList(schema.primary_key) + ")";
}

std::vector<std::string> CreateIndexSql(const TableSchema& schema,
                                        const std::vector<std::string>& columns) {
  CheckColumnsExist(schema, columns, "indexed_columns");
  std::vector<std::string> statements;
  for (const std::string& column : columns) {
    statements.push_back("CREATE INDEX " + QuotedIdentifier(schema.name + "_" + column + "_idx") +
                         " ON " + QuotedIdentifier(schema.name) + " (" + QuotedIdentifier(column) +
                         ")");
  }
  return statements;
}

std::string ColumnListSql(const TableSchema& schema) {
  std::string out;
  for (const model::Column& column : schema.columns) {
    if (!out.empty()) out += ", ";
    out += QuotedIdentifier(column.name);
  }
  return out;
}

}  // namespace tessera::engine::warehouse
