// Folder browsing: /api/folders (top folders, a folder's contents, create, delete), the user's
// personal objects and the predefined folders.
#include "api/object/object_json.h"
#include "api/routes.h"
#include "core/error.h"
#include "core/ids.h"
#include "core/strings.h"
#include "model/object_types.h"
#include "model/well_known.h"

namespace tessera::api::object {

namespace {

http::Response ListReply(RequestContext& context, const service::object::ObjectList& list) {
  Json items = Json::array();
  for (const auto& view : list.items) items.push_back(ObjectInfoJson(view));
  http::Response response = context.Reply(200, std::move(items));
  SetTotalCount(response, list.total);
  return response;
}

int ParseFolderType(std::string_view text) {
  auto value = ParseInt(text);
  if (!value || *value < 0 || *value > INT32_MAX) {
    throw Error(ErrorCode::kInvalidInput,
                "folderType: '" + std::string(text) + "' is not a predefined folder type");
  }
  return static_cast<int>(*value);
}

// Without a project header, folders are the configuration-level ones (users, user groups,
// security roles).
http::Response ListFolder(RequestContext& context) {
  std::string folder_id = context.PathObjectId("id", "Folder");
  service::object::Page page = context.PageParams();
  auto list = context.services().objects.ListFolder(context.principal(),
                                                    context.OptionalProjectId(), folder_id, page);
  return ListReply(context, list);
}

http::Response ListTopFolders(RequestContext& context) {
  service::object::Page page = context.PageParams();
  std::string project_id = context.OptionalProjectId();
  const std::string root =
      project_id.empty() ? model::ConfigurationRootFolderId() : std::string(model::kRootFolderId);
  return ListReply(
      context, context.services().objects.ListFolder(context.principal(), project_id, root, page));
}

http::Response ListPredefinedFolder(RequestContext& context) {
  int folder_type = ParseFolderType(context.PathParam("folderType"));
  service::object::Page page = context.PageParams();
  std::string project_id = context.RequiredProjectId();
  auto& objects = context.services().objects;
  std::string folder_id = objects.PredefinedFolderId(context.principal(), project_id, folder_type);
  return ListReply(context, objects.ListFolder(context.principal(), project_id, folder_id, page));
}

// The caller's own "My Personal Objects" folder (predefined type 19).
http::Response ListMyPersonalObjects(RequestContext& context) {
  service::object::Page page = context.PageParams();
  std::string project_id = context.RequiredProjectId();
  auto& objects = context.services().objects;
  std::string folder_id = objects.PredefinedFolderId(context.principal(), project_id,
                                                     model::kFolderTypeMyPersonalObjects);
  return ListReply(context, objects.ListFolder(context.principal(), project_id, folder_id, page));
}

http::Response PredefinedFolderIdOnly(RequestContext& context) {
  int folder_type = ParseFolderType(context.PathParam("folderType"));
  std::string project_id = context.OptionalProjectId();
  if (project_id.empty() && folder_type == model::kFolderTypeRoot) {
    return context.Reply(200, {{"id", model::ConfigurationRootFolderId()}});
  }
  if (project_id.empty()) project_id = context.RequiredProjectId();
  std::string id =
      context.services().objects.PredefinedFolderId(context.principal(), project_id, folder_type);
  return context.Reply(200, {{"id", id}});
}

http::Response ListPredefinedFolders(RequestContext& context) {
  std::string project_id = context.RequiredProjectId();
  std::vector<int> types = context.QueryIntList("folderType");
  if (types.empty()) {
    throw Error(ErrorCode::kMissingParameter, "The query parameter 'folderType' is required");
  }
  auto& objects = context.services().objects;
  Json folders = Json::array();
  for (int folder_type : types) {
    std::string id = objects.PredefinedFolderId(context.principal(), project_id, folder_type);
    Json entry =
        ObjectInfoJson(objects.Get(context.principal(), project_id, id, model::kTypeFolder));
    entry["folderType"] = folder_type;
    folders.push_back(std::move(entry));
  }
  return context.Reply(200, {{"preDefined", std::move(folders)}});
}

http::Response CreateFolder(RequestContext& context) {
  std::string project_id = context.RequiredProjectId();
  Json body = context.BodyJson();
  std::string name = RequiredString(body, "name", "body");
  const std::string parent = RequireObjectId(RequiredString(body, "parent", "body"), "body.parent");
  std::string description = OptionalString(body, "description", "body").value_or("");
  auto view = context.services().objects.CreateFolder(context.principal(), project_id, parent, name,
                                                      description);
  return context.Reply(201, ObjectInfoJson(view));
}

http::Response DeleteFolder(RequestContext& context) {
  std::string folder_id = context.PathObjectId("id", "Folder");
  context.services().objects.Delete(context.principal(), context.RequiredProjectId(), folder_id,
                                    model::kTypeFolder);
  return RequestContext::NoContent();
}

}  // namespace

void RegisterFolderRoutes(Endpoints& endpoints) {
  endpoints.Add("GET", "/api/folders", {}, ListTopFolders);
  endpoints.Add("POST", "/api/folders", {}, CreateFolder);
  endpoints.Add("GET", "/api/folders/{id}", {}, ListFolder);
  endpoints.Add("GET", "/api/folders/myPersonalObjects", {}, ListMyPersonalObjects);
  endpoints.Add("DELETE", "/api/folders/{id}", {Access::kSession, FieldsDialect::kNone},
                DeleteFolder);
  endpoints.Add("GET", "/api/folders/preDefined", {}, ListPredefinedFolders);
  endpoints.Add("GET", "/api/folders/preDefined/{folderType}", {}, ListPredefinedFolder);
  endpoints.Add("GET", "/api/folders/preDefined/{folderType}/id", {}, PredefinedFolderIdOnly);
}

}  // namespace tessera::api::object
