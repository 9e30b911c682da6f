// service/instance_request.h
//
// What a report or cube instance shows (spec 02 §3.1-3.2, §3.6): the body of an instance creation
// request read into an InstanceRequest, then resolved against the report's or cube's definition
// into an InstanceGrid -- the attributes with the forms displayed, the metrics with their number
// formats, and the sort -- and finally, against the rows it reads, into the engine's CubeQuery.
//
// Grid rules (spec 02 §3.2):
//   - no `requestedObjects` key: every object of the definition; `{}` or null / empty lists: none
//     of that kind;
//   - grid order is the definition's order, never the request's; duplicates are ignored;
//   - an attribute without `forms` (or with `[]`) shows all its forms, ID first; `forms` lists the
//     forms shown, in that order, by id or by name;
//   - a metric keeps its model number format (General when it has none).
// Sorting (spec 02 §3.6): the v2 object {"rows","columns","pageBy"} or a v1 array of row items.
// Rows may sort by a form of a grid attribute, by an attribute's default order (its ID form), or
// by a returned metric; `columns` accepts only a subtotalsPosition item, `pageBy` nothing. Without
// row items the grid attributes sort left to right by their ID forms ascending. The effective
// sorting is echoed in v2 shape with every item typed and named.
//
// Errors, Error(kInvalidInput) with spec 02's messages: "Failed to find the attribute|metric X in
// the report or cube.", "Invalid attribute form id - X", the sorting messages of §3.6, a body key
// of the wrong JSON type, a key that is not one of kInstanceBodyKeys (named, with the accepted
// keys), and a non-empty currentPageBy (Tessera reports have no page-by).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "engine/cube_query.h"
#include "engine/dataset.h"
#include "model/number_format.h"
#include "model/semantic_model.h"
#include "service/dataset_definition_service.h"

namespace tessera::service {

// The keys of an instance creation body; any other is refused.
inline const std::vector<std::string_view> kInstanceBodyKeys = {
    "requestedObjects", "viewFilter", "metricLimits", "sorting", "subtotals", "currentPageBy"};
// The keys of the body that re-sorts an existing instance; any other is refused.
inline const std::vector<std::string_view> kResortBodyKeys = {"sorting", "currentPageBy"};

struct InstanceRequest {
  bool all_objects = true;  // the body has no requestedObjects key
  Json requested_objects;   // {"attributes": [...], "metrics": [...]} when !all_objects
  Json view_filter;         // null = none
  Json metric_limits;       // null = none
  Json sorting;             // null = the default order
  bool subtotals_visible = false;
};

// Reads an instance creation body (null or an object).
InstanceRequest ParseInstanceRequest(const Json& body);

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

// The same grid with another sorting (PUT on an instance).
InstanceGrid ResortGrid(const DatasetDefinition& definition, InstanceGrid grid,
                        const Json& sorting);

// The engine query of `grid` on `dataset`: attributes and metrics by dataset index (a compound
// metric the dataset has no column for becomes a formula over its components, computed but not
// returned), the view filter and metric limits compiled (engine/view_filter.h,
// engine/metric_limits.h), `extra_filter` ANDed to the view filter (a cube report's own filter),
// the sort. Error(kInvalidInput) when the dataset lacks an object of the grid (a cube published
// before its definition changed).
engine::CubeQuery QueryOfGrid(const InstanceGrid& grid, const InstanceRequest& request,
                              const engine::Dataset& dataset, const model::SemanticModel* model,
                              const Json& extra_filter);

}  // namespace tessera::service
