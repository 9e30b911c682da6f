// Server status and version: GET /api/status.
#include "api/routes.h"

namespace tessera::api::ops {

void RegisterStatusRoutes(Endpoints& endpoints) {
  endpoints.Add("GET", "/api/status",
                {Access::kPublic, FieldsDialect::kRootFields, BodySize::kSmall, true},
                [](RequestContext& context) {
                  const std::string& version = context.options().version;
                  return context.Reply(200, {{"webVersion", version}, {"iServerVersion", version}});
                });
}

}  // namespace tessera::api::ops
