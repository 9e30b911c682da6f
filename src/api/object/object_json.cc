#include "api/object/object_json.h"

#include "model/object_types.h"

namespace tessera::api::object {

namespace {

Json AncestorsJson(const std::vector<service::object::Ancestor>& ancestors) {
  Json out = Json::array();
  for (const auto& ancestor : ancestors) {
    out.push_back({{"name", ancestor.name}, {"id", ancestor.id}, {"level", ancestor.level}});
  }
  return out;
}

long long ViewMedia(const model::ObjectRecord& record) {
  if (record.definition.contains("viewMedia") &&
      record.definition["viewMedia"].is_number_integer()) {
    return record.definition["viewMedia"].get<long long>();
  }
  bool is_dashboard = record.definition.value("isDashboard", false);
  return is_dashboard ? model::kViewMediaDashboard : model::kViewMediaDocument;
}

// Every key of an access control entry the reference server sends: the client builds its ACE
// objects from all of them.
Json AclJson(const service::object::ObjectView& view) {
  Json out = Json::array();
  const auto& acl = view.record.acl;
  const service::object::TrusteeInfo unknown;
  for (size_t i = 0; i < acl.size(); ++i) {
    const service::object::TrusteeInfo& trustee =
        i < view.acl_trustees.size() ? view.acl_trustees[i] : unknown;
    out.push_back({{"deny", acl[i].denied},
                   {"type", 1},
                   {"rights", acl[i].rights},
                   {"trusteeId", acl[i].trustee_id},
                   {"trusteeName", trustee.name},
                   {"trusteeType", model::kTypeUser},
                   {"trusteeSubtype", trustee.subtype},
                   {"inheritable", acl[i].inheritable}});
  }
  return out;
}

}  // namespace

Json OwnerJson(const std::string& id, const std::string& name) {
  return {{"name", name}, {"id", id}};
}

Json ObjectInfoJson(const service::object::ObjectView& view) {
  const model::ObjectRecord& record = view.record;
  Json out = {{"name", record.name},
              {"id", record.id},
              {"type", record.type},
              {"subtype", record.subtype},
              {"extType", record.ext_type}};
  if (!record.description.empty()) out["description"] = record.description;
  if (!record.abbreviation.empty()) out["abbreviation"] = record.abbreviation;
  out["dateCreated"] = FormatTimestamp(record.created);
  out["dateModified"] = FormatTimestamp(record.modified);
  out["version"] = record.version;
  out["acg"] = view.acg;
  out["owner"] = OwnerJson(record.owner_id, view.owner_name);
  if (record.type == model::kTypeReportDefinition ||
      record.type == model::kTypeDocumentDefinition) {
    out["viewMedia"] = ViewMedia(record);
  }
  if (!view.ancestors.empty()) out["ancestors"] = AncestorsJson(view.ancestors);
  out["certifiedInfo"] = {{"certified", record.certified}};
  out["hidden"] = record.hidden;
  if (!record.project_id.empty()) out["projectId"] = record.project_id;
  out["acl"] = AclJson(view);
  return out;
}

Json ProjectJson(const service::project::ProjectView& view) {
  const model::ObjectRecord& object = view.project.object;
  return {{"acg", view.acg},
          {"id", object.id},
          {"name", object.name},
          {"status", view.project.status},
          {"alias", view.project.alias},
          {"description", object.description},
          {"dateCreated", FormatTimestamp(object.created)},
          {"dateModified", FormatTimestamp(object.modified)},
          {"owner", OwnerJson(object.owner_id, view.owner_name)}};
}

Json MonitoredProjectJson(const service::project::ProjectView& view) {
  Json out = ProjectJson(view);
  out["type"] = model::kTypeProject;
  out["subtype"] = model::kSubtypeProject;
  out["extType"] = 0;
  return out;
}

}  // namespace tessera::api::object
