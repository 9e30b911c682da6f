#include "model/rights.h"

#include <algorithm>

namespace tessera::model {

namespace {

bool Applies(const AclEntry& entry, const Trustee& trustee) {
  if (entry.trustee_id == trustee.user_id) return true;
  return std::find(trustee.group_ids.begin(), trustee.group_ids.end(), entry.trustee_id) !=
         trustee.group_ids.end();
}

}  // namespace

int EffectiveRights(const ObjectRecord& object, const Trustee& trustee) {
  if (!trustee.user_id.empty() && object.owner_id == trustee.user_id) return kRightsFullControl;
  int granted = 0;
  int denied = 0;
  for (const auto& entry : object.acl) {
    if (!Applies(entry, trustee)) continue;
    (entry.denied ? denied : granted) |= entry.rights;
  }
  return granted & ~denied;
}

std::vector<AclEntry> InheritedAcl(const ObjectRecord& parent_folder) {
  std::vector<AclEntry> inherited;
  for (const auto& entry : parent_folder.acl) {
    if (entry.inheritable) inherited.push_back(entry);
  }
  return inherited;
}

}  // namespace tessera::model
