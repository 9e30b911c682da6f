#include "engine/sql/lookup_elements.h"

#include "core/error.h"
#include "core/strings.h"
#include "engine/warehouse/ddl.h"

namespace tessera::engine::sql {

namespace {

// The distinct form combinations, columns named c0, c1, ... in form order.
std::string DistinctFormsSql(const model::SemanticModel& model, const model::Attribute& attribute) {
  const model::Table& table = model.table(attribute.lookup_table_id);
  std::vector<std::string> columns;
  for (size_t i = 0; i < attribute.forms.size(); ++i) {
    columns.push_back("t." + warehouse::QuotedIdentifier(attribute.forms[i].column) + " AS c" +
                      std::to_string(i));
  }
  return "SELECT DISTINCT " + JoinStrings(columns, ", ") + " FROM " +
         warehouse::QuotedIdentifier(table.physical_name) + " t";
}

bool HasTextId(const model::SemanticModel& model, const model::Attribute& attribute) {
  const model::Column* column =
      model.table(attribute.lookup_table_id).FindColumn(attribute.id_form().column);
  return column == nullptr || column->type == model::DataType::kText;
}

// Dictionary order (engine/dictionary.h): a null ID first, text by bytes. SQLite already sorts
// that way (nulls first, BINARY collation); PostgreSQL needs to be told.
std::string OrderByForms(const model::SemanticModel& model, const model::Attribute& attribute,
                         warehouse::Dialect dialect) {
  std::vector<std::string> keys;
  for (size_t i = 0; i < attribute.forms.size(); ++i) {
    std::string key = "e.c" + std::to_string(i);
    if (dialect == warehouse::Dialect::kPostgres) {
      if (i == 0 && HasTextId(model, attribute)) key += " COLLATE \"C\"";
      key += " NULLS FIRST";
    }
    keys.push_back(std::move(key));
  }
  return " ORDER BY " + JoinStrings(keys, ", ");
}

std::string PageClause(warehouse::Dialect dialect, const ElementRange& range,
                       std::vector<warehouse::SqlValue>& parameters) {
  if (range.limit) {
    parameters.push_back(*range.limit);
    parameters.push_back(range.offset);
    return " LIMIT ? OFFSET ?";
  }
  if (range.offset == 0) return "";
  parameters.push_back(range.offset);
  // SQLite accepts OFFSET only after a LIMIT; -1 means none.
  return dialect == warehouse::Dialect::kSqlite ? " LIMIT -1 OFFSET ?" : " OFFSET ?";
}

class CollectRows : public warehouse::RowSink {
 public:
  explicit CollectRows(std::vector<std::vector<warehouse::SqlValue>>& rows) : rows_(rows) {}
  void OnColumns(const std::vector<std::string>&) override {}
  void OnRow(const std::vector<warehouse::SqlValue>& row) override { rows_.push_back(row); }

 private:
  std::vector<std::vector<warehouse::SqlValue>>& rows_;
};

int64_t CountOf(const std::vector<std::vector<warehouse::SqlValue>>& rows) {
  if (rows.size() == 1 && rows.front().size() == 1) {
    if (const auto* count = std::get_if<int64_t>(&rows.front().front())) return *count;
  }
  throw Error(ErrorCode::kEngine, "the warehouse did not return an element count");
}

}  // namespace

warehouse::SqlStatement LookupElementsSql(const model::SemanticModel& model,
                                          const model::Attribute& attribute,
                                          warehouse::Dialect dialect, const ElementRange& range) {
  if (range.offset < 0 || (range.limit && *range.limit < 0)) {
    throw Error(ErrorCode::kInvalidInput, "an element range needs offset and limit of 0 or more");
  }
  warehouse::SqlStatement statement;
  statement.text = "SELECT * FROM (" + DistinctFormsSql(model, attribute) + ") e" +
                   OrderByForms(model, attribute, dialect) +
                   PageClause(dialect, range, statement.parameters);
  return statement;
}

warehouse::SqlStatement LookupElementCountSql(const model::SemanticModel& model,
                                              const model::Attribute& attribute) {
  return {"SELECT COUNT(*) FROM (" + DistinctFormsSql(model, attribute) + ") e", {}};
}

LookupElements ListLookupElements(warehouse::Warehouse& warehouse,
                                  const model::SemanticModel& model,
                                  const model::Attribute& attribute, const ElementRange& range,
                                  const warehouse::QueryOptions& options) {
  LookupElements elements;
  std::vector<std::vector<warehouse::SqlValue>> count;
  CollectRows count_sink(count);
  warehouse.Query(LookupElementCountSql(model, attribute), count_sink, options);
  elements.total = CountOf(count);
  CollectRows page_sink(elements.rows);
  warehouse.Query(LookupElementsSql(model, attribute, warehouse.dialect(), range), page_sink,
                  options);
  return elements;
}

}  // namespace tessera::engine::sql
