// service/instance/dataset_definition_service.h
//
// What a report or a cube is made of, for the definition endpoints, and the elements of one of its
// attributes. Objects are resolved in the project's semantic model
// (service/project/project_model.h): a report lists its template (rows, then columns), a cube every
// object it holds, in definition order. Every attribute comes with all its forms, each typed by its
// lookup column and classed "ID" (forms[0]), "DESC" (a form named DESC) or by its own name in upper
// case.
//
// Contract:
//   - A report is a type-3 object of a report subtype; a cube one of subtype 776 or 779. An id
//     naming anything else, or nothing, is Error(kNotFound) -- WrongDatasetKind when it names a
//     cube where a report was asked for, or the reverse (service/instance/dataset_kind.h); a
//     malformed id is Error(kInvalidInput). The caller needs browse and read on it
//     (Error(kAccessDenied)).
//   - Elements(): the attribute must be one of the report's or cube's attributes (Error(kNotFound)
//     otherwise). A cube, or a report whose source is a cube, answers from the cube's published
//     dataset; a cube never published is Error(kEngine) with iServer code -2147072488 saying so.
//     A warehouse report answers from the attribute's lookup table (engine/sql/lookup_elements.h).
//     Elements come in ID order; each has its "<attribute id>:<ID value>" id
//     (engine/element_id.h) and its form values as text, one per form in form order (a null is
//     ""); `total` counts them all, whatever the page.
//   - A pushed dataset (model::IsPushedDataset) is a cube whose model is its push model
//     (engine/push/pushed_semantic_model.h); its definition also lists its tables. It has no
//     warehouse query: SqlOf() says so.
//   - Thread-safe: every call reads the storage service afresh.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/json.h"
#include "engine/dataset.h"
#include "engine/sql/report_sql.h"
#include "engine/warehouse/warehouse.h"
#include "model/semantic.h"
#include "model/semantic_model.h"
#include "service/cube/cube_service.h"
#include "service/instance/dataset_kind.h"
#include "service/object/object_service.h"
#include "service/project/project_model.h"
#include "service/project/warehouse_registry.h"
#include "service/session/principal.h"
#include "storage/metadata_store.h"

namespace tessera::service::instance {

// Which kinds a lookup accepts.
enum class DatasetFilter { kReport, kCube, kReportOrCube };

struct FormDefinition {
  std::string id;  // engine::FormId: the well-known ID / DESC ids, else derived from the name
  std::string name;
  std::string category;  // "ID", "DESC", or the form's name in upper case
  model::DataType type = model::DataType::kText;
};

struct AttributeDefinition {
  std::string id;
  std::string name;
  std::vector<FormDefinition> forms;  // forms[0] is the ID form
};

struct MetricDefinition {
  std::string id;
  std::string name;
};

struct ColumnDefinition {
  std::string name;
  std::string data_type;  // as the push model names it: "INTEGER", "STRING", ...
};

// A table of a pushed dataset; modelled reports and cubes have none.
struct TableDefinition {
  std::string id;
  std::string name;
  std::vector<ColumnDefinition> columns;
};

struct DatasetDefinition {
  std::string id;
  std::string name;
  DatasetKind kind = DatasetKind::kReport;
  std::vector<AttributeDefinition> attributes;
  std::vector<MetricDefinition> metrics;
  std::vector<TableDefinition> tables;
};

struct AttributeElement {
  std::string id;                        // "<attribute id>:<ID value>"
  std::vector<std::string> form_values;  // one per form, in form order
};

struct ElementPage {
  std::vector<AttributeElement> elements;
  int64_t total = 0;
};

// A report or cube with everything its instances compute from.
struct ResolvedDataset {
  std::shared_ptr<const model::SemanticModel> model;
  DatasetDefinition definition;
  std::optional<std::string> source_cube_id;  // a cube, or the cube a report reads
  Json report_filter;  // a cube report's own filter, applied to the cube's rows; null = none
  model::Cube base;    // a warehouse report as a cube: its template objects and its filter
  bool is_pushed = false;
};

// The warehouse query the rows of report or cube `dataset_id` come from: a cube's publish query,
// a warehouse report's own query, the publish query of the cube a report reads. The one generator
// of both the sqlView answers and `tessera sql`.
engine::sql::GeneratedSql QueryOf(const model::SemanticModel& semantic,
                                  const std::string& dataset_id,
                                  engine::warehouse::Dialect dialect);

class DatasetDefinitionService {
 public:
  DatasetDefinitionService(storage::MetadataStore& store, object::ObjectService& objects,
                           project::WarehouseRegistry& warehouses, cube::CubeService& cubes);

  DatasetDefinition Get(const session::Principal& principal, const std::string& project_id,
                        const std::string& id, DatasetFilter filter);

  // Like Get(), with the model and the sources of the data.
  ResolvedDataset Resolve(const session::Principal& principal, const std::string& project_id,
                          const std::string& id, DatasetFilter filter);

  // The rows instances of `resolved` read: the dataset of its cube (Error(kEngine) when never
  // published, as Elements()), or, for a warehouse report, its template objects at their own
  // level queried from the warehouse now (the report filter in the SQL). A Dataset built for a
  // report is owned by the caller alone.
  std::shared_ptr<const engine::Dataset> BaseData(const std::string& project_id,
                                                  const ResolvedDataset& resolved);
  // For `resolved` reading a cube: the cube's version `snapshot_file` (CubeService::GetAt()),
  // or the version served now when it is empty; errors as BaseData().
  cube::CubeService::Version CubeVersion(const std::string& project_id,
                                         const ResolvedDataset& resolved,
                                         const std::string& snapshot_file);

  // The roll-ups of `rows` when it is a cube's dataset served now (CubeService::RollupsOf()).
  std::shared_ptr<const engine::RollupSet> RollupsOf(const engine::Dataset& rows) const {
    return cubes_.RollupsOf(rows);
  }

  // The SQL the rows of `resolved` come from, for people to read (sqlView): its cube's publish
  // query, or the warehouse report's query.
  std::string SqlOf(const std::string& project_id, const ResolvedDataset& resolved);

  // `page.limit` -1 = every element from `page.offset` on.
  ElementPage Elements(const session::Principal& principal, const std::string& project_id,
                       const std::string& id, DatasetFilter filter, const std::string& attribute_id,
                       const object::Page& page);

 private:
  storage::MetadataStore& store_;
  project::SemanticModels models_;
  object::ObjectService& objects_;
  project::WarehouseRegistry& warehouses_;
  cube::CubeService& cubes_;
};

}  // namespace tessera::service::instance
