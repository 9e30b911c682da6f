// api/dashboard/dashboard_json.h
//
// The dashboard definition reads: GET /api/dossiers/{id}/definition (v1) and
// /api/v2/dossiers/{id}[/instances/{instanceId}]/definition (v2). The v2 body is
// {id, name, hasPrompt, currentChapter, chapters, datasets}: chapters with their filters (each
// with the legacy members unset, include, multiSelected, selections and, on qualifications,
// expression), pages with selectors (and the same array as inCanvasSelectors), fields and
// panelStacks, visualizations with visualizationType and, on a visualization used as a filter,
// its selector and filteredTargetVisualizations. Lists are always arrays and objects never null
// (the Python client requires it). Element ids are in the "h" form, except inside a
// visualization-as-filter's expression (colon form); object items are "i<id>;<id>" for metrics
// and "U<id>;<id>" for attributes.
// The v1 body is {id, name, chapters: [{key, name, pages: [{key, name, visualizations: [{key,
// name, units: {attributes, metrics}}]}], filters: [{key, name, summary, source}],
// filtersPanelStack: {key}}]}.
#pragma once

#include <functional>
#include <string>

#include "api/api_version.h"
#include "core/json.h"
#include "service/dashboard/dashboard_service.h"

namespace tessera::api::dashboard {

// The display name of an element "<attribute id>:<key>".
using ElementNamer = std::function<std::string(const std::string& element_id)>;

Json DashboardDefinition(const service::dashboard::DashboardView& view,
                         const ElementNamer& element_name, ApiVersion version);

}  // namespace tessera::api::dashboard
