// model/semantic.h
//
// Typed, validated views of the semantic layer's objects. Each view is parsed from an
// ObjectRecord's JSON definition, the canonical form kept by the storage service and written by
// bundles; every reference in a definition is an object id. Parsing is total: a definition either
// yields the view or throws Error(kInvalidInput) naming the object and the field
// ("attribute 'Region': forms[1].column: required").
//
// Canonical definitions, by type:
//   Table (15, 3840):      {"physicalName": "lu_region",
//                           "columns": [{"name": "region_id", "dataType": "integer"}, ...]}
//   Attribute (12, 3072):  {"lookupTable": <table id>, "parent": <attribute id> (optional),
//                           "forms": [{"name": "ID", "column": "region_id"},
//                                     {"name": "DESC", "column": "region_name"}, ...]}
//                          forms[0] is the ID (key) form; a form's data type is its column's.
//   Fact (13, 3328):       {"tables": [<table id>, ...], "expression": "revenue - discount"}
//   Metric (4, 1024):      simple   {"function": "sum"|"avg"|"min"|"max"|"count", "fact": <id>}
//                                   {"function": "count_distinct", "attribute": <id>}
//                          compound {"expression": "[<metric id>] - [<metric id>]"}
//                          both may carry "format": {"formatString": "#,##0.00"}
//   Filter (1, 256):       {"qualification": <qualification tree with ids>}
//   Report (3, 768):       {"source": "warehouse" | "cube", "cube": <id> (when source is cube),
//                           "rows": [<attribute id>, ...], "columns": [<metric id>, ...],
//                           "filter": <filter id> (optional)}
//   Cube (3, 776):         {"attributes": [...], "metrics": [...], "filter": <id> (optional)}
//   Dashboard (55, 14081): see model/dashboard.h; its uses are its datasets, attributes and
//                          metrics.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"
#include "model/expression.h"
#include "model/object.h"

namespace tessera::model {

enum class DataType { kInteger, kReal, kText, kDate, kDateTime, kBoolean };

std::string_view DataTypeName(DataType type);  // "integer", "real", "string", "date", ...
std::optional<DataType> ParseDataType(std::string_view name);

struct Column {
  std::string name;
  DataType type = DataType::kText;
};

struct Table {
  std::string id;
  std::string name;
  std::string physical_name;
  std::vector<Column> columns;

  const Column* FindColumn(std::string_view column_name) const;
};

struct AttributeForm {
  std::string name;  // "ID", "DESC", or any other name
  std::string column;
};

struct Attribute {
  std::string id;
  std::string name;
  std::string lookup_table_id;
  std::vector<AttributeForm> forms;  // forms[0] is the ID form
  std::optional<std::string> parent_id;

  const AttributeForm& id_form() const { return forms.front(); }
  const AttributeForm* FindForm(std::string_view form_name) const;
};

struct Fact {
  std::string id;
  std::string name;
  std::vector<std::string> table_ids;
  ArithmeticExpression expression;  // leaves are column names of those tables, or numbers
};

enum class AggregateFunction { kSum, kAvg, kMin, kMax, kCount, kCountDistinct };

std::string_view AggregateName(AggregateFunction function);

struct Metric {
  std::string id;
  std::string name;
  bool is_compound = false;
  AggregateFunction function = AggregateFunction::kSum;  // simple metrics
  std::string fact_id;                                   // simple, except count_distinct
  std::string attribute_id;                              // count_distinct
  ArithmeticExpression expression;                       // compound: leaves are metric ids
  std::string format_string;                             // "" = general
};

struct Filter {
  std::string id;
  std::string name;
  Json qualification;  // a qualification tree, ids only
};

enum class ReportSource { kWarehouse, kCube };

struct Report {
  std::string id;
  std::string name;
  ReportSource source = ReportSource::kWarehouse;
  std::string cube_id;
  std::vector<std::string> attribute_ids;  // template rows
  std::vector<std::string> metric_ids;     // template columns
  std::optional<std::string> filter_id;
};

struct Cube {
  std::string id;
  std::string name;
  std::vector<std::string> attribute_ids;
  std::vector<std::string> metric_ids;
  std::optional<std::string> filter_id;
};

// A warehouse report read as a cube: its template objects at their own level, and its filter.
// Instances of the report and its SQL view compute on this cube.
Cube ReportAsCube(const Report& report);

Table ParseTable(const ObjectRecord& record);
Attribute ParseAttribute(const ObjectRecord& record);
Fact ParseFact(const ObjectRecord& record);
Metric ParseMetric(const ObjectRecord& record);
Filter ParseFilter(const ObjectRecord& record);
Report ParseReport(const ObjectRecord& record);
Cube ParseCube(const ObjectRecord& record);

// The ids `record` refers to, for the dependency graph the storage service keeps
// (MetadataTransaction::SetDependencies): each type's list is derived from its definition and
// nothing else. Unknown types use nothing. The folder is not a dependency.
std::vector<std::string> UsedObjectIds(const ObjectRecord& record);

// A dataset of the push API: a super cube (779) whose definition holds its push model under
// "pushModel" rather than references to the semantic layer. It is no part of the project's semantic
// model (SemanticModel ignores it); its own model is derived from the push model.
bool IsPushedDataset(const ObjectRecord& record);

}  // namespace tessera::model
