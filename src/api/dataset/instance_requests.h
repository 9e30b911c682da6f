// api/dataset/instance_requests.h
//
// The bodies of report and cube instance calls read into the instance service's requests
// (service/instance/instance_request.h):
//   ParseInstanceRequest  POST .../instances: null or an object of kInstanceBodyKeys --
//                         requestedObjects, viewFilter, metricLimits, sorting, subtotals and an
//                         empty currentPageBy;
//   ParseResortRequest    PUT /api/v2/reports/{id}/instances/{id}: null or an object with sorting
//                         and an empty currentPageBy; nullopt when it has no sorting.
//
// Sorting: the v2 object {"rows", "columns", "pageBy"} or a v1 array of row items. A row item
// sorts by a form of an attribute ({"type": "form", "attribute": {"id"}, "form": {"id"},
// "order"}), by an attribute's default order ({"type": "attribute", "attribute": {"id"}}), by a
// metric ({"type": "metric", "metric": {"id"}, "order"}), or places the subtotals
// ({"type": "subtotalsPosition", "subtotalsPosition"}, first only); without "type" the item's
// members tell. "order" is ascending (the default) or descending, any case. `columns` holds at
// most a subtotalsPosition item, `pageBy` nothing (reports have no page-by).
//
// A body of another shape is Error(kInvalidInput) naming what is wrong: a key that is not
// accepted (with the accepted keys), a member of the wrong JSON type, a sort item without the id
// it needs, an unknown item type or order. Whether the objects named are the report's or cube's
// is the service's to check.
//
// Read* throw the faults of the body as a whole (not an object, a key not accepted, a member of
// the wrong JSON type, a non-empty currentPageBy) and keep those of the requested objects and the
// sorting (service/parsed.h): the service refuses them once it has found the report, cube or
// instance, as it did when it read them itself. Parse* throw every fault.
#pragma once

#include <optional>

#include "core/json.h"
#include "service/instance/instance_request.h"
#include "service/parsed.h"

namespace tessera::api::dataset {

service::Parsed<service::instance::InstanceRequest> ReadInstanceRequest(const Json& body);
service::instance::InstanceRequest ParseInstanceRequest(const Json& body);
service::Parsed<std::optional<service::instance::Sorting>> ReadResortRequest(const Json& body);
std::optional<service::instance::Sorting> ParseResortRequest(const Json& body);

}  // namespace tessera::api::dataset
