// Report and cube instances: creation, incremental fetch, re-sorting, status, page-by elements,
// prompts and SQL view. The bodies are read by api/dataset/instance_requests.h.
#include <chrono>

#include "api/dataset/instance_requests.h"
#include "api/grid/grid_params.h"
#include "api/grid/grid_result.h"
#include "api/partial_response.h"
#include "api/routes.h"
#include "core/strings.h"

namespace tessera::api::dataset {

namespace {

// The execution status codes Tessera emits.
constexpr int kStatusReady = 1;
constexpr int kStatusRunning = 4;

struct Kind {
  const char* path_param;
  service::instance::DatasetFilter filter;
};
constexpr Kind kReport{"reportId", service::instance::DatasetFilter::kReport};
constexpr Kind kCube{"cubeId", service::instance::DatasetFilter::kCube};

service::instance::InstanceCaller CallerOf(RequestContext& context) {
  return {context.principal(), context.session().session_id, context.RequiredProjectId()};
}

grid::GridHeader HeaderOf(const service::instance::InstanceHandle& handle, int status) {
  const service::instance::DatasetDefinition& source = handle.definition->source().definition;
  return {source.id, source.name, handle.instance->id(), status, std::nullopt};
}

http::Response RunningResponse(const service::instance::InstanceHandle& handle) {
  const service::instance::DatasetDefinition& source = handle.definition->source().definition;
  Json body = {{"id", source.id},
               {"name", source.name},
               {"instanceId", handle.instance->id()},
               {"status", kStatusRunning}};
  http::Response response = http::Response::Json(202, DumpJson(body));
  response.headers.Set("Retry-After", "1");
  response.headers.Set("X-MSTR-IStatus", "JobRunning");
  return response;
}

http::Response PageV2(const RequestContext& context,
                      const service::instance::InstanceHandle& handle) {
  if (!handle.result) return RunningResponse(handle);
  grid::GridFormat format;
  format.parts = context.fields().metric_values;
  return http::Response::Json(200, grid::WriteGrid(HeaderOf(handle, kStatusReady), *handle.grid,
                                                   *handle.result, grid::PageOf(context), format));
}

http::Response PageV1(const RequestContext& context,
                      const service::instance::InstanceHandle& handle) {
  if (!handle.result) return RunningResponse(handle);
  const std::optional<FieldSelection>& fields = context.fields().root_fields;
  grid::GridFormat format;
  format.version = ApiVersion::kV1;
  format.keep = [&fields](std::string_view key) { return !fields || fields->contains(key); };
  return http::Response::Json(200, grid::WriteGrid(HeaderOf(handle, kStatusReady), *handle.grid,
                                                   *handle.result, grid::PageOf(context), format));
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

service::instance::InstanceHandle CreateInstance(RequestContext& context, Kind kind,
                                                 bool allow_async) {
  grid::PageOf(context);  // a bad page is refused before anything runs
  service::Parsed<service::instance::InstanceRequest> request =
      ReadInstanceRequest(OptionalBody(context));
  std::optional<std::chrono::milliseconds> async_after;
  if (allow_async && PrefersAsync(context)) async_after = context.options().async_instance_after;
  return context.services().dataset_instances.Create(CallerOf(context),
                                                     context.PathParam(kind.path_param),
                                                     kind.filter, std::move(request), async_after);
}

service::instance::InstanceHandle OpenInstance(RequestContext& context, Kind kind) {
  grid::PageOf(context);
  return context.services().dataset_instances.Open(
      CallerOf(context), context.PathParam(kind.path_param), context.PathParam("instanceId"),
      /*wait=*/false);
}

template <Kind const& kind>
http::Response CreateV1(RequestContext& context) {
  return PageV1(context, CreateInstance(context, kind, false));
}

template <Kind const& kind>
http::Response CreateV2(RequestContext& context) {
  return PageV2(context, CreateInstance(context, kind, true));
}

template <Kind const& kind>
http::Response GetV1(RequestContext& context) {
  return PageV1(context, OpenInstance(context, kind));
}

template <Kind const& kind>
http::Response GetV2(RequestContext& context) {
  return PageV2(context, OpenInstance(context, kind));
}

http::Response ResortReport(RequestContext& context) {
  grid::PageOf(context);
  const service::Parsed<std::optional<service::instance::Sorting>> sorting =
      ReadResortRequest(OptionalBody(context));
  return PageV2(context, context.services().dataset_instances.Resort(
                             CallerOf(context), context.PathParam("reportId"),
                             context.PathParam("instanceId"), sorting));
}

template <Kind const& kind>
http::Response InstanceStatus(RequestContext& context) {
  service::instance::InstanceHandle handle = context.services().dataset_instances.Open(
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
  std::shared_ptr<service::instance::Instance> instance;
  context.services().dataset_instances.Check(CallerOf(context), context.PathParam("reportId"),
                                             context.PathParam("instanceId"), &instance);
  Json body = {{"pageBy", Json::array()},
               {"validPageByElements",
                {{"paging", {{"total", 0}, {"current", 0}, {"offset", 0}, {"limit", 0}}},
                 {"items", Json::array()}}}};
  return context.Reply(200, std::move(body));
}

http::Response ReportSqlView(RequestContext& context) {
  std::shared_ptr<service::instance::Instance> instance;
  service::Services& services = context.services();
  const service::instance::DatasetInstance& definition = services.dataset_instances.Check(
      CallerOf(context), context.PathParam("reportId"), context.PathParam("instanceId"), &instance);
  const std::string sql = services.definitions.SqlOf(definition.project_id(), definition.source());
  return context.Reply(200, {{"sqlStatement", sql}});
}

http::Response CubeSqlView(RequestContext& context) {
  service::Services& services = context.services();
  const std::string project_id = context.RequiredProjectId();
  service::instance::ResolvedDataset cube =
      services.definitions.Resolve(context.principal(), project_id, context.PathParam("cubeId"),
                                   service::instance::DatasetFilter::kCube);
  return context.Reply(200, {{"sqlStatement", services.definitions.SqlOf(project_id, cube)}});
}

// Tessera reports have no prompts.
http::Response ReportPrompts(RequestContext& context) {
  context.services().definitions.Get(context.principal(), context.RequiredProjectId(),
                                     context.PathParam("reportId"),
                                     service::instance::DatasetFilter::kReport);
  return context.Reply(200, Json::array());
}

http::Response InstancePrompts(RequestContext& context) {
  std::shared_ptr<service::instance::Instance> instance;
  context.services().dataset_instances.Check(CallerOf(context), context.PathParam("reportId"),
                                             context.PathParam("instanceId"), &instance);
  return context.Reply(200, Json::array());
}

http::Response AnswerPrompts(RequestContext& context) {
  std::shared_ptr<service::instance::Instance> instance;
  context.services().dataset_instances.Check(CallerOf(context), context.PathParam("reportId"),
                                             context.PathParam("instanceId"), &instance);
  return RequestContext::NoContent();
}

}  // namespace

void RegisterInstanceRoutes(Endpoints& endpoints) {
  const EndpointSpec exclusions{Access::kSession, FieldsDialect::kMetricValueExclusions};
  const EndpointSpec no_fields{Access::kSession, FieldsDialect::kNone};
  const char* report = "/api/reports/{reportId}/instances";
  const char* cube = "/api/cubes/{cubeId}/instances";
  const char* report_v2 = "/api/v2/reports/{reportId}/instances";
  const char* cube_v2 = "/api/v2/cubes/{cubeId}/instances";
  const std::string one = "/{instanceId}";

  // The v1 pages apply the general rule while they stream; the v2 pages take exclusions.
  endpoints.Add("POST", report, {}, CreateV1<kReport>);
  endpoints.Add("GET", report + one, {}, GetV1<kReport>);
  endpoints.Add("POST", cube, {}, CreateV1<kCube>);
  endpoints.Add("GET", cube + one, {}, GetV1<kCube>);
  endpoints.Add("POST", report_v2, exclusions, CreateV2<kReport>);
  endpoints.Add("GET", report_v2 + one, exclusions, GetV2<kReport>);
  endpoints.Add("PUT", report_v2 + one, exclusions, ResortReport);
  endpoints.Add("POST", cube_v2, exclusions, CreateV2<kCube>);
  endpoints.Add("GET", cube_v2 + one, exclusions, GetV2<kCube>);

  endpoints.Add("GET", report + one + "/status", {}, InstanceStatus<kReport>);
  endpoints.Add("GET", cube + one + "/status", {}, InstanceStatus<kCube>);
  endpoints.Add("GET", report_v2 + one + "/pageBy/elements", {}, PageByElements);
  endpoints.Add("GET", report_v2 + one + "/sqlView", {}, ReportSqlView);
  endpoints.Add("GET", "/api/v2/cubes/{cubeId}/sqlView", {}, CubeSqlView);
  endpoints.Add("GET", "/api/reports/{reportId}/prompts", {}, ReportPrompts);
  endpoints.Add("GET", report + one + "/prompts", {}, InstancePrompts);
  endpoints.Add("PUT", report + one + "/prompts/answers", no_fields, AnswerPrompts);
}

}  // namespace tessera::api::dataset
