// model/object.h
//
// A metadata object as the storage service keeps it: identity, type codes (model/object_types.h),
// placement, ownership, version, dates, ACL and a type-specific JSON definition.
// Configuration-level objects (users, groups, security roles, projects) have an empty project_id;
// every other object belongs to exactly one project. (project_id, id) is unique; the same id may
// exist in several projects (the root folder id is the same in every project).
#pragma once

#include <string>
#include <vector>

#include "core/json.h"
#include "core/time.h"
#include "model/object_types.h"

namespace tessera::model {

struct AclEntry {
  std::string trustee_id;  // a user or user group
  int rights = 0;          // model/rights.h bits
  bool denied = false;
  bool inheritable = false;
};

struct ObjectRecord {
  std::string project_id;  // "" for configuration-level objects
  std::string id;          // 32 upper-case hex
  int type = 0;
  int subtype = 0;
  int ext_type = 0;
  std::string name;
  std::string description;
  std::string abbreviation;
  std::string folder_id;  // "" for a root
  std::string owner_id;
  std::string version;  // 32 upper-case hex; new on every save
  Timestamp created{};
  Timestamp modified{};
  bool hidden = false;
  bool certified = false;
  std::vector<AclEntry> acl;
  Json definition = Json::object();
};

inline bool IsCube(const ObjectRecord& object) { return IsCubeSubtype(object.subtype); }

Json AclToJson(const std::vector<AclEntry>& acl);  // storage form: [{trusteeId, rights, ...}]
std::vector<AclEntry> AclFromJson(const Json& json);

}  // namespace tessera::model
