// Users and security roles: the minimum an administrator needs to give people access.
#include "api/object/object_json.h"
#include "api/routes.h"
#include "core/error.h"
#include "core/ids.h"
#include "model/directory.h"
#include "model/privileges.h"

namespace tessera::api::security {

namespace {

// A member or membership: enough to name and type it.
Json TrusteeJson(const service::object::ObjectView& view) {
  return {{"id", view.record.id},
          {"name", view.record.name},
          {"type", view.record.type},
          {"subtype", view.record.subtype}};
}

Json TrusteeListJson(const std::vector<service::object::ObjectView>& views) {
  Json out = Json::array();
  for (const auto& view : views) out.push_back(TrusteeJson(view));
  return out;
}

// A user as the reference server describes one: its object info, its login as `abbreviation`
// (the client finds users by login through it), its standard-authentication settings and its
// direct memberships.
Json UserJson(const service::UserView& user) {
  Json out = object::ObjectInfoJson(user.object);
  const model::UserDefinition& definition = user.definition;
  out["abbreviation"] = definition.username;
  out["description"] = user.object.record.description;
  out["username"] = definition.username;
  out["fullName"] = definition.full_name;
  out["initials"] = definition.initials;
  out["enabled"] = definition.enabled;
  out["standardAuth"] = true;
  out["passwordModifiable"] = true;
  out["passwordAutoExpire"] = false;
  out["requireNewPassword"] = false;
  out["ldapdn"] = "";
  out["trustId"] = "";
  out["memberships"] = TrusteeListJson(user.memberships);
  return out;
}

Json GroupJson(const service::object::ObjectView& group) {
  Json out = object::ObjectInfoJson(group);
  out["description"] = group.record.description;
  out["ldapdn"] = "";
  return out;
}

Json PrivilegeJson(int id) {
  Json out = {{"id", id}, {"isProjectLevelPrivilege", true}};
  if (auto info = model::FindPrivilege(id)) {
    out["name"] = info->name;
    out["description"] = info->description;
  }
  return out;
}

Json SecurityRoleJson(const service::SecurityRoleView& role) {
  Json out = object::ObjectInfoJson(role.object);
  out["description"] = role.object.record.description;
  Json privileges = Json::array();
  for (int id : role.privileges) privileges.push_back(PrivilegeJson(id));
  out["privileges"] = std::move(privileges);
  return out;
}

// The role's projects and, on each, whom it is granted to (members carry `subType`, as the
// reference server spells it there).
Json RoleProjectsJson(const std::vector<service::RoleProject>& projects) {
  Json out = Json::array();
  for (const auto& project : projects) {
    Json members = Json::array();
    for (const auto& member : project.members) {
      Json entry = TrusteeJson(member);
      entry["subType"] = member.record.subtype;
      members.push_back(std::move(entry));
    }
    out.push_back({{"id", project.id}, {"name", project.name}, {"members", std::move(members)}});
  }
  return out;
}

template <typename T, typename ToJson>
http::Response PagedReply(RequestContext& context, std::vector<T> items, ToJson to_json) {
  const int64_t total = static_cast<int64_t>(items.size());
  Json out = Json::array();
  for (const auto& item : service::object::SlicePage(std::move(items), context.PageParams())) {
    out.push_back(to_json(item));
  }
  http::Response response = context.Reply(200, std::move(out));
  SetTotalCount(response, total);
  return response;
}

service::DirectoryFilter FilterFromQuery(RequestContext& context) {
  service::DirectoryFilter filter;
  filter.name_begins = std::string(context.Query("nameBegins").value_or(""));
  filter.abbreviation_begins = std::string(context.Query("abbreviationBegins").value_or(""));
  for (const auto& id : context.request().query.GetList("id")) {
    filter.ids.push_back(RequireObjectId(id, "id"));
  }
  return filter;
}

std::vector<std::string> IdList(const Json& body, const char* key) {
  std::vector<std::string> ids;
  auto it = body.find(key);
  if (it == body.end() || it->is_null()) return ids;
  if (!it->is_array())
    throw Error(ErrorCode::kInvalidInput,
                std::string("body.") + key + ": expected an array of ids");
  for (size_t i = 0; i < it->size(); ++i) {
    const Json& item = (*it)[i];
    const std::string where = ElementPath(std::string("body.") + key, i);
    if (!item.is_string()) FailAt(where, "expected an object id");
    ids.push_back(RequireObjectId(item.get_ref<const std::string&>(), where));
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
    model::RoleGrant grant{RequireObjectId(RequiredString(item, "id", "body.securityRoles[]"),
                                           "body.securityRoles[].id"),
                           {}};
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
  auto& directory = context.services().directory;
  auto created = directory.CreateUser(context.principal(), user);
  return context.Reply(201, UserJson(directory.GetUser(context.principal(), created.id)));
}

http::Response ListUsers(RequestContext& context) {
  auto users =
      context.services().directory.ListUsers(context.principal(), FilterFromQuery(context));
  return PagedReply(context, std::move(users), UserJson);
}

http::Response GetUser(RequestContext& context) {
  std::string id = context.PathObjectId("id", "User");
  return context.Reply(200,
                       UserJson(context.services().directory.GetUser(context.principal(), id)));
}

// {"operationList": [{"op": "replace", "path": "/enabled", "value": true}, ...]}, as the client
// sends it; also the plain form {"enabled": true, ...}.
service::UserPatch ParseUserPatch(const Json& body) {
  Json fields = Json::object();
  if (auto operations = body.find("operationList"); operations != body.end()) {
    if (!operations->is_array()) {
      throw Error(ErrorCode::kInvalidInput, "operationList: expected an array of operations");
    }
    for (size_t i = 0; i < operations->size(); ++i) {
      const Json& operation = (*operations)[i];
      const std::string path = "operationList[" + std::to_string(i) + "]";
      if (!operation.is_object())
        throw Error(ErrorCode::kInvalidInput, path + ": expected an object");
      const std::string op = RequiredString(operation, "op", path);
      const std::string target = RequiredString(operation, "path", path);
      if (op != "replace" || target.size() < 2 || target.front() != '/') {
        throw Error(ErrorCode::kInvalidInput,
                    path + ": only {\"op\": \"replace\", \"path\": \"/<field>\"} is accepted");
      }
      fields[target.substr(1)] = operation.contains("value") ? operation["value"] : Json();
    }
  } else {
    fields = body;
  }
  service::UserPatch patch;
  for (const auto& [key, value] : fields.items()) {
    if (key == "fullName") {
      patch.full_name = RequiredString(fields, key, "body");
    } else if (key == "description") {
      patch.description = OptionalString(fields, key, "body").value_or("");
    } else if (key == "password") {
      patch.password = RequiredString(fields, key, "body");
    } else if (key == "enabled") {
      patch.enabled = OptionalBool(fields, key, "body");
    } else {
      throw Error(ErrorCode::kInvalidInput,
                  "'" + key +
                      "' cannot be changed here; the changeable fields are fullName, description, "
                      "password and enabled");
    }
  }
  return patch;
}

// An administrator's change to a user also lifts its lockout after failed logins; a new
// password or a disabled user ends the user's sessions on every node.
http::Response UpdateUser(RequestContext& context) {
  std::string id = context.PathObjectId("id", "User");
  service::UserPatch patch = ParseUserPatch(context.BodyJson());
  auto& services = context.services();
  service::UserView user = services.directory.UpdateUser(context.principal(), id, patch);
  services.sessions.UnlockLogins(user.definition.username);
  if (patch.password || patch.enabled == false) services.sessions.EndSessionsOf(id);
  return context.Reply(200, UserJson(user));
}

http::Response DeleteUser(RequestContext& context) {
  std::string id = context.PathObjectId("id", "User");
  context.services().directory.DeleteUser(context.principal(), id);
  context.services().sessions.EndSessionsOf(id);
  return RequestContext::NoContent();
}

http::Response ListMemberships(RequestContext& context) {
  std::string id = context.PathObjectId("id", "User or user group");
  return context.Reply(
      200, TrusteeListJson(context.services().directory.Memberships(context.principal(), id)));
}

http::Response ListGroups(RequestContext& context) {
  auto groups =
      context.services().directory.ListGroups(context.principal(), FilterFromQuery(context));
  return PagedReply(context, std::move(groups), GroupJson);
}

http::Response GetGroup(RequestContext& context) {
  std::string id = context.PathObjectId("id", "User group");
  return context.Reply(200,
                       GroupJson(context.services().directory.GetGroup(context.principal(), id)));
}

// Users first, then groups: the Everyone group holds every user.
http::Response ListGroupMembers(RequestContext& context) {
  std::string id = context.PathObjectId("id", "User group");
  auto& directory = context.services().directory;
  std::vector<Json> members;
  for (const auto& user : directory.GroupMemberUsers(context.principal(), id)) {
    members.push_back(UserJson(user));
  }
  for (const auto& group : directory.GroupMemberGroups(context.principal(), id)) {
    members.push_back(GroupJson(group));
  }
  return PagedReply(context, std::move(members), [](const Json& member) { return member; });
}

http::Response ListSecurityRoles(RequestContext& context) {
  auto roles = context.services().directory.ListSecurityRoles(context.principal());
  return PagedReply(context, std::move(roles), SecurityRoleJson);
}

http::Response GetSecurityRole(RequestContext& context) {
  std::string id = context.PathObjectId("id", "Security role");
  auto role = context.services().directory.GetSecurityRole(context.principal(), id);
  Json out = SecurityRoleJson(role);
  out["projects"] = RoleProjectsJson(role.projects);
  return context.Reply(200, std::move(out));
}

}  // namespace

void RegisterUserRoutes(Endpoints& endpoints) {
  endpoints.Add("POST", "/api/users", {}, CreateUser);
  endpoints.Add("GET", "/api/users", {}, ListUsers);
  endpoints.Add("GET", "/api/users/{id}", {}, GetUser);
  endpoints.Add("PATCH", "/api/users/{id}", {}, UpdateUser);
  endpoints.Add("DELETE", "/api/users/{id}", {Access::kSession, FieldsDialect::kNone}, DeleteUser);
  endpoints.Add("GET", "/api/users/{id}/memberships", {}, ListMemberships);
  endpoints.Add("GET", "/api/usergroups", {}, ListGroups);
  endpoints.Add("GET", "/api/usergroups/{id}", {}, GetGroup);
  endpoints.Add("GET", "/api/usergroups/{id}/members", {}, ListGroupMembers);
  endpoints.Add("GET", "/api/usergroups/{id}/memberships", {}, ListMemberships);
  endpoints.Add("GET", "/api/securityRoles", {}, ListSecurityRoles);
  endpoints.Add("GET", "/api/securityRoles/{id}", {}, GetSecurityRole);
}

}  // namespace tessera::api::security
