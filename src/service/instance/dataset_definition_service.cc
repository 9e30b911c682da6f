#include "service/instance/dataset_definition_service.h"

#include <charconv>
#include <optional>

#include "core/error.h"
#include "core/ids.h"
#include "core/strings.h"
#include "engine/cube_executor.h"
#include "engine/cube_publisher.h"
#include "engine/element_id.h"
#include "engine/push/pushed_dataset.h"
#include "engine/push/pushed_semantic_model.h"
#include "engine/qualification.h"
#include "engine/sql/lookup_elements.h"
#include "model/object_types.h"
#include "model/rights.h"
#include "model/semantic_model.h"
#include "service/project/project_model.h"

namespace tessera::service::instance {

namespace {

// The iServer code of the error for data requests on a cube never published, as the reference
// server answers it.
constexpr int64_t kCubeNotPublishedIServerCode = -2147072488;

bool Accepts(DatasetFilter filter, bool is_cube) {
  switch (filter) {
    case DatasetFilter::kReport:
      return !is_cube;
    case DatasetFilter::kCube:
      return is_cube;
    case DatasetFilter::kReportOrCube:
      return true;
  }
  return false;
}

std::string_view KindName(DatasetFilter filter) {
  switch (filter) {
    case DatasetFilter::kReport:
      return "Report";
    case DatasetFilter::kCube:
      return "Cube";
    case DatasetFilter::kReportOrCube:
      return "Dataset";
  }
  return "Object";
}

// The report or cube record, with the caller's rights checked.
model::ObjectRecord LoadRecord(object::ObjectService& objects, const session::Principal& principal,
                               const std::string& project_id, const std::string& raw_id,
                               DatasetFilter filter) {
  const std::string id = RequireObjectId(raw_id, std::string(KindName(filter)) + " id");
  std::optional<object::ObjectView> view;
  try {
    view = objects.Get(principal, project_id, id, model::kTypeReportDefinition);
  } catch (const Error& error) {
    if (error.code() != ErrorCode::kNotFound) throw;
  }
  if (!view) {
    throw Error(ErrorCode::kNotFound, std::string(KindName(filter)) + " '" + id +
                                          "' was not found in project '" + project_id + "'");
  }
  if (!Accepts(filter, model::IsCube(view->record))) {
    throw WrongDatasetKind(id,
                           model::IsCube(view->record) ? DatasetKind::kCube : DatasetKind::kReport);
  }
  session::RequireRights(principal, view->record, model::kRightRead);
  return view->record;
}

std::string FormCategory(const model::Attribute& attribute, size_t index) {
  if (index == 0) return "ID";
  const std::string& name = attribute.forms[index].name;
  return EqualsIgnoreCase(name, "DESC") ? "DESC" : ToUpper(name);
}

// The ID form has the well-known ID form id; every other form the id requests name it by
// (engine::FormId: the well-known DESC id, or a deterministic id of the form's name).
std::string FormIdOf(const model::Attribute& attribute, size_t index) {
  return engine::FormId(index == 0 ? "ID" : attribute.forms[index].name);
}

model::DataType FormType(const model::SemanticModel& model, const model::Attribute& attribute,
                         const model::AttributeForm& form) {
  const model::Column* column = model.table(attribute.lookup_table_id).FindColumn(form.column);
  return column ? column->type : model::DataType::kText;
}

AttributeDefinition DefineAttribute(const model::SemanticModel& model, const std::string& id) {
  const model::Attribute& attribute = model.attribute(id);
  AttributeDefinition definition{attribute.id, attribute.name, {}};
  for (size_t i = 0; i < attribute.forms.size(); ++i) {
    const model::AttributeForm& form = attribute.forms[i];
    std::string category = FormCategory(attribute, i);
    definition.forms.push_back(
        {FormIdOf(attribute, i), form.name, category, FormType(model, attribute, form)});
  }
  return definition;
}

DatasetDefinition Define(const model::SemanticModel& model, const std::string& id,
                         const std::string& name, DatasetKind kind,
                         const std::vector<std::string>& attribute_ids,
                         const std::vector<std::string>& metric_ids) {
  DatasetDefinition definition{id, name, kind, {}, {}, {}};
  for (const auto& attribute_id : attribute_ids) {
    definition.attributes.push_back(DefineAttribute(model, attribute_id));
  }
  for (const auto& metric_id : metric_ids) {
    definition.metrics.push_back({metric_id, model.metric(metric_id).name});
  }
  return definition;
}

// A report or cube with its model, and the cube it reads when it reads one.
struct Resolved {
  std::shared_ptr<const model::SemanticModel> model;
  DatasetDefinition definition;
  std::optional<std::string> source_cube_id;
  bool is_pushed = false;
};

Resolved ResolvePushed(const model::ObjectRecord& record) {
  const engine::push::PushModel push =
      engine::push::PushModelFromJson(record.definition.at("pushModel"));
  Resolved resolved{std::make_shared<const model::SemanticModel>(
                        engine::push::PushedSemanticModel(record.id, record.name, push)),
                    {},
                    record.id,
                    true};
  const model::Cube& cube = resolved.model->cube(record.id);
  resolved.definition = Define(*resolved.model, cube.id, cube.name, DatasetKind::kCube,
                               cube.attribute_ids, cube.metric_ids);
  for (const auto& table : push.tables) {
    TableDefinition definition{engine::push::PushedTableId(record.id, table.name), table.name, {}};
    for (const auto& column : table.columns) {
      definition.columns.push_back({column.name, column.type_name});
    }
    resolved.definition.tables.push_back(std::move(definition));
  }
  return resolved;
}

Resolved ResolveRecord(project::SemanticModels& models, const std::string& project_id,
                       const model::ObjectRecord& record) {
  if (model::IsPushedDataset(record)) return ResolvePushed(record);
  Resolved resolved{models.Get(project_id), {}, std::nullopt};
  const model::SemanticModel& model = *resolved.model;
  if (model::IsCube(record)) {
    const model::Cube& cube = model.cube(record.id);
    resolved.definition =
        Define(model, cube.id, cube.name, DatasetKind::kCube, cube.attribute_ids, cube.metric_ids);
    resolved.source_cube_id = cube.id;
    return resolved;
  }
  const model::Report& report = model.report(record.id);
  resolved.definition = Define(model, report.id, report.name, DatasetKind::kReport,
                               report.attribute_ids, report.metric_ids);
  if (report.source == model::ReportSource::kCube) resolved.source_cube_id = report.cube_id;
  return resolved;
}

void RequireAttribute(const DatasetDefinition& definition, const std::string& attribute_id) {
  for (const auto& attribute : definition.attributes) {
    if (attribute.id == attribute_id) return;
  }
  throw Error(ErrorCode::kNotFound, "Attribute '" + attribute_id + "' is not an attribute of '" +
                                        definition.name + "' (" + definition.id + ")");
}

AttributeElement ElementOf(const std::string& attribute_id,
                           const std::vector<engine::warehouse::SqlValue>& form_values) {
  AttributeElement element;
  for (const auto& value : form_values) element.form_values.push_back(engine::CellText(value));
  const std::string key = element.form_values.empty() ? "" : element.form_values.front();
  element.id = engine::FormatAttributeElementId({attribute_id, key});
  return element;
}

std::shared_ptr<const engine::Dataset> PublishedDataset(cube::CubeService& cubes,
                                                        const model::SemanticModel& model,
                                                        const std::string& cube_id,
                                                        const std::string& project_id) {
  const model::Cube& cube = model.cube(cube_id);
  auto dataset = cubes.Get(project_id, cube.id);
  if (!dataset) {
    const cube::CubeStatus status = cubes.Status(project_id, cube.id);
    std::string message = "Cube '" + cube.name + "' (" + cube.id + ") is not published";
    if (status.state == cube::CubeState::kFailed) {
      message += " (its last publish failed: " + status.error_message + ")";
    }
    message += "; publish it with POST /api/v2/cubes/" + cube.id + " before reading its data";
    throw Error(ErrorCode::kEngine, message, kCubeNotPublishedIServerCode);
  }
  return dataset;
}

ElementPage CubeElements(const engine::Dataset& dataset, const model::Attribute& attribute,
                         const object::Page& page) {
  const int index = dataset.AttributeIndex(attribute.id);
  if (index < 0 || dataset.attribute(index).hidden) {
    throw Error(ErrorCode::kNotFound, "Attribute '" + attribute.name +
                                          "' is not in the cube's published data; publish the "
                                          "cube again");
  }
  engine::ElementSearch search;
  search.offset = static_cast<size_t>(page.offset);
  if (page.limit >= 0) search.limit = static_cast<size_t>(page.limit);
  const engine::ElementList list =
      engine::ListElements(dataset, index, engine::RowFilter::All(), search);
  const engine::Dictionary& dictionary = dataset.attribute(index).dictionary;
  std::vector<int> form_indexes;
  for (const auto& form : attribute.forms) form_indexes.push_back(dictionary.FormIndex(form.name));

  ElementPage elements;
  elements.total = static_cast<int64_t>(list.total);
  std::vector<engine::warehouse::SqlValue> values(form_indexes.size());
  for (uint32_t code : list.codes) {
    for (size_t f = 0; f < form_indexes.size(); ++f) {
      values[f] = form_indexes[f] < 0 ? engine::warehouse::SqlValue()
                                      : dictionary.Value(form_indexes[f], code);
    }
    elements.elements.push_back(ElementOf(attribute.id, values));
  }
  return elements;
}

ElementPage WarehouseElements(engine::warehouse::Warehouse& warehouse,
                              const model::SemanticModel& model, const model::Attribute& attribute,
                              const object::Page& page) {
  engine::sql::ElementRange range;
  range.offset = page.offset;
  if (page.limit >= 0) range.limit = page.limit;
  engine::sql::LookupElements lookup =
      engine::sql::ListLookupElements(warehouse, model, attribute, range);
  ElementPage elements;
  elements.total = lookup.total;
  for (const auto& row : lookup.rows) elements.elements.push_back(ElementOf(attribute.id, row));
  return elements;
}

}  // namespace

DatasetDefinitionService::DatasetDefinitionService(storage::MetadataStore& store,
                                                   object::ObjectService& objects,
                                                   project::WarehouseRegistry& warehouses,
                                                   cube::CubeService& cubes)
    : store_(store), models_(store), objects_(objects), warehouses_(warehouses), cubes_(cubes) {}

DatasetDefinition DatasetDefinitionService::Get(const session::Principal& principal,
                                                const std::string& project_id,
                                                const std::string& id, DatasetFilter filter) {
  model::ObjectRecord record = LoadRecord(objects_, principal, project_id, id, filter);
  return ResolveRecord(models_, project_id, record).definition;
}

ElementPage DatasetDefinitionService::Elements(const session::Principal& principal,
                                               const std::string& project_id, const std::string& id,
                                               DatasetFilter filter,
                                               const std::string& attribute_id,
                                               const object::Page& page) {
  const std::string attribute = RequireObjectId(attribute_id, "attributeId");
  if (page.offset < 0 || page.limit < -1) {
    throw Error(ErrorCode::kInvalidInput, "offset must be 0 or more and limit -1 or more");
  }
  model::ObjectRecord record = LoadRecord(objects_, principal, project_id, id, filter);
  Resolved resolved = ResolveRecord(models_, project_id, record);
  RequireAttribute(resolved.definition, attribute);
  const model::Attribute& model_attribute = resolved.model->attribute(attribute);
  if (resolved.source_cube_id) {
    auto dataset = PublishedDataset(cubes_, *resolved.model, *resolved.source_cube_id, project_id);
    return CubeElements(*dataset, model_attribute, page);
  }
  engine::warehouse::Warehouse& warehouse =
      warehouses_.Get(project::LoadWarehouseName(store_, project_id));
  return WarehouseElements(warehouse, *resolved.model, model_attribute, page);
}

ResolvedDataset DatasetDefinitionService::Resolve(const session::Principal& principal,
                                                  const std::string& project_id,
                                                  const std::string& id, DatasetFilter filter) {
  model::ObjectRecord record = LoadRecord(objects_, principal, project_id, id, filter);
  Resolved resolved = ResolveRecord(models_, project_id, record);
  ResolvedDataset dataset;
  dataset.definition = std::move(resolved.definition);
  dataset.source_cube_id = std::move(resolved.source_cube_id);
  dataset.is_pushed = resolved.is_pushed;
  if (!model::IsCube(record)) {
    const model::Report& report = resolved.model->report(record.id);
    dataset.base = model::ReportAsCube(report);
    if (dataset.source_cube_id && report.filter_id) {
      dataset.report_filter = resolved.model->filter(*report.filter_id).qualification;
    }
  }
  dataset.model = std::move(resolved.model);
  return dataset;
}

cube::CubeService::Version DatasetDefinitionService::CubeVersion(const std::string& project_id,
                                                                 const ResolvedDataset& resolved,
                                                                 const std::string& snapshot_file) {
  const std::string& cube_id = *resolved.source_cube_id;
  if (!snapshot_file.empty()) {
    return {cubes_.GetAt(project_id, cube_id, snapshot_file), snapshot_file};
  }
  PublishedDataset(cubes_, *resolved.model, cube_id, project_id);  // refuses an unpublished cube
  return cubes_.GetVersion(project_id, cube_id);
}

std::shared_ptr<const engine::Dataset> DatasetDefinitionService::BaseData(
    const std::string& project_id, const ResolvedDataset& resolved) {
  if (resolved.source_cube_id) {
    return PublishedDataset(cubes_, *resolved.model, *resolved.source_cube_id, project_id);
  }
  engine::warehouse::Warehouse& warehouse =
      warehouses_.Get(project::LoadWarehouseName(store_, project_id));
  return engine::PublishCubeDataset(warehouse, *resolved.model, resolved.base);
}

std::string DatasetDefinitionService::SqlOf(const std::string& project_id,
                                            const ResolvedDataset& resolved) {
  if (resolved.is_pushed) {
    return "-- '" + resolved.definition.name +
           "' is a pushed dataset: its rows were uploaded, not queried from a warehouse";
  }
  engine::warehouse::Warehouse& warehouse =
      warehouses_.Get(project::LoadWarehouseName(store_, project_id));
  const std::string& source =
      resolved.source_cube_id ? *resolved.source_cube_id : resolved.definition.id;
  return engine::sql::DisplaySql(QueryOf(*resolved.model, source, warehouse.dialect()).statement);
}

engine::sql::GeneratedSql QueryOf(const model::SemanticModel& semantic,
                                  const std::string& dataset_id,
                                  engine::warehouse::Dialect dialect) {
  if (semantic.cubes().count(dataset_id))
    return engine::CubeSql(semantic, semantic.cube(dataset_id), dialect);
  const model::Report& report = semantic.report(dataset_id);
  if (report.source == model::ReportSource::kWarehouse) {
    return engine::CubeSql(semantic, model::ReportAsCube(report), dialect);
  }
  return engine::CubeSql(semantic, semantic.cube(report.cube_id), dialect);
}

}  // namespace tessera::service::instance
