#include "engine/cube_publisher.h"

#include <algorithm>

#include "core/error.h"

namespace tessera::engine {
namespace {

bool Contains(const std::vector<std::string>& ids, const std::string& id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

sql::AttributeSpec SpecOfAttribute(const model::SemanticModel& model,
                                   const std::string& attribute_id, bool hidden) {
  const model::Attribute& attribute = model.attribute(attribute_id);
  const model::Table& lookup = model.table(attribute.lookup_table_id);
  sql::AttributeSpec spec{attribute.id, attribute.name, {}, hidden};
  for (const auto& form : attribute.forms) {
    const model::Column* column = lookup.FindColumn(form.column);
    spec.forms.emplace_back(form.name, column ? column->type : model::DataType::kText);
  }
  return spec;
}

sql::MetricSpec SpecOfMetric(const model::Metric& metric) {
  sql::MetricSpec spec;
  spec.id = metric.id;
  spec.name = metric.name;
  spec.function = metric.function;
  spec.format_string = metric.format_string;
  spec.with_count = metric.function == model::AggregateFunction::kAvg;
  if (metric.function == model::AggregateFunction::kCountDistinct) {
    spec.counted_attribute_id = metric.attribute_id;
  }
  return spec;
}

size_t ColumnCountOf(const model::SemanticModel& model, const sql::GeneratedSql& generated,
                     const sql::ReportQuery& query) {
  size_t count = 0;
  for (const auto& attribute : generated.columns.attributes) count += attribute.form_names.size();
  for (const auto& metric_id : generated.columns.simple_metric_ids) {
    const bool split = query.avg_as_sum_and_count &&
                       model.metric(metric_id).function == model::AggregateFunction::kAvg;
    count += split ? 2 : 1;
  }
  return count;
}

}  // namespace

CubeLayout LayoutOfCube(const model::SemanticModel& model, const model::Cube& cube) {
  CubeLayout layout;
  std::vector<std::string> attribute_ids;
  for (const auto& id : cube.attribute_ids) {
    if (!Contains(attribute_ids, id)) attribute_ids.push_back(id);
  }
  const std::vector<std::string> metric_ids = model.SimpleMetrics(cube.metric_ids);

  for (const auto& id : attribute_ids) {
    layout.attributes.push_back(SpecOfAttribute(model, id, false));
  }
  for (const auto& id : metric_ids) {
    const model::Metric& metric = model.metric(id);
    if (metric.function != model::AggregateFunction::kCountDistinct) continue;
    if (Contains(attribute_ids, metric.attribute_id)) continue;
    attribute_ids.push_back(metric.attribute_id);
    layout.attributes.push_back(SpecOfAttribute(model, metric.attribute_id, true));
  }

  layout.query.attribute_ids = attribute_ids;
  layout.query.avg_as_sum_and_count = true;
  layout.query.ordered = false;
  if (cube.filter_id) layout.query.filter = model.filter(*cube.filter_id).qualification;
  for (const auto& id : metric_ids) {
    layout.metrics.push_back(SpecOfMetric(model.metric(id)));
    // The builder takes no column for a count distinct: it counts the attribute's codes.
    if (layout.metrics.back().counted_attribute_id.empty()) layout.query.metric_ids.push_back(id);
  }
  return layout;
}

sql::GeneratedSql CubeSql(const model::SemanticModel& model, const model::Cube& cube,
                          warehouse::Dialect dialect) {
  return sql::GenerateReportSql(model, LayoutOfCube(model, cube).query, dialect);
}

std::shared_ptr<const Dataset> PublishCubeDataset(warehouse::Warehouse& warehouse,
                                                  const model::SemanticModel& model,
                                                  const model::Cube& cube,
                                                  const warehouse::QueryOptions& options) {
  CubeLayout layout = LayoutOfCube(model, cube);
  sql::GeneratedSql generated = CubeSql(model, cube, warehouse.dialect());
  sql::DatasetBuilder builder(std::move(layout.attributes), std::move(layout.metrics));
  if (ColumnCountOf(model, generated, layout.query) != builder.ColumnCount()) {
    throw Error(ErrorCode::kInternal, "cube '" + cube.name +
                                          "': the generated SQL does not match the dataset's "
                                          "row layout");
  }
  // The builder is the sink: no copy of a row between the warehouse and the columns.
  warehouse.Query(generated.statement, builder, options);
  return std::make_shared<const Dataset>(builder.Finish());
}

}  // namespace tessera::engine
