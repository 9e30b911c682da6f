// Projects (spec 01 §5, 06 §4).
#include "api/object_json.h"
#include "api/routes.h"

namespace tessera::api {

namespace {

http::Response ListProjects(RequestContext& context) {
  Json out = Json::array();
  for (const auto& view : context.services().projects.List(context.principal(), false)) {
    out.push_back(ProjectJson(view));
  }
  return context.Reply(200, std::move(out));
}

http::Response GetProject(RequestContext& context) {
  auto view =
      context.services().projects.Get(context.principal(), context.PathParam("projectIdOrName"));
  return context.Reply(200, ProjectJson(view));
}

http::Response MonitorProjects(RequestContext& context) {
  service::Page page = context.PageParams();
  auto views = context.services().projects.List(context.principal(), true);
  const int64_t total = static_cast<int64_t>(views.size());
  Json projects = Json::array();
  for (const auto& view : service::SlicePage(std::move(views), page)) {
    projects.push_back(MonitoredProjectJson(view));
  }
  http::Response response = context.Reply(200, {{"projects", std::move(projects)}});
  SetTotalCount(response, total);
  return response;
}

}  // namespace

void RegisterProjectRoutes(Endpoints& endpoints) {
  endpoints.Add("GET", "/api/projects", {}, ListProjects);
  endpoints.Add("GET", "/api/projects/{projectIdOrName}", {}, GetProject);
  endpoints.Add("GET", "/api/monitors/projects", {}, MonitorProjects);
}

}  // namespace tessera::api
