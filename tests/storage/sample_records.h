// tests/storage/sample_records.h
//
// Records with every field set to a distinct, recognisable value, for storage round trips.
#pragma once

#include <string>

#include "core/time.h"
#include "model/object.h"
#include "storage/records.h"

namespace tessera::testing {

inline constexpr char kProject[] = "B19DEDCC11D4E0EFC000EB9495D0F44F";
inline constexpr char kOtherProject[] = "0C7C8AA94A4A1CDBE3CB01B5C4D85E1A";
inline constexpr char kRootFolder[] = "D43364C684E34A5B9A2B4BD6C5B0F5D1";
inline constexpr char kOtherFolder[] = "E6C8A2A7F0B44D0F8A9A7E8D0C2B1A3F";
inline constexpr char kOwner[] = "54F3D26011D2896560009A8E67019608";

// A valid object id that is easy to read in a failure: Id(7) = "000...0007" (32 digits).
inline std::string Id(int n) {
  std::string digits = std::to_string(n);
  return std::string(32 - digits.size(), '0') + digits;
}

inline model::ObjectRecord SampleObject(const std::string& project_id, const std::string& id,
                                        int type, const std::string& name,
                                        const std::string& folder_id = kRootFolder) {
  model::ObjectRecord object;
  object.project_id = project_id;
  object.id = id;
  object.type = type;
  object.subtype = type * 256 + 1;
  object.ext_type = 3;
  object.name = name;
  object.description = "Description of " + name;
  object.abbreviation = name.substr(0, 3);
  object.folder_id = folder_id;
  object.owner_id = kOwner;
  object.version = "A1B2C3D4E5F60718293A4B5C6D7E8F90";
  object.created = FromUnixMillis(1704067200123);   // 2024-01-01T00:00:00.123Z
  object.modified = FromUnixMillis(1717243199999);  // 2024-06-01T11:59:59.999Z
  object.hidden = false;
  object.certified = false;
  object.definition = Json::object();
  return object;
}

inline storage::ProjectRecord SampleProject(const std::string& id, const std::string& name) {
  storage::ProjectRecord project;
  project.object = SampleObject("", id, 32, name, "");
  project.object.subtype = 8192;
  project.status = 0;
  project.alias = name + " alias";
  return project;
}

inline storage::SessionRecord SampleSession(const std::string& token_hash, Timestamp last_active,
                                            int idle_timeout_seconds = 600) {
  storage::SessionRecord session;
  session.token_hash = token_hash;
  session.session_id = "5E6F7A8B9C0D1E2F3A4B5C6D7E8F9A0B";
  session.user_id = kOwner;
  session.application_type = 35;
  session.created = last_active - std::chrono::minutes(5);
  session.last_active = last_active;
  session.idle_timeout_seconds = idle_timeout_seconds;
  return session;
}

}  // namespace tessera::testing
