#include "model/directory.h"

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

Json ToJson(const SecurityRoleDefinition& role) { return {{"privileges", role.privileges}}; }

SecurityRoleDefinition SecurityRoleFromJson(const Json& json) {
  SecurityRoleDefinition role;
  role.privileges = json.value("privileges", std::vector<int>{});
  return role;
}

}  // namespace tessera::model
