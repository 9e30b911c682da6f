#include "model/package/configuration_uses.h"

#include <algorithm>

#include "core/ids.h"
#include "model/directory.h"
#include "model/object_types.h"

namespace tessera::model::package {

namespace {

void AddId(std::vector<std::string>& ids, const std::string& id, const std::string& own_id) {
  std::string canonical = CanonicalObjectId(id).value_or(id);
  if (canonical.empty() || canonical == own_id) return;
  if (std::find(ids.begin(), ids.end(), canonical) == ids.end()) ids.push_back(canonical);
}

std::vector<std::string> GroupsAndRoles(const std::vector<std::string>& member_of,
                                        const std::vector<RoleGrant>& roles,
                                        const std::string& own_id) {
  std::vector<std::string> ids;
  for (const std::string& group_id : member_of) AddId(ids, group_id, own_id);
  for (const RoleGrant& grant : roles) AddId(ids, grant.role_id, own_id);
  return ids;
}

}  // namespace

std::vector<std::string> ConfigurationUses(const ObjectRecord& record) {
  if (record.type != kTypeUser || !record.definition.is_object()) return {};
  std::string own_id = CanonicalObjectId(record.id).value_or(record.id);
  if (record.subtype == kSubtypeUser) {
    UserDefinition user = UserFromJson(record.definition);
    return GroupsAndRoles(user.member_of, user.roles, own_id);
  }
  if (record.subtype == kSubtypeUserGroup) {
    GroupDefinition group = GroupFromJson(record.definition);
    return GroupsAndRoles(group.member_of, group.roles, own_id);
  }
  return {};
}

}  // namespace tessera::model::package
