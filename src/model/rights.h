// model/rights.h
//
// Access rights on an object (the bits below) and how a principal's effective rights follow from
// the object's ACL: the owner has full control; otherwise the rights granted to the user or any of
// its groups, minus the rights denied to any of them (a deny always wins).
#pragma once

#include <string>
#include <vector>

#include "model/object.h"

namespace tessera::model {

inline constexpr int kRightBrowse = 1;
inline constexpr int kRightUseExecute = 2;
inline constexpr int kRightRead = 4;
inline constexpr int kRightWrite = 8;
inline constexpr int kRightDelete = 16;
inline constexpr int kRightControl = 32;
inline constexpr int kRightUse = 64;
inline constexpr int kRightExecute = 128;
inline constexpr int kRightsFullControl = 255;
inline constexpr int kRightsView = 197;  // browse, read, use, execute

struct Trustee {
  std::string user_id;
  std::vector<std::string> group_ids;  // includes Everyone
};

int EffectiveRights(const ObjectRecord& object, const Trustee& trustee);

// The entries a new object inherits from the folder it is created in.
std::vector<AclEntry> InheritedAcl(const ObjectRecord& parent_folder);

}  // namespace tessera::model
