// service/object/object_view.h
//
// What the API shows of an object: the stored record plus what depends on who asks (acg, the
// caller's rights) and on its surroundings (owner name, ancestors). Built inside one storage
// transaction by ObjectViewBuilder, which caches the folders and owners it has read.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "model/object.h"
#include "service/session/principal.h"
#include "storage/metadata_store.h"

namespace tessera::service::object {

struct Ancestor {
  std::string id;
  std::string name;
  int level = 0;  // 1 = direct parent; the project root has the highest level
};

// Who an ACL entry names, as the API shows it: the user's or group's name and subtype
// (model::kSubtypeUser or model::kSubtypeUserGroup; 0 and an empty name for a deleted trustee).
struct TrusteeInfo {
  std::string name;
  int subtype = 0;
};

struct ObjectView {
  model::ObjectRecord record;
  std::string owner_name;
  std::vector<TrusteeInfo> acl_trustees;  // one per entry of record.acl, in the same order
  int acg = 0;
  std::vector<Ancestor> ancestors;  // empty unless asked for
  std::string project_name;
};

class ObjectViewBuilder {
 public:
  ObjectViewBuilder(storage::MetadataTransaction& tx, const session::Principal& principal);

  ObjectView Build(const model::ObjectRecord& record, bool with_ancestors);
  std::vector<Ancestor> Ancestors(const model::ObjectRecord& record);
  // The folder ids from the direct parent up to the root.
  std::vector<std::string> AncestorIds(const model::ObjectRecord& record);
  const model::ObjectRecord* Folder(const std::string& project_id, const std::string& folder_id);
  std::string OwnerName(const std::string& user_id);
  const TrusteeInfo& Trustee(const std::string& user_or_group_id);

 private:
  storage::MetadataTransaction& tx_;
  const session::Principal& principal_;
  std::map<std::pair<std::string, std::string>, std::optional<model::ObjectRecord>> folders_;
  std::map<std::string, TrusteeInfo> trustees_;
};

}  // namespace tessera::service::object
