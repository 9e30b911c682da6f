#include "service/session/principal.h"

#include "core/error.h"

namespace tessera::service::session {

bool Principal::HasPrivilege(model::Privilege privilege, std::string_view project_id) const {
  auto it = privilege_projects.find(static_cast<int>(privilege));
  if (it == privilege_projects.end()) return false;
  return it->second.count(std::string(kAllProjects)) > 0 ||
         (!project_id.empty() && it->second.count(std::string(project_id)) > 0);
}

bool Principal::HasPrivilegeAnywhere(model::Privilege privilege) const {
  auto it = privilege_projects.find(static_cast<int>(privilege));
  return it != privilege_projects.end() && !it->second.empty();
}

int Principal::RightsOn(const model::ObjectRecord& object) const {
  if (HasPrivilege(model::Privilege::kBypassObjectSecurity, object.project_id)) {
    return model::kRightsFullControl;
  }
  return model::EffectiveRights(object, trustee());
}

void RequirePrivilege(const Principal& principal, model::Privilege privilege,
                      std::string_view project_id) {
  if (principal.HasPrivilege(privilege, project_id)) return;
  auto info = model::FindPrivilege(static_cast<int>(privilege));
  throw Error(ErrorCode::kInsufficientPrivileges,
              "You do not have " + std::string(info ? info->name : "the required") +
                  " privilege(s) to perform the task.");
}

void RequireRights(const Principal& principal, const model::ObjectRecord& object, int rights) {
  if ((principal.RightsOn(object) & rights) == rights) return;
  throw Error(ErrorCode::kAccessDenied, "You do not have the required access rights on object '" +
                                            object.id + "' (" + object.name + ").");
}

}  // namespace tessera::service::session
