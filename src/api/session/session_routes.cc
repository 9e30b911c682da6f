// Session endpoints: /api/sessions (read, renew), its userInfo and privileges.
#include "api/routes.h"
#include "core/error.h"
#include "core/strings.h"
#include "model/privileges.h"

namespace tessera::api::session {

namespace {

// Every session call is answered from the validated session and the project snapshot.
constexpr EndpointSpec kSession{.answers_from_memory = true};

http::Response GetSession(RequestContext& context) {
  const auto& session = context.session();
  const auto& options = context.services().sessions.options();
  return context.Reply(200, {{"timeout", session.idle_timeout_seconds},
                             {"workingSet", options.working_set},
                             {"maxSearch", options.max_search},
                             {"userId", session.principal.user_id},
                             {"applicationType", session.application_type},
                             {"metadataLocale", "en_us"},
                             {"displayLocale", "en_us"},
                             {"timeZone", "UTC"}});
}

http::Response RenewSession(RequestContext&) { return RequestContext::NoContent(); }

http::Response GetUserInfo(RequestContext& context) {
  const auto& principal = context.principal();
  return context.Reply(200, {{"id", principal.user_id},
                             {"fullName", principal.full_name},
                             {"initials", principal.initials},
                             {"username", principal.username},
                             {"metadataUser", true}});
}

// The projects a privilege holds on, as [{id, name}]; "*" expands to every project the user sees.
Json PrivilegeProjects(RequestContext& context, const std::set<std::string>& project_ids) {
  Json projects = Json::array();
  for (const auto& view : context.services().projects.List(context.principal(), true)) {
    const auto& project = view.project.object;
    if (project_ids.count(std::string(service::session::kAllProjects)) ||
        project_ids.count(project.id)) {
      projects.push_back({{"id", project.id}, {"name", project.name}});
    }
  }
  return projects;
}

Json PrivilegeJson(RequestContext& context, const model::PrivilegeInfo& info,
                   const std::set<std::string>& project_ids) {
  return {{"id", std::to_string(static_cast<int>(info.privilege))},
          {"name", info.name},
          {"description", info.description},
          {"isServerLevel", project_ids.count(std::string(service::session::kAllProjects)) > 0},
          {"projects", PrivilegeProjects(context, project_ids)}};
}

http::Response GetPrivileges(RequestContext& context) {
  Json out = Json::array();
  for (const auto& [id, projects] : context.principal().privilege_projects) {
    if (auto info = model::FindPrivilege(id))
      out.push_back(PrivilegeJson(context, *info, projects));
  }
  return context.Reply(200, std::move(out));
}

http::Response GetPrivilege(RequestContext& context) {
  const std::string& raw = context.PathParam("privilegeId");
  auto id = ParseInt(raw);
  auto info = id ? model::FindPrivilege(static_cast<int>(*id)) : std::nullopt;
  if (!info) throw Error(ErrorCode::kNotFound, "Privilege '" + raw + "' does not exist");
  const auto& held = context.principal().privilege_projects;
  auto it = held.find(static_cast<int>(*id));
  if (it == held.end() || it->second.empty()) {
    throw Error(ErrorCode::kInsufficientPrivileges,
                "You do not have " + std::string(info->name) + " privilege(s).");
  }
  return context.Reply(200, PrivilegeJson(context, *info, it->second));
}

}  // namespace

void RegisterSessionRoutes(Endpoints& endpoints) {
  endpoints.Add("GET", "/api/sessions", kSession, GetSession);
  endpoints.Add("PUT", "/api/sessions",
                {Access::kSession, FieldsDialect::kNone, BodySize::kSmall, true}, RenewSession);
  endpoints.Add("GET", "/api/sessions/userInfo", kSession, GetUserInfo);
  endpoints.Add("GET", "/api/sessions/privileges", kSession, GetPrivileges);
  endpoints.Add("GET", "/api/sessions/privileges/{privilegeId}", kSession, GetPrivilege);
}

}  // namespace tessera::api::session
