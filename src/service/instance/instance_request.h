// service/instance/instance_request.h
//
// What a report or cube instance shows: the request to create it (an InstanceRequest, read from
// the body by api/dataset/instance_requests.h) resolved against the report's or cube's definition
// into an InstanceGrid -- the attributes with the forms displayed, the metrics with their number
// formats, and the sort -- and finally, against the rows it reads, into the engine's CubeQuery.
//
// Grid rules:
//   - no requested objects: every object of the definition; requested objects with no attribute
//     or no metric: none of that kind;
//   - grid order is the definition's order, never the request's; duplicates are ignored;
//   - an attribute requested without forms shows all its forms, ID first; otherwise the forms
//     requested, in that order, by id (any case) or by name;
//   - a metric keeps its model number format (General when it has none).
// Sorting: rows may sort by a form of a grid attribute, by an attribute's default order (its ID
// form), or by a returned metric. Without row items the grid attributes sort left to right by
// their ID forms ascending. The effective sorting is echoed in v2 shape ({"rows", "columns",
// "pageBy"}) with every item typed and named.
//
// Errors, Error(kInvalidInput): "Failed to find the attribute|metric X in the report or cube."
// for a requested object the definition lacks, "Invalid attribute form id - X" for a form the
// attribute lacks, "Failed to find the attribute|attribute form|metric X in the template" for a
// sort item naming what the grid does not show.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/json.h"
#include "engine/cube_query.h"
#include "engine/dataset.h"
#include "model/number_format.h"
#include "model/semantic_model.h"
#include "service/instance/dataset_definition_service.h"

namespace tessera::service::instance {

struct RequestedAttribute {
  std::string id;                  // upper case
  std::vector<std::string> forms;  // ids or names, in display order; empty = all its forms
};

struct RequestedObjects {
  std::vector<RequestedAttribute> attributes;  // one request per attribute
  std::vector<std::string> metric_ids;         // upper case
};

// One row item of a sorting.
struct SortItem {
  enum class Kind { kForm, kAttribute, kMetric, kSubtotalsPosition };
  Kind kind = Kind::kForm;
  std::string attribute_id;                       // kForm, kAttribute: upper case
  std::string form;                               // kForm: the form's id (any case) or name
  std::string metric_id;                          // kMetric: upper case
  bool descending = false;                        // kForm, kMetric
  std::optional<std::string> subtotals_position;  // kSubtotalsPosition: first, last or inherit
};

struct Sorting {
  std::vector<SortItem> rows;
  Json columns = Json::array();  // at most a subtotalsPosition item, echoed as given
};

struct InstanceRequest {
  std::optional<RequestedObjects> requested_objects;  // nullopt = every object
  Json view_filter;                                   // null = none (engine/view_filter.h)
  Json metric_limits;                                 // null = none (engine/metric_limits.h)
  std::optional<Sorting> sorting;                     // nullopt = the default order
  bool subtotals_visible = false;
};

struct GridMetric {
  MetricDefinition metric;
  std::string format_string;
  model::NumberFormat format;
};

struct GridSort {
  enum class Kind { kAttributeForm, kMetric };
  Kind kind = Kind::kAttributeForm;
  size_t index = 0;       // grid attribute or grid metric
  std::string form_name;  // kAttributeForm
  bool descending = false;
};

struct InstanceGrid {
  std::vector<AttributeDefinition> attributes;  // forms: those displayed, in display order
  std::vector<GridMetric> metrics;
  std::vector<GridSort> sort;
  Json sorting;  // the effective sorting, v2 shape
  bool subtotals_visible = false;
};

// `model` gives the metrics' formats; metrics it does not know are General.
InstanceGrid ResolveGrid(const DatasetDefinition& definition, const model::SemanticModel* model,
                         const InstanceRequest& request);

// The same grid with another sorting (PUT on an instance); nullopt = the default order.
InstanceGrid ResortGrid(const DatasetDefinition& definition, InstanceGrid grid,
                        const std::optional<Sorting>& sorting);

// The engine query of `grid` on `dataset`: attributes and metrics by dataset index (a compound
// metric the dataset has no column for becomes a formula over its components, computed but not
// returned), the view filter and metric limits compiled (engine/view_filter.h,
// engine/metric_limits.h), `extra_filter` ANDed to the view filter (a cube report's own filter),
// the sort. Error(kInvalidInput) when the dataset lacks an object of the grid (a cube published
// before its definition changed).
engine::CubeQuery QueryOfGrid(const InstanceGrid& grid, const InstanceRequest& request,
                              const engine::Dataset& dataset, const model::SemanticModel* model,
                              const Json& extra_filter);

// "descending" or "ascending", as requests and their echoes spell a sort order.
inline const char* SortOrderName(bool descending) {
  return descending ? "descending" : "ascending";
}

}  // namespace tessera::service::instance
