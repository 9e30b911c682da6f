// Dataset definitions (GET /api/datasets/{id}): the tables and columns a report, cube or pushed
// dataset makes available.
#include "api/dataset/definition_json.h"
#include "api/routes.h"
#include "core/error.h"
#include "core/strings.h"

namespace tessera::api::dataset {

namespace {

Json TablesJson(const service::instance::DatasetDefinition& dataset) {
  Json tables = Json::array();
  for (const auto& table : dataset.tables) {
    tables.push_back({{"id", table.id}, {"name", table.name}});
  }
  return tables;
}

Json ColumnsJson(const service::instance::DatasetDefinition& dataset) {
  Json columns = Json::array();
  for (const auto& table : dataset.tables) {
    for (const auto& column : table.columns) {
      columns.push_back(
          {{"tableName", table.name}, {"columnName", column.name}, {"dataType", column.data_type}});
    }
  }
  return columns;
}

// Model cubes and reports have no tables of their own: only pushed datasets do.
Json AvailableObjects(const service::instance::DatasetDefinition& dataset,
                      const DatasetObjectTypes& selection) {
  Json objects = Json::object();
  if (selection.tables) objects["tables"] = TablesJson(dataset);
  if (selection.columns) objects["columns"] = ColumnsJson(dataset);
  if (selection.attributes) objects["attributes"] = AttributesJsonV2(dataset);
  if (selection.metrics) objects["metrics"] = MetricsJsonV2(dataset);
  return objects;
}

http::Response GetDataset(RequestContext& context) {
  const DatasetObjectTypes& selection = context.fields().object_types;
  service::instance::DatasetDefinition dataset = context.services().definitions.Get(
      context.principal(), context.RequiredProjectId(), context.PathParam("datasetId"),
      service::instance::DatasetFilter::kReportOrCube);
  Json body = {
      {"id", dataset.id},
      {"name", dataset.name},
      {"result", {{"definition", {{"availableObjects", AvailableObjects(dataset, selection)}}}}}};
  return context.Reply(200, std::move(body));
}

}  // namespace

void RegisterDatasetRoutes(Endpoints& endpoints) {
  const EndpointSpec object_types{Access::kSession, FieldsDialect::kDatasetObjectTypes};
  endpoints.Add("GET", "/api/datasets/{datasetId}", object_types, GetDataset);
  endpoints.Add("GET", "/api/dataset/{datasetId}", object_types, GetDataset);  // the seed's path
}

}  // namespace tessera::api::dataset
