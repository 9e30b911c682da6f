#include "model/directory.h"

#include <algorithm>

namespace tessera::model {

namespace {

Json GrantsToJson(const std::vector<RoleGrant>& grants) {
  Json out = Json::array();
  for (const auto& grant : grants) {
    out.push_back({{"roleId", grant.role_id}, {"projects", grant.project_ids}});
  }
  return out;
}

std::vector<RoleGrant> GrantsFromJson(const Json& json) {
  std::vector<RoleGrant> grants;
  if (!json.is_array()) return grants;
  for (const auto& item : json) {
    RoleGrant grant;
    grant.role_id = item.value("roleId", "");
    grant.project_ids = item.value("projects", std::vector<std::string>{});
    grants.push_back(std::move(grant));
  }
  return grants;
}

}  // namespace

Json ToJson(const UserDefinition& user) {
  return {{"username", user.username},
          {"passwordHash", user.password_hash},
          {"enabled", user.enabled},
          {"fullName", user.full_name},
          {"initials", user.initials},
          {"memberOf", user.member_of},
          {"securityRoles", GrantsToJson(user.roles)}};
}

UserDefinition UserFromJson(const Json& json) {
  UserDefinition user;
  user.username = json.value("username", "");
  user.password_hash = json.value("passwordHash", "");
  user.enabled = json.value("enabled", true);
  user.full_name = json.value("fullName", "");
  user.initials = json.value("initials", "");
  user.member_of = json.value("memberOf", std::vector<std::string>{});
  user.roles = GrantsFromJson(json.value("securityRoles", Json::array()));
  return user;
}

Json ToJson(const GroupDefinition& group) {
  return {{"memberOf", group.member_of}, {"securityRoles", GrantsToJson(group.roles)}};
}

GroupDefinition GroupFromJson(const Json& json) {
  GroupDefinition group;
  group.member_of = json.value("memberOf", std::vector<std::string>{});
  group.roles = GrantsFromJson(json.value("securityRoles", Json::array()));
  return group;
}

std::vector<std::string> ProjectRoleIds(const Json& definition, const std::string& project_id) {
  std::vector<std::string> roles;
  for (const auto& grant : GrantsFromJson(definition.value("securityRoles", Json::array()))) {
    const auto& projects = grant.project_ids;
    bool links = std::find(projects.begin(), projects.end(), project_id) != projects.end();
    if (links && std::find(roles.begin(), roles.end(), grant.role_id) == roles.end()) {
      roles.push_back(grant.role_id);
    }
  }
  return roles;
}

Json WithProjectRoles(const Json& target, const Json& source, const std::string& source_project,
                      const std::string& target_project) {
  std::vector<RoleGrant> grants = GrantsFromJson(target.value("securityRoles", Json::array()));
  for (auto& grant : grants) std::erase(grant.project_ids, target_project);
  std::erase_if(grants, [](const RoleGrant& grant) { return grant.project_ids.empty(); });
  for (const std::string& role : ProjectRoleIds(source, source_project)) {
    auto explicit_grant = std::find_if(grants.begin(), grants.end(), [&](const RoleGrant& grant) {
      const auto& projects = grant.project_ids;
      return grant.role_id == role &&
             std::find(projects.begin(), projects.end(), "*") == projects.end();
    });
    if (explicit_grant != grants.end()) {
      explicit_grant->project_ids.push_back(target_project);
    } else {
      grants.push_back({role, {target_project}});
    }
  }
  Json result = target.is_object() ? target : Json::object();
  result["securityRoles"] = GrantsToJson(grants);
  return result;
}

Json ToJson(const SecurityRoleDefinition& role) { return {{"privileges", role.privileges}}; }

SecurityRoleDefinition SecurityRoleFromJson(const Json& json) {
  SecurityRoleDefinition role;
  role.privileges = json.value("privileges", std::vector<int>{});
  return role;
}

}  // namespace tessera::model
