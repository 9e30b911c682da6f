// service/session/principal.h
//
// Who is asking: a user with its groups (Everyone included) and the privileges its security
// roles grant, per project ("*" = every project). Built by DirectoryService; read by every
// service that checks a privilege or an ACL.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "model/object.h"
#include "model/privileges.h"
#include "model/rights.h"

namespace tessera::service::session {

inline constexpr std::string_view kAllProjects = "*";

struct Principal {
  std::string user_id;
  std::string username;
  std::string full_name;
  std::string initials;
  std::vector<std::string> group_ids;
  std::map<int, std::set<std::string>> privilege_projects;  // privilege id -> project ids or "*"

  bool HasPrivilege(model::Privilege privilege, std::string_view project_id) const;
  bool HasPrivilegeAnywhere(model::Privilege privilege) const;
  model::Trustee trustee() const { return {user_id, group_ids}; }

  // Rights on `object`, full control when the principal may bypass object security there.
  int RightsOn(const model::ObjectRecord& object) const;
};

// Throws Error(kInsufficientPrivileges) naming the privilege: "You do not have <privilege>
// privilege(s) to perform the task."
void RequirePrivilege(const Principal& principal, model::Privilege privilege,
                      std::string_view project_id);

// Throws Error(kAccessDenied) unless the principal holds every bit of `rights` on `object`.
void RequireRights(const Principal& principal, const model::ObjectRecord& object, int rights);

}  // namespace tessera::service::session
