// Users and security roles: the minimum an administrator needs to give people access.
#include "api/object_json.h"
#include "api/routes.h"
#include "core/error.h"
#include "core/ids.h"
#include "model/directory.h"

namespace tessera::api {

namespace {

Json UserJson(const model::ObjectRecord& user) {
  auto definition = model::UserFromJson(user.definition);
  return {{"id", user.id},
          {"name", user.name},
          {"type", user.type},
          {"subtype", user.subtype},
          {"username", definition.username},
          {"fullName", definition.full_name},
          {"initials", definition.initials},
          {"enabled", definition.enabled},
          {"dateCreated", FormatTimestamp(user.created)},
          {"dateModified", FormatTimestamp(user.modified)},
          {"version", user.version}};
}

std::vector<std::string> IdList(const Json& body, const char* key) {
  std::vector<std::string> ids;
  auto it = body.find(key);
  if (it == body.end() || it->is_null()) return ids;
  if (!it->is_array())
    throw Error(ErrorCode::kInvalidInput,
                std::string("body.") + key + ": expected an array of ids");
  for (const auto& item : *it) {
    auto id = item.is_string() ? CanonicalObjectId(item.get<std::string>()) : std::nullopt;
    if (!id)
      throw Error(ErrorCode::kInvalidInput, std::string("body.") + key + ": expected object ids");
    ids.push_back(*id);
  }
  return ids;
}

std::vector<model::RoleGrant> RoleGrants(const Json& body) {
  std::vector<model::RoleGrant> grants;
  auto it = body.find("securityRoles");
  if (it == body.end() || it->is_null()) return grants;
  if (!it->is_array())
    throw Error(ErrorCode::kInvalidInput, "body.securityRoles: expected an array");
  for (const auto& item : *it) {
    auto id = CanonicalObjectId(RequiredString(item, "id", "body.securityRoles[]"));
    if (!id) throw Error(ErrorCode::kInvalidInput, "body.securityRoles[].id: not a role id");
    model::RoleGrant grant{*id, {}};
    auto projects = item.find("projects");
    if (projects == item.end() || projects->is_null()) {
      grant.project_ids = {"*"};
    } else {
      grant.project_ids = IdList(item, "projects");
    }
    grants.push_back(std::move(grant));
  }
  return grants;
}

http::Response CreateUser(RequestContext& context) {
  Json body = context.BodyJson();
  service::NewUser user;
  user.username = RequiredString(body, "username", "body");
  user.full_name = OptionalString(body, "fullName", "body").value_or("");
  user.password = OptionalString(body, "password", "body").value_or("");
  user.enabled = OptionalBool(body, "enabled", "body").value_or(true);
  user.group_ids = IdList(body, "memberships");
  user.roles = RoleGrants(body);
  auto created = context.services().directory.CreateUser(context.principal(), user);
  return context.Reply(201, UserJson(created));
}

http::Response GetUser(RequestContext& context) {
  std::string id = context.PathObjectId("id", "User");
  auto user = context.services().directory.FindUser(id);
  if (!user) throw Error(ErrorCode::kNotFound, "User '" + id + "' was not found");
  return context.Reply(200, UserJson(*user));
}

http::Response ListSecurityRoles(RequestContext& context) {
  Json out = Json::array();
  for (const auto& role : context.services().directory.ListSecurityRoles()) {
    out.push_back({{"id", role.id},
                   {"name", role.name},
                   {"privileges", model::SecurityRoleFromJson(role.definition).privileges}});
  }
  return context.Reply(200, std::move(out));
}

}  // namespace

void RegisterUserRoutes(Endpoints& endpoints) {
  endpoints.Add("POST", "/api/users", {}, CreateUser);
  endpoints.Add("GET", "/api/users/{id}", {}, GetUser);
  endpoints.Add("GET", "/api/securityRoles", {}, ListSecurityRoles);
}

}  // namespace tessera::api
