// api/routes.h
//
// One Register function per endpoint family; each lives in its own <family>_routes.cc, in the
// folder (and namespace) of its capability.
#pragma once

#include "api/api.h"

namespace tessera::api {

namespace session {
void RegisterAuthRoutes(Endpoints& endpoints);
}  // namespace session
namespace session {
void RegisterSessionRoutes(Endpoints& endpoints);
}  // namespace session
namespace ops {
void RegisterStatusRoutes(Endpoints& endpoints);
}  // namespace ops
namespace project {
void RegisterProjectRoutes(Endpoints& endpoints);
}  // namespace project
namespace object {
void RegisterObjectRoutes(Endpoints& endpoints);
}  // namespace object
namespace object {
void RegisterFolderRoutes(Endpoints& endpoints);
}  // namespace object
namespace object {
void RegisterSearchRoutes(Endpoints& endpoints);
}  // namespace object
namespace security {
void RegisterUserRoutes(Endpoints& endpoints);
}  // namespace security
namespace dataset {
void RegisterReportRoutes(Endpoints& endpoints);
}  // namespace dataset
namespace dataset {
void RegisterCubeRoutes(Endpoints& endpoints);
}  // namespace dataset
namespace dataset {
void RegisterDatasetRoutes(Endpoints& endpoints);
}  // namespace dataset
namespace dataset {
void RegisterInstanceRoutes(Endpoints& endpoints);
}  // namespace dataset
namespace push {
void RegisterPushRoutes(Endpoints& endpoints);
}  // namespace push
namespace dashboard {
void RegisterDashboardRoutes(Endpoints& endpoints);
}  // namespace dashboard
namespace ops {
void RegisterOpsRoutes(Endpoints& endpoints);
}  // namespace ops
namespace migration {
void RegisterMigrationRoutes(Endpoints& endpoints);
}  // namespace migration
namespace ops {
void RegisterDocsRoutes(Endpoints& endpoints);
}  // namespace ops

}  // namespace tessera::api
