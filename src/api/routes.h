// api/routes.h
//
// One Register function per endpoint family; each lives in its own <family>_routes.cc.
#pragma once

#include "api/api.h"

namespace tessera::api {

void RegisterAuthRoutes(Endpoints& endpoints);       // spec 01 §2.1-2.2
void RegisterSessionRoutes(Endpoints& endpoints);    // spec 01 §2.3
void RegisterStatusRoutes(Endpoints& endpoints);     // spec 01 §4
void RegisterProjectRoutes(Endpoints& endpoints);    // spec 01 §5
void RegisterObjectRoutes(Endpoints& endpoints);     // spec 01 §8.1
void RegisterFolderRoutes(Endpoints& endpoints);     // spec 01 §8.2
void RegisterSearchRoutes(Endpoints& endpoints);     // spec 01 §7
void RegisterUserRoutes(Endpoints& endpoints);       // users and security roles
void RegisterReportRoutes(Endpoints& endpoints);     // spec 02 §2.2-2.3, §2.6
void RegisterCubeRoutes(Endpoints& endpoints);       // spec 02 §2.3-2.6
void RegisterDatasetRoutes(Endpoints& endpoints);    // spec 02 §6.3
void RegisterInstanceRoutes(Endpoints& endpoints);   // spec 02 §3-§6.2
void RegisterPushRoutes(Endpoints& endpoints);       // spec 02 §8
void RegisterDashboardRoutes(Endpoints& endpoints);  // spec 03, spec 06 §10
void RegisterOpsRoutes(Endpoints& endpoints);        // /health/live, /health/ready, /metrics
void RegisterMigrationRoutes(Endpoints& endpoints);  // spec 04, spec 06 §11, §13
void RegisterDocsRoutes(Endpoints& endpoints);       // /api-docs: the OpenAPI document and page

}  // namespace tessera::api
