// api/dashboard/dashboard_requests.h
//
// The bodies of dashboard instance calls read into the dashboard service's requests
// (service/dashboard/dashboard_service.h):
//   ParseCreateOptions    POST /api/dossiers/{id}/instances: the creation flags, linkingInfo,
//                         bookmarkInfo and filters;
//   ParseInMemoryRequest  POST /api/dossiers/instances: the same, with `objects`, the reports and
//                         cubes (type 3) the dashboard shows;
//   ParseFilterEntries    PUT .../instances/{id}/filters, and `filters` at creation: one filter
//                         object or an array of them (service/dashboard/filter_entries.h).
//
// What does not have the shape is Error(kInvalidInput) naming the member: a flag that is not a
// boolean, a member that is not an object, objects that are not reports or cubes with ids, a
// filter that is not an object or names no selector (it needs a key, a name, a source with an id
// or a name, or a visualizationKey; the one it names by must be a string). The creation options
// keep the filters' fault (service/parsed.h) for the service to refuse after the dashboard, the
// bookmark and the target page, as it did when it read the body. The members of a filter entry
// that only some selector types read are read here too, but their faults are kept with the
// member and refused only if the entry's selector reads it.
#pragma once

#include <string>
#include <vector>

#include "core/json.h"
#include "service/dashboard/dashboard_service.h"

namespace tessera::api::dashboard {

struct InMemoryDashboardRequest {
  std::vector<std::string> object_ids;
  service::dashboard::DashboardCreateOptions options;
};

service::dashboard::DashboardCreateOptions ParseCreateOptions(const Json& body);
InMemoryDashboardRequest ParseInMemoryRequest(const Json& body);
std::vector<service::dashboard::FilterEntry> ParseFilterEntries(const Json& body);

}  // namespace tessera::api::dashboard
