// Report and cube instances: creation, incremental fetch, re-sorting, status, page-by elements,
// prompts and SQL view. The bodies are read by api/instance_requests.h.
#include <chrono>

#include "api/grid_params.h"
#include "api/grid_result.h"
#include "api/instance_requests.h"
#include "api/partial_response.h"
#include "api/routes.h"
#include "core/strings.h"

namespace tessera::api {

namespace {

// The execution status codes Tessera emits.
constexpr int kStatusReady = 1;
constexpr int kStatusRunning = 4;

struct Kind {
  const char* path_param;
  service::DatasetFilter filter;
};
constexpr Kind kReport{"reportId", service::DatasetFilter::kReport};
constexpr Kind kCube{"cubeId", service::DatasetFilter::kCube};

service::InstanceCaller CallerOf(RequestContext& context) {
  return {context.principal(), context.session().session_id, context.RequiredProjectId()};
}

GridHeader HeaderOf(const service::InstanceHandle& handle, int status) {
  const service::DatasetDefinition& source = handle.definition->source().definition;
  return {source.id, source.name, handle.instance->id(), status, std::nullopt};
}

http::Response RunningResponse(const service::InstanceHandle& handle) {
  const service::DatasetDefinition& source = handle.definition->source().definition;
  Json body = {{"id", source.id},
               {"name", source.name},
               {"instanceId", handle.instance->id()},
               {"status", kStatusRunning}};
  http::Response response = http::Response::Json(202, DumpJson(body));
  response.headers.Set("Retry-After", "1");
  response.headers.Set("X-MSTR-IStatus", "JobRunning");
  return response;
}

http::Response PageV2(const RequestContext& context, const service::InstanceHandle& handle) {
  if (!handle.result) return RunningResponse(handle);
  return http::Response::Json(200, WriteGridV2(HeaderOf(handle, kStatusReady), *handle.grid,
                                               *handle.result, PageOf(context), PartsOf(context)));
}

http::Response PageV1(const RequestContext& context, const service::InstanceHandle& handle) {
  if (!handle.result) return RunningResponse(handle);
  const std::optional<FieldSelection> fields = ParseFieldsParameter(context.request().query);
  const KeepKey keep = [&fields](std::string_view key) { return !fields || fields->contains(key); };
  return http::Response::Json(200, WriteGridV1(HeaderOf(handle, kStatusReady), *handle.grid,
                                               *handle.result, PageOf(context), keep));
}

bool PrefersAsync(const RequestContext& context) {
  auto prefer = context.Header("Prefer");
  return prefer && ToLower(*prefer).find("respond-async") != std::string::npos;
}

// An absent, empty or null body asks for everything.
Json OptionalBody(const RequestContext& context) {
  const std::string_view text = Trim(context.request().body);
  return text.empty() ? Json() : ParseJson(text);
}

service::InstanceHandle CreateInstance(RequestContext& context, Kind kind, bool allow_async) {
  PageOf(context);  // a bad page is refused before anything runs
  service::Parsed<service::InstanceRequest> request = ReadInstanceRequest(OptionalBody(context));
  std::optional<std::chrono::milliseconds> async_after;
  if (allow_async && PrefersAsync(context)) async_after = context.options().async_instance_after;
  return context.services().dataset_instances.Create(CallerOf(context),
                                                     context.PathParam(kind.path_param),
                                                     kind.filter, std::move(request), async_after);
}

service::InstanceHandle OpenInstance(RequestContext& context, Kind kind) {
  PageOf(context);
  return context.services().dataset_instances.Open(
      CallerOf(context), context.PathParam(kind.path_param), context.PathParam("instanceId"),
      /*wait=*/false);
}

template <Kind const& kind>
http::Response CreateV1(RequestContext& context) {
  ParseFieldsParameter(context.request().query);
  return PageV1(context, CreateInstance(context, kind, false));
}

template <Kind const& kind>
http::Response CreateV2(RequestContext& context) {
  return PageV2(context, CreateInstance(context, kind, true));
}

template <Kind const& kind>
http::Response GetV1(RequestContext& context) {
  ParseFieldsParameter(context.request().query);
  return PageV1(context, OpenInstance(context, kind));
}

template <Kind const& kind>
http::Response GetV2(RequestContext& context) {
  return PageV2(context, OpenInstance(context, kind));
}

http::Response ResortReport(RequestContext& context) {
  PageOf(context);
  const service::Parsed<std::optional<service::Sorting>> sorting =
      ReadResortRequest(OptionalBody(context));
  return PageV2(context, context.services().dataset_instances.Resort(
                             CallerOf(context), context.PathParam("reportId"),
                             context.PathParam("instanceId"), sorting));
}

template <Kind const& kind>
http::Response InstanceStatus(RequestContext& context) {
  service::InstanceHandle handle = context.services().dataset_instances.Open(
      CallerOf(context), context.PathParam(kind.path_param), context.PathParam("instanceId"),
      /*wait=*/false);
  if (!handle.result) return RunningResponse(handle);
  http::Response response = context.Reply(200, {{"id", handle.definition->source().definition.id},
                                                {"status", kStatusReady},
                                                {"instanceId", handle.instance->id()}});
  response.headers.Set("X-MSTR-IStatus", "Result");
  return response;
}

// The Python client's Report.to_dataframe() asks for them, twice; Tessera reports have no page-by.
http::Response PageByElements(RequestContext& context) {
  std::shared_ptr<service::Instance> instance;
  context.services().dataset_instances.Check(CallerOf(context), context.PathParam("reportId"),
                                             context.PathParam("instanceId"), &instance);
  Json body = {{"pageBy", Json::array()},
               {"validPageByElements",
                {{"paging", {{"total", 0}, {"current", 0}, {"offset", 0}, {"limit", 0}}},
                 {"items", Json::array()}}}};
  return context.Reply(200, std::move(body));
}

http::Response ReportSqlView(RequestContext& context) {
  std::shared_ptr<service::Instance> instance;
  service::Services& services = context.services();
  const service::DatasetInstance& definition = services.dataset_instances.Check(
      CallerOf(context), context.PathParam("reportId"), context.PathParam("instanceId"), &instance);
  const std::string sql = services.definitions.SqlOf(definition.project_id(), definition.source());
  return context.Reply(200, {{"sqlStatement", sql}});
}

http::Response CubeSqlView(RequestContext& context) {
  service::Services& services = context.services();
  const std::string project_id = context.RequiredProjectId();
  service::ResolvedDataset cube = services.definitions.Resolve(
      context.principal(), project_id, context.PathParam("cubeId"), service::DatasetFilter::kCube);
  return context.Reply(200, {{"sqlStatement", services.definitions.SqlOf(project_id, cube)}});
}

// Tessera reports have no prompts.
http::Response ReportPrompts(RequestContext& context) {
  context.services().definitions.Get(context.principal(), context.RequiredProjectId(),
                                     context.PathParam("reportId"),
                                     service::DatasetFilter::kReport);
  return context.Reply(200, Json::array());
}

http::Response InstancePrompts(RequestContext& context) {
  std::shared_ptr<service::Instance> instance;
  context.services().dataset_instances.Check(CallerOf(context), context.PathParam("reportId"),
                                             context.PathParam("instanceId"), &instance);
  return context.Reply(200, Json::array());
}

http::Response AnswerPrompts(RequestContext& context) {
  std::shared_ptr<service::Instance> instance;
  context.services().dataset_instances.Check(CallerOf(context), context.PathParam("reportId"),
                                             context.PathParam("instanceId"), &instance);
  return RequestContext::NoContent();
}

}  // namespace

void RegisterInstanceRoutes(Endpoints& endpoints) {
  const EndpointSpec own_fields{Access::kSession, FieldsRule::kNone};
  const char* report = "/api/reports/{reportId}/instances";
  const char* cube = "/api/cubes/{cubeId}/instances";
  const char* report_v2 = "/api/v2/reports/{reportId}/instances";
  const char* cube_v2 = "/api/v2/cubes/{cubeId}/instances";
  const std::string one = "/{instanceId}";

  endpoints.Add("POST", report, own_fields, CreateV1<kReport>);
  endpoints.Add("GET", report + one, own_fields, GetV1<kReport>);
  endpoints.Add("POST", cube, own_fields, CreateV1<kCube>);
  endpoints.Add("GET", cube + one, own_fields, GetV1<kCube>);
  endpoints.Add("POST", report_v2, own_fields, CreateV2<kReport>);
  endpoints.Add("GET", report_v2 + one, own_fields, GetV2<kReport>);
  endpoints.Add("PUT", report_v2 + one, own_fields, ResortReport);
  endpoints.Add("POST", cube_v2, own_fields, CreateV2<kCube>);
  endpoints.Add("GET", cube_v2 + one, own_fields, GetV2<kCube>);

  endpoints.Add("GET", report + one + "/status", {}, InstanceStatus<kReport>);
  endpoints.Add("GET", cube + one + "/status", {}, InstanceStatus<kCube>);
  endpoints.Add("GET", report_v2 + one + "/pageBy/elements", {}, PageByElements);
  endpoints.Add("GET", report_v2 + one + "/sqlView", {}, ReportSqlView);
  endpoints.Add("GET", "/api/v2/cubes/{cubeId}/sqlView", {}, CubeSqlView);
  endpoints.Add("GET", "/api/reports/{reportId}/prompts", {}, ReportPrompts);
  endpoints.Add("GET", report + one + "/prompts", {}, InstancePrompts);
  endpoints.Add("PUT", report + one + "/prompts/answers", own_fields, AnswerPrompts);
}

}  // namespace tessera::api
