// Dashboards (dossiers) and their instances: definitions, instance creation and calls, filters,
// suggested elements, visualization results, and the library and document calls the Python
// client makes. Every instance path is served under /api/dossiers and /api/documents alike. The
// bodies are read by api/dashboard/dashboard_requests.h.
#include "api/dashboard/dashboard_json.h"
#include "api/dashboard/dashboard_requests.h"
#include "api/grid/grid_params.h"
#include "api/grid/grid_result.h"
#include "api/object/object_json.h"
#include "api/routes.h"
#include "core/error.h"
#include "core/ids.h"
#include "core/strings.h"
#include "model/object_types.h"

namespace tessera::api::dashboard {

namespace {

constexpr int kStatusReady = 1;

// Instance calls take the project from the instance; a project header, when sent, must match.
service::instance::InstanceCaller InstanceCallerOf(RequestContext& context) {
  return {context.principal(), context.session().session_id, context.OptionalProjectId()};
}

service::instance::InstanceCaller CreatorOf(RequestContext& context) {
  return {context.principal(), context.session().session_id, context.RequiredProjectId()};
}

const std::string& DashboardIdOf(const RequestContext& context) {
  return context.PathParam("dossierId");
}

const std::string& InstanceIdOf(const RequestContext& context) {
  return context.PathParam("instanceId");
}

ElementNamer NamerOf(RequestContext& context, const service::dashboard::DashboardView& view) {
  service::dashboard::DashboardService& dashboards = context.services().dashboards;
  return [&dashboards, &view](const std::string& element_id) {
    return dashboards.ElementName(*view.model, element_id);
  };
}

http::Response SavedDefinitionV2(RequestContext& context) {
  const service::dashboard::DashboardView view = context.services().dashboards.Definition(
      context.principal(), context.RequiredProjectId(), DashboardIdOf(context));
  return context.Reply(200, DashboardDefinition(view, NamerOf(context, view), ApiVersion::kV2));
}

http::Response SavedDefinitionV1(RequestContext& context) {
  const service::dashboard::DashboardView view = context.services().dashboards.Definition(
      context.principal(), context.RequiredProjectId(), DashboardIdOf(context));
  return context.Reply(200, DashboardDefinition(view, NamerOf(context, view), ApiVersion::kV1));
}

http::Response InstanceDefinitionV2(RequestContext& context) {
  const service::dashboard::DashboardView view = context.services().dashboards.InstanceDefinition(
      InstanceCallerOf(context), DashboardIdOf(context), InstanceIdOf(context));
  return context.Reply(200, DashboardDefinition(view, NamerOf(context, view), ApiVersion::kV2));
}

// An absent, empty or null body means the saved defaults.
Json OptionalObjectBody(const RequestContext& context) {
  const std::string_view text = Trim(context.request().body);
  if (text.empty()) return Json::object();
  Json body = ParseJson(text);
  if (body.is_null()) return Json::object();
  if (!body.is_object()) throw Error(ErrorCode::kInvalidInput, "The body must be a JSON object");
  return body;
}

http::Response CreatedResponse(RequestContext& context, const std::string& dashboard_id,
                               const std::string& instance_id) {
  http::Response response =
      context.Reply(201, {{"id", dashboard_id}, {"status", kStatusReady}, {"mid", instance_id}});
  response.headers.Set("Location", context.options().context_path + "/api/dossiers/" +
                                       dashboard_id + "/instances/" + instance_id);
  return response;
}

http::Response CreateInstance(RequestContext& context) {
  const service::instance::InstanceCaller caller = CreatorOf(context);
  const service::dashboard::DashboardCreateOptions options =
      ParseCreateOptions(OptionalObjectBody(context));
  const std::string id = context.PathObjectId("dossierId", "Dashboard");
  const std::string instance_id = context.services().dashboards.Create(caller, id, options);
  return CreatedResponse(context, id, instance_id);
}

// An in-memory dashboard over reports and cubes.
http::Response CreateInMemoryInstance(RequestContext& context) {
  const service::instance::InstanceCaller caller = CreatorOf(context);
  const InMemoryDashboardRequest request = ParseInMemoryRequest(OptionalObjectBody(context));
  const std::string instance_id =
      context.services().dashboards.CreateInMemory(caller, request.object_ids, request.options);
  return CreatedResponse(context, service::dashboard::kInMemoryDashboardId, instance_id);
}

bool QueryFlag(const RequestContext& context, const char* name) {
  return context.QueryBool(name, false);
}

http::Response PutFilters(RequestContext& context) {
  service::dashboard::DashboardFilterOptions options;
  options.ignore_missing_filter = QueryFlag(context, "ignoreMissingFilter");
  options.parallel_rendering_after_manipulation =
      QueryFlag(context, "parallelRenderingAfterManipulation");
  if (auto mode = context.Query("executionMode")) {
    if (*mode != "DATA") {
      throw Error(ErrorCode::kInvalidInput,
                  "executionMode: only DATA is supported, got '" + std::string(*mode) + "'");
    }
    options.execute = true;
  }
  const std::string_view text = Trim(context.request().body);
  if (text.empty())
    throw Error(ErrorCode::kInvalidInput, "The body must be a JSON array of filters");
  const Json body = ParseJson(text);
  // What is wrong with the entries is refused once the instance is found.
  const service::Parsed<std::vector<service::dashboard::FilterEntry>> entries =
      service::ParsedOf([&] { return ParseFilterEntries(body); });
  context.services().dashboards.SetFilters(InstanceCallerOf(context), DashboardIdOf(context),
                                           InstanceIdOf(context), entries, options);
  return RequestContext::NoContent();
}

service::dashboard::ElementsQuery ElementsQueryOf(const RequestContext& context) {
  service::dashboard::ElementsQuery query;
  query.filter_key = std::string(context.Query("filterKey").value_or(""));
  if (auto target = context.Query("targetObjectId")) {
    query.target_id = RequireObjectId(Trim(*target), "targetObjectId");
  }
  if (query.filter_key.empty() && query.target_id.empty()) {
    throw Error(ErrorCode::kInvalidInput, "filterKey or targetObjectId is required");
  }
  const std::string type = std::string(context.Query("targetObjectType").value_or("attribute"));
  if (type == "consolidation") {
    throw Error(ErrorCode::kInvalidInput, "targetObjectType: the project has no consolidations");
  }
  if (type != "attribute") {
    throw Error(ErrorCode::kInvalidInput,
                "targetObjectType: attribute or consolidation, got '" + type + "'");
  }
  query.pattern = std::string(context.Query("searchPattern").value_or(""));
  if (auto forms = context.Query("searchForms")) {
    for (const auto& form : Split(*forms, ',')) {
      if (Trim(form).empty()) continue;
      query.form_ids.push_back(RequireObjectId(Trim(form), "searchForms"));
    }
  }
  const std::string search_type = std::string(context.Query("searchType").value_or("contains"));
  if (search_type != "contains" && search_type != "begins_with") {
    throw Error(ErrorCode::kInvalidInput,
                "searchType: contains or begins_with, got '" + search_type + "'");
  }
  query.prefix = search_type == "begins_with";
  query.offset = context.QueryInt("offset").value_or(0);
  query.limit = context.QueryInt("limit").value_or(-1);
  if (query.offset < 0) throw Error(ErrorCode::kInvalidInput, "offset: must be 0 or more");
  if (query.limit < -1) throw Error(ErrorCode::kInvalidInput, "limit: must be -1 or more");
  return query;
}

http::Response Elements(RequestContext& context) {
  const service::dashboard::ElementsQuery query = ElementsQueryOf(context);
  const service::dashboard::ElementsAnswer answer = context.services().dashboards.Elements(
      InstanceCallerOf(context), DashboardIdOf(context), InstanceIdOf(context), query);
  Json list = Json::array();
  for (const auto& element : answer.elements) {
    list.push_back({{"id", element.id}, {"name", element.name}});
  }
  http::Response response = http::Response::Json(200, DumpJson(list));
  response.headers.Set("X-MSTR-Total-Count", std::to_string(answer.total));
  return response;
}

service::dashboard::VisualizationAnswer VisualizationOf(RequestContext& context) {
  grid::PageOf(context);  // a bad page is refused before anything runs
  return context.services().dashboards.Visualization(
      InstanceCallerOf(context), DashboardIdOf(context), InstanceIdOf(context),
      context.PathParam("chapterKey"), context.PathParam("visualizationKey"));
}

grid::GridHeader HeaderOf(const service::dashboard::VisualizationAnswer& answer) {
  grid::GridHeader header;
  header.visualization = grid::VisualizationHeader{answer.visualization->key,
                                                   answer.visualization->name,
                                                   answer.visualization->visualization_type,
                                                   answer.plan.view_filter_summary,
                                                   answer.plan.element_filter_summary,
                                                   answer.plan.metric_limit_summary};
  return header;
}

http::Response VisualizationV2(RequestContext& context) {
  const service::dashboard::VisualizationAnswer answer = VisualizationOf(context);
  grid::GridFormat format;
  format.parts = context.fields().metric_values;
  return http::Response::Json(200, grid::WriteGrid(HeaderOf(answer), answer.plan.grid,
                                                   *answer.result, grid::PageOf(context), format));
}

http::Response VisualizationV1(RequestContext& context) {
  const service::dashboard::VisualizationAnswer answer = VisualizationOf(context);
  grid::GridFormat format;  // v1 visualizations keep every key: they take no `fields`
  format.version = ApiVersion::kV1;
  return http::Response::Json(200, grid::WriteGrid(HeaderOf(answer), answer.plan.grid,
                                                   *answer.result, grid::PageOf(context), format));
}

http::Response Status(RequestContext& context) {
  const service::dashboard::DashboardInstanceStatus status = context.services().dashboards.Status(
      InstanceCallerOf(context), DashboardIdOf(context), InstanceIdOf(context));
  return context.Reply(200, {{"status", kStatusReady},
                             {"resolveOnly", status.resolve_only},
                             {"parallelRendering", status.parallel_rendering}});
}

http::Response Summary(RequestContext& context) {
  const service::dashboard::DashboardInstanceStatus status = context.services().dashboards.Status(
      InstanceCallerOf(context), DashboardIdOf(context), InstanceIdOf(context));
  return context.Reply(
      200, {{"id", status.dashboard_id}, {"mid", status.instance_id}, {"status", kStatusReady}});
}

http::Response DeleteInstance(RequestContext& context) {
  context.services().dashboards.Delete(InstanceCallerOf(context), DashboardIdOf(context),
                                       InstanceIdOf(context));
  return RequestContext::NoContent();
}

http::Response Refresh(RequestContext& context) {
  context.services().dashboards.Refresh(InstanceCallerOf(context), DashboardIdOf(context),
                                        InstanceIdOf(context));
  return RequestContext::NoContent();
}

// Tessera dashboards have no prompts.
http::Response DashboardPrompts(RequestContext& context) {
  context.services().dashboards.Definition(context.principal(), context.RequiredProjectId(),
                                           DashboardIdOf(context));
  return context.Reply(200, Json::array());
}

http::Response InstancePrompts(RequestContext& context) {
  context.services().dashboards.Status(InstanceCallerOf(context), DashboardIdOf(context),
                                       InstanceIdOf(context));
  return context.Reply(200, Json::array());
}

http::Response AnswerPrompts(RequestContext& context) {
  context.services().dashboards.AnswerPrompts(InstanceCallerOf(context), DashboardIdOf(context),
                                              InstanceIdOf(context));
  return RequestContext::NoContent();
}

// The cubes a dashboard reads (the Python client lists them).
http::Response ConnectedCubes(RequestContext& context) {
  const std::string project_id = context.RequiredProjectId();
  const service::dashboard::DashboardView view = context.services().dashboards.Definition(
      context.principal(), project_id, DashboardIdOf(context));
  Json cubes = Json::array();
  for (const auto& id : view.model->dashboard.dataset_ids) {
    const service::instance::ResolvedDataset& dataset = view.model->datasets.at(id);
    if (dataset.definition.kind != service::instance::DatasetKind::kCube) continue;
    cubes.push_back(object::ObjectInfoJson(context.services().objects.Get(
        context.principal(), project_id, id, model::kTypeReportDefinition)));
  }
  return context.Reply(200, cubes);
}

// What the Python client copies onto its Dashboard object.
http::Response LibraryEntry(RequestContext& context) {
  const service::dashboard::DashboardView view = context.services().dashboards.Definition(
      context.principal(), context.RequiredProjectId(), context.PathParam("id"));
  return context.Reply(200, {{"id", view.model->dashboard.id},
                             {"name", view.model->dashboard.name},
                             {"recipients", Json::array()}});
}

}  // namespace

void RegisterDashboardRoutes(Endpoints& endpoints) {
  const EndpointSpec general{Access::kSession, FieldsDialect::kRootFields};
  const EndpointSpec own{Access::kSession, FieldsDialect::kNone};
  const std::string instance = "/instances/{instanceId}";

  endpoints.Add("GET", "/api/v2/dossiers/{dossierId}/definition", general, SavedDefinitionV2);
  endpoints.Add("GET", "/api/v2/dossiers/{dossierId}" + instance + "/definition", general,
                InstanceDefinitionV2);
  endpoints.Add("GET", "/api/dossiers/{dossierId}/definition", general, SavedDefinitionV1);
  endpoints.Add("POST", "/api/dossiers/instances", general, CreateInMemoryInstance);
  const std::string v2 = "/api/v2/dossiers/{dossierId}" + instance;
  endpoints.Add("GET", v2 + "/chapters/{chapterKey}/visualizations/{visualizationKey}",
                {Access::kSession, FieldsDialect::kMetricValueExclusions}, VisualizationV2);
  for (const std::string base : {"/api/dossiers/{dossierId}", "/api/documents/{dossierId}"}) {
    endpoints.Add("POST", base + "/instances", general, CreateInstance);
    endpoints.Add("GET", base + instance, general, Summary);
    endpoints.Add("DELETE", base + instance, own, DeleteInstance);
    endpoints.Add("GET", base + instance + "/status", general, Status);
    endpoints.Add("PUT", base + instance + "/refresh", own, Refresh);
    endpoints.Add("PUT", base + instance + "/filters", own, PutFilters);
    endpoints.Add("GET", base + instance + "/elements", own, Elements);
    endpoints.Add("GET",
                  base + instance + "/chapters/{chapterKey}/visualizations/{visualizationKey}", own,
                  VisualizationV1);
    endpoints.Add("GET", base + "/prompts", own, DashboardPrompts);
    endpoints.Add("GET", base + instance + "/prompts", own, InstancePrompts);
    endpoints.Add("PUT", base + instance + "/prompts/answers", own, AnswerPrompts);
  }
  endpoints.Add("GET", "/api/documents/{dossierId}/cubes", own, ConnectedCubes);
  endpoints.Add("GET", "/api/library/{id}", general, LibraryEntry);
}

}  // namespace tessera::api::dashboard
