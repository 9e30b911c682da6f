// Quick search (/api/searches) and metadata search (/api/metadataSearches).
#include <algorithm>
#include <functional>
#include <map>

#include "api/object/object_json.h"
#include "api/routes.h"
#include "core/error.h"
#include "core/ids.h"
#include "core/strings.h"
#include "model/object_types.h"

namespace tessera::api::object {

namespace {

service::object::NamePattern ParsePattern(RequestContext& context) {
  int64_t pattern = context.QueryInt("pattern").value_or(4);
  if (pattern < 0 || pattern > 5) {
    throw Error(ErrorCode::kInvalidInput, "pattern: " + std::to_string(pattern) +
                                              " is not a search pattern; expected 0 to 5");
  }
  return static_cast<service::object::NamePattern>(pattern);
}

service::object::CertifiedFilter ParseCertified(RequestContext& context) {
  std::string value = ToUpper(context.Query("certifiedStatus").value_or("ALL"));
  if (value == "ALL" || value == "OFF") return service::object::CertifiedFilter::kAll;
  if (value == "CERTIFIED_ONLY") return service::object::CertifiedFilter::kCertifiedOnly;
  if (value == "NOT_CERTIFIED_ONLY") return service::object::CertifiedFilter::kNotCertifiedOnly;
  throw Error(ErrorCode::kInvalidInput, "certifiedStatus: '" + value +
                                            "' is not one of ALL, CERTIFIED_ONLY, "
                                            "NOT_CERTIFIED_ONLY, OFF");
}

std::optional<std::string> OptionalFolderId(RequestContext& context, std::string_view name) {
  auto value = context.Query(name);
  if (!value || value->empty()) return std::nullopt;
  return RequireObjectId(*value, name);
}

std::optional<service::object::ObjectReference> ParseObjectReference(RequestContext& context,
                                                                     std::string_view name) {
  auto value = context.Query(name);
  if (!value || value->empty()) return std::nullopt;
  auto parts = Split(*value, ';');
  auto id = CanonicalObjectId(parts[0]);
  auto type = parts.size() == 2 ? ParseInt(parts[1]) : std::nullopt;
  if (!id || !type) {
    throw Error(ErrorCode::kInvalidInput,
                std::string(name) + ": '" + std::string(*value) + "' is not '<object id>;<type>'");
  }
  return service::object::ObjectReference{*id, static_cast<int>(*type)};
}

std::optional<Timestamp> QueryTime(RequestContext& context, std::string_view name) {
  auto value = context.Query(name);
  if (!value || value->empty()) return std::nullopt;
  auto at = ParseTimestamp(*value);
  if (!at) {
    throw Error(ErrorCode::kInvalidInput, std::string(name) + ": '" + std::string(*value) +
                                              "' is not a time like 2024-03-05T14:07:09Z");
  }
  return at;
}

service::object::SearchQuery ParseQueryParameters(RequestContext& context) {
  service::object::SearchQuery query;
  if (auto name = context.Query("name")) query.name = std::string(*name);
  query.pattern = ParsePattern(context);
  query.types = context.QueryIntList("type");
  query.root = OptionalFolderId(context, "root");
  query.get_ancestors = context.QueryBool("getAncestors", false);
  query.certified = ParseCertified(context);
  if (context.Query("result.hidden")) query.hidden = context.QueryBool("result.hidden", false);
  if (ToLower(context.Query("visibility").value_or("all")) == "visible") query.hidden = false;
  query.uses_object = ParseObjectReference(context, "usesObject");
  query.used_by_object = ParseObjectReference(context, "usedByObject");
  if (query.uses_object && query.used_by_object) {
    throw Error(ErrorCode::kInvalidInput,
                "usesObject and usedByObject cannot be combined in one search");
  }
  query.uses_recursive = context.QueryBool("usesRecursive", false);
  query.used_by_recursive = context.QueryBool("usedByRecursive", false);
  query.modified_after = QueryTime(context, "beginModificationTime");
  query.modified_before = QueryTime(context, "endModificationTime");
  return query;
}

Timestamp BodyTime(const Json& range, const char* key) {
  auto text = OptionalString(range, key, "body.timeRange");
  auto at = text ? ParseTimestamp(*text) : std::nullopt;
  if (!at)
    throw Error(ErrorCode::kInvalidInput,
                std::string("body.timeRange.") + key + ": not a timestamp");
  return *at;
}

void ApplyTimeRange(const Json& body, service::object::SearchQuery& query) {
  auto range = body.find("timeRange");
  if (range == body.end() || range->is_null()) return;
  if (!range->is_object())
    throw Error(ErrorCode::kInvalidInput, "body.timeRange: expected an object");
  std::string filter = ToUpper(OptionalString(body, "dateFilterType", "body").value_or("MODIFIED"));
  if (filter != "MODIFIED" && filter != "CREATED") {
    throw Error(ErrorCode::kInvalidInput, "body.dateFilterType: expected CREATED or MODIFIED");
  }
  std::optional<Timestamp> after, before;
  if (auto days = OptionalInt(*range, "sinceDays", "body.timeRange")) {
    after = Now() - std::chrono::hours(24 * *days);
  } else if (auto months = OptionalInt(*range, "sinceMonths", "body.timeRange")) {
    after = Now() - std::chrono::hours(24 * 30 * *months);
  } else {
    if (range->contains("beginTime")) after = BodyTime(*range, "beginTime");
    if (range->contains("endTime")) before = BodyTime(*range, "endTime");
  }
  auto& target_after = filter == "CREATED" ? query.created_after : query.modified_after;
  auto& target_before = filter == "CREATED" ? query.created_before : query.modified_before;
  target_after = after;
  target_before = before;
}

void ApplyV2Body(const Json& body, service::object::SearchQuery& query) {
  if (auto include = OptionalBool(body, "includeSubfolders", "body")) {
    query.include_subfolders = *include;
  }
  query.description_contains = OptionalString(body, "descriptionQuery", "body");
  if (auto owner = OptionalString(body, "ownerId", "body")) {
    query.owner_id = RequireObjectId(*owner, "body.ownerId");
  }
  if (auto excluded = body.find("excludedFolders");
      excluded != body.end() && !excluded->is_null()) {
    if (!excluded->is_array())
      throw Error(ErrorCode::kInvalidInput, "body.excludedFolders: expected an array");
    for (size_t i = 0; i < excluded->size(); ++i) {
      const Json& item = (*excluded)[i];
      const std::string where = ElementPath("body.excludedFolders", i);
      if (!item.is_string()) FailAt(where, "expected a folder id");
      query.excluded_folders.push_back(RequireObjectId(item.get_ref<const std::string&>(), where));
    }
  }
  ApplyTimeRange(body, query);
}

// Domain 4 (configuration) searches configuration-level objects; the others the project.
std::string SearchScope(RequestContext& context) {
  const int64_t domain = context.QueryInt("domain").value_or(2);
  if (domain == 4) return "";
  return context.RequiredProjectId("a search in domain " + std::to_string(domain) +
                                   " (domain=4 searches the configuration without it)");
}

// The first code of `codes` (types, or subtypes of them) naming objects that live only in
// projects.
std::optional<int> FirstProjectOnlyCode(const std::vector<int>& codes) {
  for (int code : codes) {
    const int type = model::IsSubtypeCode(code) ? model::SubtypeToType(code) : code;
    if (model::IsProjectOnlyType(type)) return code;
  }
  return std::nullopt;
}

// Without the project header a quick search looks among configuration-level objects (users,
// groups, security roles, projects and their folders); asking it for a type that lives only in
// projects needs the header.
std::string QuickSearchScope(RequestContext& context, const service::object::SearchQuery& query) {
  std::string project_id = context.OptionalProjectId();
  if (!project_id.empty()) return project_id;
  if (auto code = FirstProjectOnlyCode(query.types)) {
    return context.RequiredProjectId(
        "a search for objects of type " + std::to_string(*code) +
        " (without it a search finds configuration objects only: users, user groups, security "
        "roles, projects)");
  }
  return "";
}

http::Response QuickSearch(RequestContext& context) {
  service::object::SearchQuery query = ParseQueryParameters(context);
  service::object::Page page = context.PageParams();
  auto list = context.services().search.QuickSearch(context.principal(),
                                                    QuickSearchScope(context, query), query, page);
  Json results = Json::array();
  for (const auto& view : list.items) results.push_back(ObjectInfoJson(view));
  http::Response response =
      context.Reply(200, {{"totalItems", list.total}, {"result", std::move(results)}});
  SetTotalCount(response, list.total);
  return response;
}

http::Response StartSearch(RequestContext& context, bool is_v2) {
  service::object::SearchQuery query = ParseQueryParameters(context);
  if (is_v2) ApplyV2Body(context.BodyJson(), query);
  auto stored = context.services().search.Start(context.principal(), context.session().session_id,
                                                SearchScope(context), query);
  return context.Reply(200, {{"id", stored.id}, {"totalItems", stored.total}});
}

http::Response FetchSearch(RequestContext& context) {
  auto search_id = context.Query("searchId");
  if (!search_id || search_id->empty()) {
    throw Error(ErrorCode::kMissingParameter, "The query parameter 'searchId' is required");
  }
  service::object::Page page = context.PageParams();
  auto list = context.services().search.Fetch(context.principal(), context.session().session_id,
                                              std::string(*search_id), page, true);
  Json results = Json::array();
  for (const auto& view : list.items) results.push_back(ObjectInfoJson(view));
  http::Response response = context.Reply(200, std::move(results));
  SetTotalCount(response, list.total);
  return response;
}

// The hits nested in their folders: each folder is {"id", "name", "type", "subtype", "level",
// "children"}, from the project's root folder down; a hit is its object info.
Json SearchTree(const std::vector<service::object::ObjectView>& hits) {
  Json roots = Json::array();  // hits outside any folder
  struct Node {
    Json folder;
    std::vector<std::string> child_folders;
    Json hits = Json::array();
  };
  std::map<std::string, Node> nodes;
  std::vector<std::string> top;
  for (const auto& view : hits) {
    std::vector<service::object::Ancestor> chain = view.ancestors;
    std::sort(chain.begin(), chain.end(),
              [](const auto& a, const auto& b) { return a.level > b.level; });
    std::string parent;
    for (const auto& ancestor : chain) {
      auto [it, inserted] = nodes.try_emplace(ancestor.id);
      if (inserted) {
        it->second.folder = {{"id", ancestor.id},
                             {"name", ancestor.name},
                             {"type", model::kTypeFolder},
                             {"subtype", model::kSubtypeFolder}};
        if (parent.empty()) {
          top.push_back(ancestor.id);
        } else {
          nodes[parent].child_folders.push_back(ancestor.id);
        }
      }
      parent = ancestor.id;
    }
    if (parent.empty()) {
      roots.push_back(ObjectInfoJson(view));
    } else {
      nodes[parent].hits.push_back(ObjectInfoJson(view));
    }
  }
  std::function<Json(const std::string&)> assemble = [&](const std::string& id) {
    Node& node = nodes.at(id);
    Json out = std::move(node.folder);
    Json children = Json::array();
    for (const auto& child : node.child_folders) children.push_back(assemble(child));
    for (auto& hit : node.hits) children.push_back(std::move(hit));
    out["children"] = std::move(children);
    return out;
  };
  Json tree = Json::array();
  for (const auto& id : top) tree.push_back(assemble(id));
  for (auto& hit : roots) tree.push_back(std::move(hit));
  return tree;
}

http::Response FetchSearchTree(RequestContext& context) {
  auto search_id = context.Query("searchId");
  if (!search_id || search_id->empty()) {
    throw Error(ErrorCode::kMissingParameter, "The query parameter 'searchId' is required");
  }
  auto list = context.services().search.Fetch(context.principal(), context.session().session_id,
                                              std::string(*search_id), context.PageParams(), true);
  http::Response response = context.Reply(200, SearchTree(list.items));
  SetTotalCount(response, list.total);
  return response;
}

std::string RequiredId(const Json& item, std::string_view key, const std::string& path) {
  std::string text = RequiredString(item, key, path);
  return RequireObjectId(text, path + "." + std::string(key));
}

// Objects named by project and id: {"projectIdAndObjectIds": [{"projectId", "objectIds"}]}.
http::Response SearchObjectsById(RequestContext& context) {
  Json body = context.BodyJson();
  auto groups = body.find("projectIdAndObjectIds");
  if (groups == body.end() || !groups->is_array()) {
    throw Error(ErrorCode::kMissingField,
                "projectIdAndObjectIds: required array of {projectId, objectIds} is missing");
  }
  Json results = Json::array();
  for (size_t i = 0; i < groups->size(); ++i) {
    const Json& group = (*groups)[i];
    const std::string path = "projectIdAndObjectIds[" + std::to_string(i) + "]";
    if (!group.is_object()) throw Error(ErrorCode::kInvalidInput, path + ": expected an object");
    const std::string project_id = context.services().projects.ResolveHeader(
        context.principal(), RequiredId(group, "projectId", path));
    auto object_ids = group.find("objectIds");
    if (object_ids == group.end() || !object_ids->is_array()) {
      throw Error(ErrorCode::kMissingField, path + ".objectIds: required array of ids is missing");
    }
    std::vector<std::string> ids;
    for (size_t j = 0; j < object_ids->size(); ++j) {
      const Json& id = (*object_ids)[j];
      const std::string where = ElementPath(path + ".objectIds", j);
      if (!id.is_string()) FailAt(where, "expected an object id");
      ids.push_back(RequireObjectId(id.get_ref<const std::string&>(), where));
    }
    for (const auto& view :
         context.services().objects.FindVisible(context.principal(), project_id, ids)) {
      results.push_back(ObjectInfoJson(view));
    }
  }
  const int64_t total = static_cast<int64_t>(results.size());
  http::Response response =
      context.Reply(200, {{"totalItems", total}, {"result", std::move(results)}});
  SetTotalCount(response, total);
  return response;
}

}  // namespace

void RegisterSearchRoutes(Endpoints& endpoints) {
  endpoints.Add("GET", "/api/searches/results", {}, QuickSearch);
  endpoints.Add("POST", "/api/searches/objects", {}, SearchObjectsById);
  endpoints.Add("POST", "/api/metadataSearches/results", {},
                [](RequestContext& context) { return StartSearch(context, false); });
  endpoints.Add("POST", "/api/v2/metadataSearches/results", {},
                [](RequestContext& context) { return StartSearch(context, true); });
  endpoints.Add("GET", "/api/metadataSearches/results", {}, FetchSearch);
  endpoints.Add("GET", "/api/metadataSearches/results/tree", {}, FetchSearchTree);
}

}  // namespace tessera::api::object
