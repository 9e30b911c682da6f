// engine/sql/report_runner.h
//
// Runs a report query on its warehouse: the generated SQL (report_sql.h), then the compound
// metrics evaluated on each aggregated row (a division by zero or a null operand gives null). The
// result keeps the SQL's row order (attributes' ID forms in template order) and lists metrics in
// the order they were requested.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/sql/report_sql.h"
#include "engine/warehouse/warehouse.h"

namespace tessera::engine::sql {

struct ReportResult {
  ReportColumns columns;                // attribute form columns as generated
  std::vector<std::string> metric_ids;  // as requested
  struct Row {
    std::vector<warehouse::SqlValue>
        attribute_values;  // every form of every attribute, in column order
    std::vector<std::optional<double>> metric_values;  // one per requested metric
  };
  std::vector<Row> rows;
};

ReportResult RunReport(warehouse::Warehouse& warehouse, const model::SemanticModel& model,
                       const ReportQuery& query, const warehouse::QueryOptions& options = {});

// The value of a compound metric's expression given the values of the simple metrics it uses.
std::optional<double> EvaluateMetric(const model::SemanticModel& model,
                                     const std::string& metric_id,
                                     const std::map<std::string, std::optional<double>>& simple);

}  // namespace tessera::engine::sql
