#include "service/object/object_view.h"

#include <set>

namespace tessera::service::object {

ObjectViewBuilder::ObjectViewBuilder(storage::MetadataTransaction& tx,
                                     const session::Principal& principal)
    : tx_(tx), principal_(principal) {}

const TrusteeInfo& ObjectViewBuilder::Trustee(const std::string& user_or_group_id) {
  auto it = trustees_.find(user_or_group_id);
  if (it != trustees_.end()) return it->second;
  TrusteeInfo info;
  if (auto trustee = tx_.FindObject("", user_or_group_id)) {
    info.name = trustee->name;
    info.subtype = trustee->subtype;
  }
  return trustees_.emplace(user_or_group_id, std::move(info)).first->second;
}

std::string ObjectViewBuilder::OwnerName(const std::string& user_id) {
  return Trustee(user_id).name;
}

const model::ObjectRecord* ObjectViewBuilder::Folder(const std::string& project_id,
                                                     const std::string& folder_id) {
  auto key = std::make_pair(project_id, folder_id);
  auto it = folders_.find(key);
  if (it == folders_.end()) it = folders_.emplace(key, tx_.FindObject(project_id, folder_id)).first;
  return it->second ? &*it->second : nullptr;
}

std::vector<std::string> ObjectViewBuilder::AncestorIds(const model::ObjectRecord& record) {
  std::vector<std::string> ids;
  std::set<std::string> seen;  // a corrupt cycle must not loop forever
  std::string folder_id = record.folder_id;
  while (!folder_id.empty() && seen.insert(folder_id).second) {
    const model::ObjectRecord* folder = Folder(record.project_id, folder_id);
    if (!folder) break;
    ids.push_back(folder_id);
    folder_id = folder->folder_id;
  }
  return ids;
}

std::vector<Ancestor> ObjectViewBuilder::Ancestors(const model::ObjectRecord& record) {
  std::vector<std::string> ids = AncestorIds(record);
  std::vector<Ancestor> ancestors;
  int level = static_cast<int>(ids.size());
  for (auto it = ids.rbegin(); it != ids.rend(); ++it, --level) {
    ancestors.push_back({*it, Folder(record.project_id, *it)->name, level});
  }
  return ancestors;
}

ObjectView ObjectViewBuilder::Build(const model::ObjectRecord& record, bool with_ancestors) {
  ObjectView view;
  view.record = record;
  view.owner_name = OwnerName(record.owner_id);
  for (const auto& entry : record.acl) view.acl_trustees.push_back(Trustee(entry.trustee_id));
  view.acg = principal_.RightsOn(record);
  if (with_ancestors) view.ancestors = Ancestors(record);
  return view;
}

}  // namespace tessera::service::object
