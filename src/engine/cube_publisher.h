// engine/cube_publisher.h
//
// Publishing a cube: one warehouse query at the cube's level, streamed into a DatasetBuilder, so
// memory holds the Dataset being built and never the SQL result.
//
// The Dataset a cube becomes:
//   attributes  the cube's attributes in definition order, every form (ID first), typed by their
//               lookup columns; then, hidden, the attribute counted by each count_distinct metric
//               when the cube does not list it, so dynamic aggregation counts distinct exactly;
//   metrics     the simple metrics the cube lists and, for each compound metric it lists, the
//               simple metrics its formula uses (recursively), in order of first appearance.
//               Compound metrics are not columns: their formulas are evaluated at query time on
//               the aggregated components. An avg keeps its sum and count per row.
// The cube's filter (model::Cube::filter_id) restricts the rows in WHERE (and HAVING for metric
// qualifications, at the cube's level).
//
// Errors: what GenerateReportSql refuses (engine/sql/report_sql.h) and what the warehouse throws
// (engine/warehouse/warehouse.h), unchanged.
#pragma once

#include <memory>
#include <vector>

#include "engine/dataset.h"
#include "engine/sql/dataset_builder.h"
#include "engine/sql/report_sql.h"
#include "engine/warehouse/warehouse.h"
#include "model/semantic_model.h"

namespace tessera::engine {

// What publishing `cube` reads and builds: the builder's row layout and the query whose SELECT
// produces exactly that layout.
struct CubeLayout {
  std::vector<sql::AttributeSpec> attributes;
  std::vector<sql::MetricSpec> metrics;
  sql::ReportQuery query;
};

CubeLayout LayoutOfCube(const model::SemanticModel& model, const model::Cube& cube);

// The one statement PublishCubeDataset runs for `cube` (a cube, or a warehouse report read as a
// cube: model::ReportAsCube), so what GET .../sqlView and `tessera sql` print is what runs.
sql::GeneratedSql CubeSql(const model::SemanticModel& model, const model::Cube& cube,
                          warehouse::Dialect dialect);

std::shared_ptr<const Dataset> PublishCubeDataset(warehouse::Warehouse& warehouse,
                                                  const model::SemanticModel& model,
                                                  const model::Cube& cube,
                                                  const warehouse::QueryOptions& options = {});

}  // namespace tessera::engine
