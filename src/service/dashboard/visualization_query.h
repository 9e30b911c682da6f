// service/dashboard/visualization_query.h
//
// How the filters of a dashboard reach one visualization, as an instance grid and an engine query
// on the rows of the visualization's dataset.
//
//   1. Template: the visualization's attributes and metrics, then every object replacement that
//      reaches it (its targets, or the whole chapter when it has none): the saved selection's
//      objects found in the template are replaced, at the first one's place, by the current
//      selection; duplicates and objects the dataset lacks are dropped.
//   2. Rows, ANDed: the dataset's own filter; every chapter filter of the chapter whose source the
//      dataset holds (visualizations of other datasets are untouched); every page selector and
//      visualization used as a filter that targets the visualization and whose source the
//      dataset holds. An element list is In (excluded: NotIn) its elements; a qualification and a
//      visualization-as-filter selection is its expression; an unfiltered or (All) selection is
//      no condition.
//   3. Groups: metric qualifications that reach the visualization (by the rules of 2) and the
//      visualization's own metric limit, whose value parameters take their current values (no
//      limit while a parameter it uses has none), evaluated on the aggregated rows at the
//      visualization's attributes; a qualified metric the template does not show is computed
//      hidden.
// The order is the default one: the attributes by ID. Every function is pure.
#pragma once

#include <string>
#include <vector>

#include "core/json.h"
#include "engine/cube_query.h"
#include "model/dashboard.h"
#include "service/dashboard/dashboard_state.h"
#include "service/instance/dataset_definition_service.h"
#include "service/instance/instance_request.h"

namespace tessera::service::dashboard {

// The expression with every And / Or of a single operand replaced by that operand (the platform
// sends a visualization's selection as an Or of one In).
Json SimplifiedExpression(const Json& expression);

// The row condition of a selection (a view filter tree, engine/view_filter.h), or null when it
// restricts nothing.
// Metric qualifications and object and value selectors give null: they do not filter rows.
Json RowConditionOf(const model::Selector& selector, const model::Selection& selection);

// Whether `selector`'s selection applies to `visualization` of `dashboard` (rules 2 and 3).
bool Reaches(const model::Dashboard& dashboard, const model::Selector& selector,
             const model::Visualization& visualization, const instance::DatasetDefinition& dataset);

struct VisualizationPlan {
  instance::InstanceGrid grid;                // what the visualization shows
  instance::InstanceGrid query_grid;          // the grid and, last, the extra metrics
  instance::InstanceRequest request;          // its row filter (view_filter)
  Json group_qualification;                   // metric qualifications, ANDed; null = none
  std::vector<std::string> extra_metric_ids;  // computed for the qualification only
  std::string element_filter_summary;
  std::string view_filter_summary;
  std::string metric_limit_summary;
};

VisualizationPlan PlanVisualization(const model::Dashboard& dashboard, const DashboardState& state,
                                    const model::Visualization& visualization,
                                    const instance::ResolvedDataset& dataset);

// The engine query of the plan on the dataset's rows.
engine::CubeQuery QueryOfPlan(const VisualizationPlan& plan,
                              const instance::ResolvedDataset& dataset,
                              const engine::Dataset& rows);

}  // namespace tessera::service::dashboard
