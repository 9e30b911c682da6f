// model/directory.h
//
// Typed views of the definitions of users, user groups and security roles (configuration-level
// objects of types 34 and 44). Role grants name a role and the projects it applies to ("*" =
// every project). Parsing is lenient about absent fields and strict about wrong types.
#pragma once

#include <string>
#include <vector>

#include "core/json.h"

namespace tessera::model {

struct RoleGrant {
  std::string role_id;
  std::vector<std::string> project_ids;  // "*" = every project
};

struct UserDefinition {
  std::string username;       // login name, unique case-insensitively
  std::string password_hash;  // "" = empty password
  bool enabled = true;
  std::string full_name;
  std::string initials;
  std::vector<std::string> member_of;  // group ids (Everyone is implicit)
  std::vector<RoleGrant> roles;
};

struct GroupDefinition {
  std::vector<std::string> member_of;
  std::vector<RoleGrant> roles;
};

struct SecurityRoleDefinition {
  std::vector<int> privileges;
};

Json ToJson(const UserDefinition& user);
UserDefinition UserFromJson(const Json& json);
Json ToJson(const GroupDefinition& group);
GroupDefinition GroupFromJson(const Json& json);
// Project links (what project_security packages carry): the security roles a user's or group's
// definition grants by naming `project_id` explicitly ("*" grants are environment-wide, not links
// of one project).
std::vector<std::string> ProjectRoleIds(const Json& definition, const std::string& project_id);
// `target` with its links to `target_project` replaced by the roles `source` links to
// `source_project`; every other grant of `target` and every other key is kept.
Json WithProjectRoles(const Json& target, const Json& source, const std::string& source_project,
                      const std::string& target_project);

Json ToJson(const SecurityRoleDefinition& role);
SecurityRoleDefinition SecurityRoleFromJson(const Json& json);

}  // namespace tessera::model
