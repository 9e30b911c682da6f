#include "model/object.h"

namespace tessera::model {

Json AclToJson(const std::vector<AclEntry>& acl) {
  Json out = Json::array();
  for (const auto& entry : acl) {
    out.push_back({{"trusteeId", entry.trustee_id},
                   {"rights", entry.rights},
                   {"deny", entry.denied},
                   {"inheritable", entry.inheritable}});
  }
  return out;
}

std::vector<AclEntry> AclFromJson(const Json& json) {
  std::vector<AclEntry> acl;
  if (!json.is_array()) return acl;
  for (const auto& item : json) {
    AclEntry entry;
    entry.trustee_id = item.value("trusteeId", "");
    entry.rights = item.value("rights", 0);
    entry.denied = item.value("deny", false);
    entry.inheritable = item.value("inheritable", false);
    acl.push_back(std::move(entry));
  }
  return acl;
}

}  // namespace tessera::model
