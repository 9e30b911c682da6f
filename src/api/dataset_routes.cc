// Dataset definitions (GET /api/datasets/{id}): the tables and columns a report, cube or pushed
// dataset makes available.
#include "api/definition_json.h"
#include "api/routes.h"
#include "core/error.h"
#include "core/strings.h"

namespace tessera::api {

namespace {

// The object types `fields` selects; this endpoint's `fields` is not field selection.
struct DatasetSelection {
  bool tables = false;
  bool columns = false;
  bool attributes = false;
  bool metrics = false;
};

void Select(DatasetSelection& selection, std::string_view name) {
  if (name == "tables") {
    selection.tables = true;
  } else if (name == "columns") {
    selection.columns = true;
  } else if (name == "attributes") {
    selection.attributes = true;
  } else if (name == "metrics") {
    selection.metrics = true;
  } else {
    throw Error(ErrorCode::kInvalidInput,
                "fields: '" + std::string(name) +
                    "' is not an object type of a dataset; expected tables, columns, attributes "
                    "or metrics");
  }
}

// Repeated (fields=tables&fields=columns) and comma forms; absent = attributes and metrics.
DatasetSelection ParseSelection(const http::QueryParams& query) {
  DatasetSelection selection;
  bool any = false;
  for (const auto& piece : query.GetList("fields")) {
    Select(selection, Trim(piece));
    any = true;
  }
  if (!any) selection.attributes = selection.metrics = true;
  return selection;
}

Json TablesJson(const service::DatasetDefinition& dataset) {
  Json tables = Json::array();
  for (const auto& table : dataset.tables) {
    tables.push_back({{"id", table.id}, {"name", table.name}});
  }
  return tables;
}

Json ColumnsJson(const service::DatasetDefinition& dataset) {
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
Json AvailableObjects(const service::DatasetDefinition& dataset,
                      const DatasetSelection& selection) {
  Json objects = Json::object();
  if (selection.tables) objects["tables"] = TablesJson(dataset);
  if (selection.columns) objects["columns"] = ColumnsJson(dataset);
  if (selection.attributes) objects["attributes"] = AttributesJsonV2(dataset);
  if (selection.metrics) objects["metrics"] = MetricsJsonV2(dataset);
  return objects;
}

http::Response GetDataset(RequestContext& context) {
  const DatasetSelection selection = ParseSelection(context.request().query);
  service::DatasetDefinition dataset = context.services().definitions.Get(
      context.principal(), context.RequiredProjectId(), context.PathParam("datasetId"),
      service::DatasetFilter::kReportOrCube);
  Json body = {
      {"id", dataset.id},
      {"name", dataset.name},
      {"result", {{"definition", {{"availableObjects", AvailableObjects(dataset, selection)}}}}}};
  return context.Reply(200, std::move(body));
}

}  // namespace

void RegisterDatasetRoutes(Endpoints& endpoints) {
  const EndpointSpec own_fields{Access::kSession, FieldsRule::kNone};
  endpoints.Add("GET", "/api/datasets/{datasetId}", own_fields, GetDataset);
  endpoints.Add("GET", "/api/dataset/{datasetId}", own_fields, GetDataset);  // the seed's path
}

}  // namespace tessera::api
