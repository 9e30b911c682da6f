// Generic object endpoints: GET, PUT and DELETE /api/objects/{id}, PUT /api/objects/{id}/acl.
#include "api/object/object_json.h"
#include "api/routes.h"
#include "core/error.h"
#include "core/ids.h"
#include "core/strings.h"
#include "model/object_types.h"

namespace tessera::api::object {

namespace {

int RequiredType(RequestContext& context) {
  int64_t type = context.RequiredQueryInt("type");
  if (type < 0 || type > 1'000'000) {
    throw Error(ErrorCode::kInvalidInput,
                "type: " + std::to_string(type) + " is not an object type");
  }
  return static_cast<int>(type);
}

// Configuration-level types are looked up outside any project; a type that lives only in
// projects needs the project header; a folder is looked up in the project the header names, or
// among the configuration folders without one.
std::string ScopeFor(RequestContext& context, int type) {
  if (type == model::kTypeProject || type == model::kTypeUser || type == model::kTypeSecurityRole) {
    return "";
  }
  if (model::IsProjectOnlyType(type)) {
    return context.RequiredProjectId("objects of type " + std::to_string(type) +
                                     ", which live in a project");
  }
  return context.OptionalProjectId();
}

http::Response GetObject(RequestContext& context) {
  std::string id = context.PathObjectId("id", "Object");
  int type = RequiredType(context);
  auto view =
      context.services().objects.Get(context.principal(), ScopeFor(context, type), id, type);
  Json body = ObjectInfoJson(view);
  if (context.QueryBool("comments", false)) body["comments"] = Json::array();
  return context.Reply(200, std::move(body));
}

service::object::AclChange ParseAclChange(const Json& item, size_t index) {
  std::string path = "acl[" + std::to_string(index) + "]";
  if (!item.is_object()) throw Error(ErrorCode::kInvalidInput, path + ": expected an object");
  service::object::AclChange change;
  std::string op = ToUpper(OptionalString(item, "op", path).value_or("ADD"));
  if (op == "ADD")
    change.op = service::object::AclChange::Op::kAdd;
  else if (op == "REMOVE")
    change.op = service::object::AclChange::Op::kRemove;
  else if (op == "REPLACE")
    change.op = service::object::AclChange::Op::kReplace;
  else
    throw Error(ErrorCode::kInvalidInput, path + ".op: '" + op + "' is not ADD, REMOVE or REPLACE");
  change.entry.trustee_id =
      RequireObjectId(RequiredString(item, "trustee", path), path + ".trustee");
  auto rights = OptionalInt(item, "rights", path);
  if (!rights || *rights < 0 || *rights > 255) {
    throw Error(ErrorCode::kInvalidInput, path + ".rights: expected an integer from 0 to 255");
  }
  change.entry.rights = static_cast<int>(*rights);
  change.entry.denied = OptionalBool(item, "denied", path).value_or(false);
  change.entry.inheritable = OptionalBool(item, "inheritable", path).value_or(false);
  return change;
}

std::vector<service::object::AclChange> ParseAclChanges(const Json& acl) {
  if (!acl.is_array()) throw Error(ErrorCode::kInvalidInput, "acl: expected an array of changes");
  std::vector<service::object::AclChange> changes;
  for (size_t i = 0; i < acl.size(); ++i) changes.push_back(ParseAclChange(acl[i], i));
  return changes;
}

http::Response UpdateObject(RequestContext& context) {
  std::string id = context.PathObjectId("id", "Object");
  int type = RequiredType(context);
  Json body = context.BodyJson();
  service::object::ObjectPatch patch;
  patch.name = OptionalString(body, "name", "body");
  patch.description = OptionalString(body, "description", "body");
  patch.hidden = OptionalBool(body, "hidden", "body");
  if (auto acl = body.find("acl"); acl != body.end() && !acl->is_null()) {
    patch.acl_changes = ParseAclChanges(*acl);
  }
  auto view = context.services().objects.Update(context.principal(), ScopeFor(context, type), id,
                                                type, patch);
  return context.Reply(200, ObjectInfoJson(view));
}

http::Response DeleteObject(RequestContext& context) {
  std::string id = context.PathObjectId("id", "Object");
  int type = RequiredType(context);
  context.services().objects.Delete(context.principal(), ScopeFor(context, type), id, type);
  return RequestContext::NoContent();
}

http::Response UpdateAcl(RequestContext& context) {
  std::string id = context.PathObjectId("id", "Object");
  int type = RequiredType(context);
  Json body = context.BodyJson();
  auto acl = body.find("acl");
  if (acl == body.end() || acl->is_null()) {
    throw Error(ErrorCode::kMissingField, "acl: required array of changes is missing");
  }
  std::vector<service::object::AclChange> changes = ParseAclChanges(*acl);
  auto view = context.services().objects.UpdateAcl(context.principal(), ScopeFor(context, type), id,
                                                   type, changes);
  return context.Reply(200, ObjectInfoJson(view));
}

}  // namespace

void RegisterObjectRoutes(Endpoints& endpoints) {
  endpoints.Add("GET", "/api/objects/{id}", {}, GetObject);
  endpoints.Add("PUT", "/api/objects/{id}", {}, UpdateObject);
  endpoints.Add("DELETE", "/api/objects/{id}", {Access::kSession, FieldsDialect::kNone},
                DeleteObject);
  endpoints.Add("PUT", "/api/objects/{id}/acl", {}, UpdateAcl);
}

}  // namespace tessera::api::object
