// engine/push/push_model.h
//
// The model of a pushed dataset: the body of POST /api/datasets/models, read into typed, validated
// structs, and stored in the same JSON shape.
//
//   {"name", "description", "folderId",
//    "tables": [{"name", "columnHeaders": [{"name", "dataType"}]}],
//    "attributes": [{"name", "attributeForms": [{"category", "expressions":
//                                                 [{"tableName", "columnName"}]}]}],
//    "metrics": [{"name", "expressions": [{"tableName", "columnName"}]}]}
//
// Data types (case-insensitive, kept upper-cased in `type_name`): STRING -> kText, INTEGER and
// BIGINTEGER -> kInteger (both 64-bit), DOUBLE and BIGDECIMAL -> kReal, BOOL and BOOLEAN (what
// the Python client writes for pandas bool) -> kBoolean (cells 0/1), DATE -> kDate
// ("yyyy-MM-dd"), DATETIME -> kDateTime ("yyyy-MM-dd HH:mm:ss[.SSS]"), TIME -> kText holding
// "HH:mm:ss[.SSS]".
//
// Merging (the Python client emits one attribute per column per table, and one metric per
// column per table): attribute entries with the same name are one attribute whose forms are the
// union of their forms, matched by category (case-insensitive), each form's expressions the union
// of theirs; metric entries with the same name are one metric whose expressions are the union of
// theirs. A merged attribute or metric keeps the position of its first entry. Categories are
// kept upper-cased. An attribute's ID form comes first (the form of category ID, else the first
// form given).
//
// Validation, each failure an Error(kInvalidInput) naming the offending part:
//   - name: present, not empty, at most 250 characters, without \ " [ ];
//     description: at most 250 characters; folderId: a string (may be empty);
//   - tables: at least one; names not empty and unique; each with at least one column; column
//     names not empty and unique within the table; every dataType known;
//   - every expression names an existing table and a column of it; a form or metric has at most
//     one column per table (the column a row of that table gives it);
//   - an attribute has at least one form, a form and a metric at least one expression;
//   - all columns of one form have one type, except that integer and real columns may mix (the
//     form is then real); all columns of one metric are numeric (INTEGER, BIGINTEGER, DOUBLE,
//     BIGDECIMAL: the metric sums) or all BOOL (the metric is the max, i.e. "any true"); a
//     metric on a STRING, DATE, DATETIME or TIME column is refused, since metric values are
//     numbers;
//   - no name is both an attribute and a metric.
// A column may serve both an attribute form and a metric (a raw REST client can ask for it; the
// Python client never does): the row carries it to both, and it is part of the row identity as
// an attribute column. Columns that no attribute or metric uses are allowed and ignored.
//
// PushModelFromJson(PushModelToJson(m)) == m for every model ParsePushModel returns.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "model/semantic.h"

namespace tessera::engine::push {

struct PushColumn {
  std::string name;
  model::DataType type = model::DataType::kText;
  std::string type_name;  // as given, upper-cased: "STRING", "BIGINTEGER", "BOOLEAN", "TIME", ...

  bool operator==(const PushColumn&) const = default;
};

struct PushTable {
  std::string name;
  std::vector<PushColumn> columns;

  // The index of the column named `column_name`, or -1.
  int ColumnIndex(std::string_view column_name) const;
  bool operator==(const PushTable&) const = default;
};

struct PushExpression {
  std::string table;
  std::string column;

  bool operator==(const PushExpression&) const = default;
};

struct PushForm {
  std::string category;  // upper-cased: "ID", "DESC", ...
  std::vector<PushExpression> expressions;

  bool operator==(const PushForm&) const = default;
};

struct PushAttribute {
  std::string name;
  std::vector<PushForm> forms;  // the ID form first

  bool operator==(const PushAttribute&) const = default;
};

struct PushMetric {
  std::string name;
  std::vector<PushExpression> expressions;

  bool operator==(const PushMetric&) const = default;
};

struct PushModel {
  std::string name;
  std::string description;
  std::string folder_id;  // "" = the user's My Reports folder
  std::vector<PushTable> tables;
  std::vector<PushAttribute> attributes;
  std::vector<PushMetric> metrics;

  const PushTable* FindTable(std::string_view table_name) const;
  bool operator==(const PushModel&) const = default;
};

// `body` is the parsed request body. Throws Error(kInvalidInput) as described above.
PushModel ParsePushModel(const Json& body);

Json PushModelToJson(const PushModel& model);
PushModel PushModelFromJson(const Json& stored);

// The type of a push data type name ("Integer", "BOOLEAN", ...), or nullopt when unknown.
std::optional<model::DataType> PushDataType(std::string_view type_name);

// The type of a form's values: its columns' type (real when integer and real columns mix).
model::DataType FormType(const PushModel& model, const PushForm& form);

// A metric over BOOL columns takes the max; any other the sum.
bool IsBooleanMetric(const PushModel& model, const PushMetric& metric);

// The indexes (ascending) of the columns of `table_name` that some attribute form uses: the
// columns that identify a row for the add, update and upsert policies. Empty when the table has no
// attribute column or no such table exists.
std::vector<size_t> AttributeColumnsOf(const PushModel& model, std::string_view table_name);

}  // namespace tessera::engine::push
