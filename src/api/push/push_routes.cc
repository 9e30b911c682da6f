// The push API: dataset models, upload sessions with chunks, publish and its status, and the
// single-request datasets with their table updates. The bodies are read by
// api/push/push_requests.h. A handler refuses in this order: a body that is not a JSON object, the
// project header, then what the service checks -- the dataset or session and the caller's right to
// write to it -- before the body's content, which the service takes Parsed.
#include "api/push/push_requests.h"
#include "api/routes.h"
#include "core/error.h"
#include "service/push/push_service.h"

namespace tessera::api::push {

namespace {

service::push::PushService& Push(RequestContext& context) { return context.services().push; }

http::Response EmptyOk() {
  http::Response response;
  response.status = 200;
  return response;
}

http::Response CreateModel(RequestContext& context) {
  const Json body = context.BodyJson();
  const std::string project_id = context.RequiredProjectId();
  service::push::PushedDatasetRef dataset =
      Push(context).CreateModel(context.principal(), project_id, ParseModelRequest(body));
  // Only id and name: the Python client copies the answer onto its dataset object.
  return context.Reply(200, {{"id", dataset.id}, {"name", dataset.name}});
}

http::Response OpenSession(RequestContext& context) {
  const Json body = context.BodyJson();
  const std::string project_id = context.RequiredProjectId();
  std::string session_id =
      Push(context).OpenSession(context.principal(), project_id, context.PathParam("datasetId"),
                                service::ParsedOf([&] { return ParseOpenSessionRequest(body); }));
  return context.Reply(200, {{"uploadSessionId", session_id}});
}

// A chunk's body is tens of megabytes of base64: a plain one is read without a JSON document.
service::Parsed<service::push::ChunkRequest> ChunkOf(RequestContext& context) {
  if (!context.request().body_file) {
    if (auto chunk = ReadPlainChunkRequest(context.request().body)) return std::move(*chunk);
  }
  const Json body = context.BodyJson();
  return service::ParsedOf([&] { return ParseChunkRequest(body); });
}

http::Response PutChunk(RequestContext& context) {
  service::Parsed<service::push::ChunkRequest> chunk = ChunkOf(context);
  const std::string project_id = context.RequiredProjectId();
  Push(context).PutChunk(context.principal(), project_id, context.PathParam("datasetId"),
                         context.PathParam("sessionId"), std::move(chunk));
  return EmptyOk();
}

http::Response Publish(RequestContext& context) {
  Push(context).Publish(context.principal(), context.RequiredProjectId(),
                        context.PathParam("datasetId"), context.PathParam("sessionId"));
  return EmptyOk();
}

http::Response PublishStatus(RequestContext& context) {
  service::push::PublishProgress progress =
      Push(context).Progress(context.principal(), context.RequiredProjectId(),
                             context.PathParam("datasetId"), context.PathParam("sessionId"));
  return context.Reply(200, {{"uploadSessionId", progress.session_id},
                             {"status", progress.status},
                             {"message", progress.message}});
}

http::Response CloseSession(RequestContext& context) {
  Push(context).CloseSession(context.principal(), context.RequiredProjectId(),
                             context.PathParam("datasetId"), context.PathParam("sessionId"));
  return EmptyOk();
}

http::Response CreateSingle(RequestContext& context) {
  const Json body = context.BodyJson();
  const std::string project_id = context.RequiredProjectId();
  service::push::PushedDatasetRef dataset =
      Push(context).CreateSingle(context.principal(), project_id, ParseSingleDatasetRequest(body));
  Json tables = Json::array();
  for (const auto& [id, name] : dataset.tables) tables.push_back({{"id", id}, {"name", name}});
  return context.Reply(200,
                       {{"datasetId", dataset.id}, {"name", dataset.name}, {"tables", tables}});
}

http::Response PatchTable(RequestContext& context) {
  auto policy = context.Header("updatePolicy");
  if (!policy) {
    throw Error(ErrorCode::kMissingParameter,
                "The updatePolicy header is required: Add, Update, Upsert or Replace");
  }
  const Json body = context.BodyJson();
  const std::string project_id = context.RequiredProjectId();
  Push(context).PatchTable(context.principal(), project_id, context.PathParam("datasetId"),
                           context.PathParam("tableId"), std::string(*policy),
                           service::ParsedOf([&] { return ParseTableRowsRequest(body); }));
  return RequestContext::NoContent();
}

}  // namespace

void RegisterPushRoutes(Endpoints& endpoints) {
  const EndpointSpec spec{Access::kSession, FieldsDialect::kNone};
  endpoints.Add("POST", "/api/datasets/models", spec, CreateModel);
  // Rows arrive in these bodies: they take the upload limit.
  EndpointSpec upload = spec;
  upload.body = BodySize::kUpload;
  endpoints.Add("POST", "/api/datasets", upload, CreateSingle);
  endpoints.Add("PATCH", "/api/datasets/{datasetId}/tables/{tableId}", upload, PatchTable);
  endpoints.Add("POST", "/api/datasets/{datasetId}/uploadSessions", spec, OpenSession);
  endpoints.Add("PUT", "/api/datasets/{datasetId}/uploadSessions/{sessionId}", upload, PutChunk);
  endpoints.Add("DELETE", "/api/datasets/{datasetId}/uploadSessions/{sessionId}", spec,
                CloseSession);
  endpoints.Add("POST", "/api/datasets/{datasetId}/uploadSessions/{sessionId}/publish", spec,
                Publish);
  endpoints.Add("GET", "/api/datasets/{datasetId}/uploadSessions/{sessionId}/publishStatus", spec,
                PublishStatus);
}

}  // namespace tessera::api::push
