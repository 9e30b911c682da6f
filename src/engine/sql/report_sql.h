// engine/sql/report_sql.h
//
// SQL generation for warehouse reports. A report query -- template attributes, metrics, and a
// report filter -- becomes one SELECT over the fact table holding the metrics' facts, joined to the
// lookup tables of the requested attributes through their parent links (fact -> lu_day -> lu_month
// -> ... as far as each attribute needs), grouped by every form of every requested attribute,
// aggregating the simple metrics. Compound metrics are not computed in SQL: their simple components
// are selected and the caller evaluates them after aggregation.
//
// The report filter's attribute qualifications go to WHERE; its metric qualifications go to
// HAVING, evaluated at the template level (compound metrics expanded into their aggregates).
// A filter whose Or/Not mixes the two levels, and Rank/Percent qualifications, are refused with
// Error(kNotSupported). Text pattern operators (Like, Contains, BeginsWith, EndsWith and their
// negations) compare case-insensitively on both dialects.
//
// Safety: every value from a request or a definition's constants is a bound parameter;
// identifiers come only from the model and are quoted; numbers in fact expressions come from the
// parsed model. Without metrics, the query lists the distinct combinations of the attributes.
//
// Errors: Error(kInvalidInput) for references the model does not have, for metrics whose facts
// share no fact table, for attributes the fact table cannot reach; Error(kNotSupported) as above.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/json.h"
#include "engine/warehouse/warehouse.h"
#include "model/semantic_model.h"

namespace tessera::engine::sql {

struct ReportQuery {
  std::vector<std::string> attribute_ids;  // template order
  std::vector<std::string> metric_ids;     // simple or compound
  Json filter;  // a qualification tree (engine/qualification.h) with ids; null = no filter
  // For cubes (engine/cube_publisher.h): an avg metric selects its sum and its count, so the
  // engine can roll it up to any level, and the rows come in no particular order (the Dataset
  // orders its dictionaries itself; sorting millions of rows is wasted work).
  bool avg_as_sum_and_count = false;
  bool ordered = true;
};

// The column layout of the generated SELECT: for each attribute, one column per form (in form
// order), then one column per simple metric (two for an avg metric when the query asks for
// `avg_as_sum_and_count`: its sum, then its count).
struct ReportColumns {
  struct AttributeColumns {
    std::string attribute_id;
    std::vector<std::string> form_names;
  };
  std::vector<AttributeColumns> attributes;
  std::vector<std::string> simple_metric_ids;
};

struct GeneratedSql {
  warehouse::SqlStatement statement;
  ReportColumns columns;
};

GeneratedSql GenerateReportSql(const model::SemanticModel& model, const ReportQuery& query,
                               warehouse::Dialect dialect);

// The query of a report definition: its template and its filter's qualification.
ReportQuery QueryOfReport(const model::SemanticModel& model, const model::Report& report);

// Writes the statement with its parameters inlined as literals, for people to read
// (`tessera sql`); never sent to a database.
std::string DisplaySql(const warehouse::SqlStatement& statement);

}  // namespace tessera::engine::sql
