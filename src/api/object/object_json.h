// api/object/object_json.h
//
// JSON shapes shared by several endpoint families: object info (as GET /api/objects/{id} answers),
// projects, users. Empty optional fields are omitted; the fields the Python client indexes
// (subtype, viewMedia on types 3 and 55, owner) are always present.
#pragma once

#include "core/json.h"
#include "service/object/object_view.h"
#include "service/project/project_service.h"

namespace tessera::api::object {

Json ObjectInfoJson(const service::object::ObjectView& view);
Json ProjectJson(const service::project::ProjectView& view);
Json MonitoredProjectJson(const service::project::ProjectView& view);  // + type, subtype, extType
Json OwnerJson(const std::string& id, const std::string& name);

}  // namespace tessera::api::object
