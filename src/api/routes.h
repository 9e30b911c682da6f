// api/routes.h
//
// One Register function per endpoint family; each lives in its own <family>_routes.cc.
#pragma once

#include "api/api.h"

namespace tessera::api {

void RegisterAuthRoutes(Endpoints& endpoints);       // /api/auth: login, logout
void RegisterSessionRoutes(Endpoints& endpoints);    // /api/sessions
void RegisterStatusRoutes(Endpoints& endpoints);     // /api/status
void RegisterProjectRoutes(Endpoints& endpoints);    // /api/projects, project and node monitors
void RegisterObjectRoutes(Endpoints& endpoints);     // /api/objects
void RegisterFolderRoutes(Endpoints& endpoints);     // /api/folders
void RegisterSearchRoutes(Endpoints& endpoints);     // quick search and metadata search
void RegisterUserRoutes(Endpoints& endpoints);       // users and security roles
void RegisterReportRoutes(Endpoints& endpoints);     // report definitions and elements
void RegisterCubeRoutes(Endpoints& endpoints);       // cube definitions, info, publish, elements
void RegisterDatasetRoutes(Endpoints& endpoints);    // dataset definitions with their tables
void RegisterInstanceRoutes(Endpoints& endpoints);   // report and cube instances
void RegisterPushRoutes(Endpoints& endpoints);       // pushed datasets: models, upload sessions
void RegisterDashboardRoutes(Endpoints& endpoints);  // dashboards (/api/dossiers, /api/documents)
void RegisterOpsRoutes(Endpoints& endpoints);        // /health/live, /health/ready, /metrics
void RegisterMigrationRoutes(Endpoints& endpoints);  // migrations and the package storage
void RegisterDocsRoutes(Endpoints& endpoints);       // /api-docs: the OpenAPI document and page

}  // namespace tessera::api
