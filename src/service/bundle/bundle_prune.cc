#include "service/bundle/bundle_prune.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "core/error.h"
#include "core/strings.h"
#include "model/bundle/index.h"
#include "model/object_types.h"

namespace tessera::service::bundle {

namespace {

// The types bundles hold objects of; model::KindOf narrows them by subtype.
const std::vector<int> kBundleTypes = {model::kTypeTable,
                                       model::kTypeAttribute,
                                       model::kTypeFact,
                                       model::kTypeMetric,
                                       model::kTypeFilter,
                                       model::kTypeReportDefinition,
                                       model::kTypeDocumentDefinition};

std::string Describe(const model::ObjectRecord& object) {
  return KindOfObject(object.type, object.subtype) + " '" + object.name + "' (" + object.id + ")";
}

// The objects of bundle kinds the bundle does not keep, by id.
std::map<std::string, model::ObjectRecord> Doomed(storage::MetadataTransaction& tx,
                                                  const std::string& project_id,
                                                  const std::set<std::string>& kept_ids) {
  std::map<std::string, model::ObjectRecord> doomed;
  for (auto& object : tx.ListObjects(project_id, {kBundleTypes, {}})) {
    if (!model::bundle::KindOf(object.type, object.subtype)) continue;
    if (kept_ids.count(object.id)) continue;
    std::string id = object.id;
    doomed.emplace(std::move(id), std::move(object));
  }
  return doomed;
}

// Error(kInvalidInput) when an object that stays uses one of `doomed`.
void RefuseWhenStillUsed(storage::MetadataTransaction& tx, const std::string& project_id,
                         const std::map<std::string, model::ObjectRecord>& doomed) {
  std::vector<std::string> problems;
  for (const auto& [id, object] : doomed) {
    std::vector<std::string> users;
    for (const auto& user_id : tx.ListUsedBy(project_id, id)) {
      if (doomed.count(user_id)) continue;
      auto user = tx.FindObject(project_id, user_id);
      users.push_back(user ? Describe(*user) : "object " + user_id);
    }
    if (users.empty()) continue;
    problems.push_back(Describe(object) + " is still used by " + JoinStrings(users, ", ") +
                       (users.size() == 1 ? ", which stays" : ", which stay"));
  }
  if (problems.empty()) return;
  throw Error(ErrorCode::kInvalidInput,
              "Cannot prune: " + JoinStrings(problems, "; ") + "; nothing was imported");
}

}  // namespace

std::string KindOfObject(int type, int subtype) {
  if (auto kind = model::bundle::KindOf(type, subtype))
    return std::string(model::bundle::KindNoun(*kind));
  return "object of type " + std::to_string(type);
}

std::vector<ImportedObject> PruneToBundle(storage::MetadataTransaction& tx,
                                          const std::string& project_id,
                                          const std::set<std::string>& kept_ids) {
  const std::map<std::string, model::ObjectRecord> doomed = Doomed(tx, project_id, kept_ids);
  RefuseWhenStillUsed(tx, project_id, doomed);
  std::vector<ImportedObject> deleted;
  for (const auto& [id, object] : doomed) {
    tx.SetDependencies(project_id, id, {});
    tx.DeleteCubeSnapshot(project_id, id);
    tx.DeleteObject(project_id, id);
    deleted.push_back({id, KindOfObject(object.type, object.subtype), object.name});
  }
  std::sort(deleted.begin(), deleted.end(), [](const ImportedObject& a, const ImportedObject& b) {
    return std::tie(a.kind, a.name, a.id) < std::tie(b.kind, b.name, b.id);
  });
  return deleted;
}

}  // namespace tessera::service::bundle
