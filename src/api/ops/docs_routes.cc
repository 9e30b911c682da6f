// The API reference: GET /api-docs/openapi.json (the OpenAPI document, its `servers` naming this
// node's context path so requests tried from it reach this node) and GET /api-docs (a page that
// browses it). Both are public: the document describes the API, it holds no data.
#include "api/openapi_document.h"
#include "api/routes.h"
#include "core/json.h"

namespace tessera::api::ops {
namespace {

Json DocumentFor(std::string_view context_path) {
  Json document = Json::parse(OpenApiDocumentText());
  document["servers"] =
      Json::array({{{"url", context_path.empty() ? "/" : std::string(context_path)},
                    {"description", "this node"}}});
  return document;
}

http::Response Document(RequestContext& context) {
  // Parsed per request: the document is read rarely, and a node's context path never changes.
  return http::Response::Json(200, DumpJson(DocumentFor(context.options().context_path)));
}

http::Response Page(RequestContext&) {
  return http::Response::Text(200, "text/html; charset=utf-8", std::string(ApiDocsPageText()));
}

}  // namespace

void RegisterDocsRoutes(Endpoints& endpoints) {
  const EndpointSpec kPublic{Access::kPublic, FieldsDialect::kNone};
  endpoints.Add("GET", "/api-docs", kPublic, Page);
  endpoints.Add("GET", "/api-docs/openapi.json", kPublic, Document);
}

}  // namespace tessera::api::ops
