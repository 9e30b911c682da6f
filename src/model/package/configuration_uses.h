// model/package/configuration_uses.h
//
// The configuration objects a user, user group or security role uses, for includeDependents in
// configuration packages: a user or group uses the groups it is a member of and the security roles
// it holds (in any project). Owners and ACL trustees are never uses. Connection mappings (data
// sources) are not modelled yet, so they are not listed. Other types use no configuration object.
// Ids are upper case, each once, in definition order; the object's own id is never listed.
#pragma once

#include <string>
#include <vector>

#include "model/object.h"

namespace tessera::model::package {

std::vector<std::string> ConfigurationUses(const ObjectRecord& record);

}  // namespace tessera::model::package
