// Projects: /api/projects and /api/projects/{projectIdOrName}, and the cluster monitors of projects
// and nodes (/api/monitors/...).
#include "api/object/object_json.h"
#include "api/routes.h"
#include "core/strings.h"

namespace tessera::api::project {

namespace {

http::Response ListProjects(RequestContext& context) {
  Json out = Json::array();
  for (const auto& view : context.services().projects.List(context.principal(), false)) {
    out.push_back(object::ProjectJson(view));
  }
  return context.Reply(200, std::move(out));
}

http::Response GetProject(RequestContext& context) {
  auto view =
      context.services().projects.Get(context.principal(), context.PathParam("projectIdOrName"));
  return context.Reply(200, object::ProjectJson(view));
}

// A project as loaded on a node of the cluster monitors.
Json NodeProjectJson(const service::project::ProjectView& view) {
  return {{"id", view.project.object.id},
          {"name", view.project.object.name},
          {"alias", view.project.alias},
          {"description", view.project.object.description},
          {"acg", view.acg},
          {"status", "loaded"}};
}

// This node. Every node serves every project of the storage service, so each is loaded here.
Json NodeJson(const RequestContext& context, Json projects) {
  return {{"name", context.options().node_name},
          {"address", context.options().node_name},
          {"status", "running"},
          {"load", 0},
          {"projects", std::move(projects)}};
}

http::Response MonitorProjects(RequestContext& context) {
  service::object::Page page = context.PageParams();
  auto views = context.services().projects.List(context.principal(), true);
  const int64_t total = static_cast<int64_t>(views.size());
  Json projects = Json::array();
  for (const auto& view : service::object::SlicePage(std::move(views), page)) {
    Json project = object::MonitoredProjectJson(view);
    project["nodes"] = Json::array({NodeJson(context, Json::array({NodeProjectJson(view)}))});
    projects.push_back(std::move(project));
  }
  http::Response response = context.Reply(200, {{"projects", std::move(projects)}});
  SetTotalCount(response, total);
  return response;
}

// The nodes of the cluster with their projects, optionally narrowed to one project
// (`projects.id`) and one node (`name`).
http::Response MonitorNodes(RequestContext& context) {
  const std::string project_id(context.Query("projects.id").value_or(""));
  const std::string node_name(context.Query("name").value_or(""));
  Json projects = Json::array();
  for (const auto& view : context.services().projects.List(context.principal(), true)) {
    if (project_id.empty() || EqualsIgnoreCase(project_id, view.project.object.id)) {
      projects.push_back(NodeProjectJson(view));
    }
  }
  Json nodes = Json::array();
  if (node_name.empty() || node_name == context.options().node_name) {
    nodes.push_back(NodeJson(context, std::move(projects)));
  }
  return context.Reply(200, {{"nodes", std::move(nodes)}});
}

}  // namespace

void RegisterProjectRoutes(Endpoints& endpoints) {
  constexpr EndpointSpec kFromSnapshot{.answers_from_memory = true};
  endpoints.Add("GET", "/api/projects", kFromSnapshot, ListProjects);
  endpoints.Add("GET", "/api/projects/{projectIdOrName}", kFromSnapshot, GetProject);
  endpoints.Add("GET", "/api/monitors/projects", {}, MonitorProjects);
  endpoints.Add("GET", "/api/monitors/iServer/nodes", {}, MonitorNodes);
}

}  // namespace tessera::api::project
