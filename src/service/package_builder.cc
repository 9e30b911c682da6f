#include "service/package_builder.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "core/error.h"
#include "core/time.h"
#include "model/configuration_uses.h"
#include "model/import_order.h"
#include "model/object_types.h"
#include "model/package_entry.h"
#include "model/semantic.h"
#include "storage/package_format.h"

namespace tessera::service {
namespace {

using model::ObjectRecord;
using model::PackageKind;

constexpr size_t kBatchSize = 500;

std::string StorageScope(const PackageScope& scope) {
  return scope.kind == PackageKind::kProject ? scope.project_id : "";
}

bool IsAtPackageLevel(const PackageScope& scope, const ObjectRecord& record) {
  switch (scope.kind) {
    case PackageKind::kProject:
      return true;  // found in the project's scope
    case PackageKind::kProjectSecurity:
      return record.type == model::kTypeUser;
    case PackageKind::kConfiguration:
      return record.type != model::kTypeProject;
  }
  return false;
}

std::vector<std::string> UsesOf(const PackageScope& scope, const ObjectRecord& record) {
  switch (scope.kind) {
    case PackageKind::kProject:
      return model::UsedObjectIds(record);
    case PackageKind::kProjectSecurity:
      return {};  // links only: the roles and groups themselves are not carried (§4.8)
    case PackageKind::kConfiguration:
      return model::ConfigurationUses(record);
  }
  return {};
}

// What the package holds of one object before its definition is read.
struct Member {
  std::string id;
  std::string parent_id;
  model::ImportOrderKey order;
  bool explicit_included = false;
  bool implicit_folder = false;
};

// The folders above the package's objects: names and parents, read once each.
class FolderChains {
 public:
  FolderChains(storage::MetadataTransaction& tx, std::string scope)
      : tx_(tx), scope_(std::move(scope)) {}

  std::vector<model::PackageAncestor> AncestorsOf(const std::string& parent_id) {
    std::vector<model::PackageAncestor> chain;
    std::string next = parent_id;
    std::unordered_set<std::string> seen;
    while (!next.empty() && seen.insert(next).second) {
      const Folder* folder = Find(next);
      if (!folder) break;  // a dangling parent: the path ends here
      chain.push_back({next, folder->name});
      next = folder->parent_id;
    }
    return chain;
  }

 private:
  struct Folder {
    std::string name;
    std::string parent_id;
  };

  const Folder* Find(const std::string& id) {
    auto it = folders_.find(id);
    if (it == folders_.end()) {
      std::optional<Folder> folder;
      if (auto record = tx_.FindObject(scope_, id))
        folder = Folder{record->name, record->folder_id};
      it = folders_.emplace(id, std::move(folder)).first;
    }
    return it->second ? &*it->second : nullptr;
  }

  storage::MetadataTransaction& tx_;
  std::string scope_;
  std::unordered_map<std::string, std::optional<Folder>> folders_;
};

std::vector<std::string> MissingIds(const std::vector<model::ContentItem>& content,
                                    const std::vector<ObjectRecord>& found,
                                    const PackageScope& scope) {
  std::unordered_set<std::string> present;
  for (const auto& record : found) {
    if (IsAtPackageLevel(scope, record)) present.insert(record.id);
  }
  std::vector<std::string> missing;
  for (const auto& item : content) {
    if (!present.count(item.id)) missing.push_back(item.id);
  }
  return missing;
}

Json StoredItem(const model::ContentItem& item, const ObjectRecord& record) {
  Json stored = model::ToJson(item);
  stored["name"] = record.name;
  stored["version"] = record.version;
  stored["type"] = record.type;
  stored["owner"] = {{"id", record.owner_id}};
  stored["dateCreated"] = FormatTimestamp(record.created);
  stored["dateModified"] = FormatTimestamp(record.modified);
  stored["explicitIncluded"] = true;
  stored["level"] = record.project_id.empty() ? "configuration_object" : "project_object";
  return stored;
}

// Gives `visit` the records found of `ids`, a batch at a time: no more than a batch of
// definitions is held.
void ForEachFound(storage::MetadataTransaction& tx, const std::string& scope,
                  const std::vector<std::string>& ids,
                  const std::function<void(const ObjectRecord&)>& visit) {
  for (size_t start = 0; start < ids.size(); start += kBatchSize) {
    std::vector<std::string> batch(ids.begin() + start,
                                   ids.begin() + std::min(ids.size(), start + kBatchSize));
    for (const auto& record : tx.FindObjects(scope, batch)) visit(record);
  }
}

std::vector<ObjectRecord> FindInBatches(storage::MetadataTransaction& tx, const std::string& scope,
                                        const std::vector<std::string>& ids) {
  std::vector<ObjectRecord> found;
  ForEachFound(tx, scope, ids, [&](const ObjectRecord& record) { found.push_back(record); });
  return found;
}

// Listed objects and, for those that ask, everything they use at the package's level.
std::vector<Member> ListedClosure(storage::MetadataTransaction& tx, const PackageScope& scope,
                                  const std::vector<model::ContentItem>& content,
                                  FolderChains& folders, std::unordered_set<std::string>& members) {
  std::vector<Member> closure;
  std::vector<std::string> frontier;
  auto add = [&](const ObjectRecord& record, bool listed) {
    if (!IsAtPackageLevel(scope, record) || !members.insert(record.id).second) return false;
    int depth = static_cast<int>(folders.AncestorsOf(record.folder_id).size());
    closure.push_back({record.id, record.folder_id,
                       model::MakeImportOrderKey(scope.kind, record.type, record.subtype, depth),
                       listed, false});
    return true;
  };
  std::vector<std::string> listed_ids;
  std::unordered_set<std::string> with_dependents;
  for (const auto& item : content) {
    listed_ids.push_back(item.id);
    if (item.include_dependents) with_dependents.insert(item.id);
  }
  ForEachFound(tx, StorageScope(scope), listed_ids, [&](const ObjectRecord& record) {
    add(record, true);
    if (with_dependents.count(record.id)) {
      for (auto& used : UsesOf(scope, record)) frontier.push_back(std::move(used));
    }
  });
  while (!frontier.empty()) {
    std::vector<std::string> next;
    ForEachFound(tx, StorageScope(scope), frontier, [&](const ObjectRecord& record) {
      if (!add(record, false)) return;
      for (auto& used : UsesOf(scope, record)) next.push_back(std::move(used));
    });
    frontier = std::move(next);
  }
  return closure;
}

std::vector<Member> ProjectClosure(storage::MetadataTransaction& tx, const PackageScope& scope,
                                   FolderChains& folders,
                                   std::unordered_set<std::string>& members) {
  std::vector<Member> closure;
  for (const auto& key : tx.ListObjectKeys(scope.project_id)) {
    members.insert(key.id);
    int depth = static_cast<int>(folders.AncestorsOf(key.folder_id).size());
    closure.push_back({key.id, key.folder_id,
                       model::MakeImportOrderKey(scope.kind, key.type, key.subtype, depth), false,
                       false});
  }
  return closure;
}

// The ancestor folders of the package's objects that the package does not hold yet.
void AddImplicitFolders(storage::MetadataTransaction& tx, const PackageScope& scope,
                        FolderChains& folders, std::unordered_set<std::string>& members,
                        std::vector<Member>& closure) {
  std::vector<std::string> missing;
  for (const auto& member : closure) {
    for (const auto& ancestor : folders.AncestorsOf(member.parent_id)) {
      if (members.insert(ancestor.id).second) missing.push_back(ancestor.id);
    }
  }
  ForEachFound(tx, StorageScope(scope), missing, [&](const ObjectRecord& record) {
    int depth = static_cast<int>(folders.AncestorsOf(record.folder_id).size());
    closure.push_back({record.id, record.folder_id,
                       model::MakeImportOrderKey(scope.kind, record.type, record.subtype, depth),
                       false, true});
  });
}

std::vector<Member> PackageMembers(storage::MetadataTransaction& tx, const PackageScope& scope,
                                   const std::vector<model::ContentItem>& content,
                                   FolderChains& folders) {
  std::unordered_set<std::string> members;
  std::vector<Member> closure = scope.purpose == model::PackagePurpose::kProjectMerge
                                    ? ProjectClosure(tx, scope, folders, members)
                                    : ListedClosure(tx, scope, content, folders, members);
  AddImplicitFolders(tx, scope, folders, members, closure);
  std::sort(closure.begin(), closure.end(), [](const Member& a, const Member& b) {
    return std::tie(a.order, a.id) < std::tie(b.order, b.id);
  });
  return closure;
}

void WriteObjects(storage::MetadataTransaction& tx, const PackageScope& scope,
                  const std::vector<Member>& members, FolderChains& folders,
                  storage::PackageWriter& writer, const BuildOptions& options) {
  int reported_percent = -1;
  for (size_t start = 0; start < members.size(); start += kBatchSize) {
    if (options.check_cancelled) options.check_cancelled();
    size_t end = std::min(members.size(), start + kBatchSize);
    std::vector<std::string> ids;
    for (size_t i = start; i < end; ++i) ids.push_back(members[i].id);
    std::unordered_map<std::string, ObjectRecord> records;
    for (auto& record : tx.FindObjects(StorageScope(scope), ids)) {
      std::string id = record.id;
      records.emplace(std::move(id), std::move(record));
    }
    for (size_t i = start; i < end; ++i) {
      auto found = records.find(members[i].id);
      if (found == records.end()) {
        throw Error(
            ErrorCode::kInternal,
            fmt::format("object {} vanished while the package was written", ids[i - start]));
      }
      model::PackageObject object;
      object.record = std::move(found->second);
      object.ancestors = folders.AncestorsOf(object.record.folder_id);
      object.uses = UsesOf(scope, object.record);
      object.explicit_included = members[i].explicit_included;
      object.implicit_folder = members[i].implicit_folder;
      writer.AddObject(object.record.id, DumpJson(model::EntryToJson(object)));
    }
    int percent = static_cast<int>(end * 100 / members.size());
    if (options.on_progress && percent / 5 != reported_percent / 5) {
      options.on_progress(percent);
      reported_percent = percent;
    }
  }
}

}  // namespace

void DescribeContent(storage::MetadataTransaction& tx, const PackageScope& scope,
                     const std::vector<model::ContentItem>& content,
                     const std::function<void(int64_t sequence, std::string chunk)>& store_chunk) {
  const size_t chunk_items = static_cast<size_t>(storage::kContentItemsPerEntry);
  std::vector<std::string> missing;
  int64_t sequence = 0;
  for (size_t start = 0; start < content.size(); start += chunk_items) {
    std::vector<model::ContentItem> chunk(
        content.begin() + start, content.begin() + std::min(content.size(), start + chunk_items));
    std::vector<std::string> ids;
    for (const auto& item : chunk) ids.push_back(item.id);
    std::vector<ObjectRecord> found = FindInBatches(tx, StorageScope(scope), ids);
    std::vector<std::string> absent = MissingIds(chunk, found, scope);
    missing.insert(missing.end(), absent.begin(), absent.end());
    if (!missing.empty()) continue;  // only the ids are wanted now
    std::unordered_map<std::string, const ObjectRecord*> by_id;
    for (const auto& record : found) by_id[record.id] = &record;
    Json stored = Json::array();
    for (const auto& item : chunk) stored.push_back(StoredItem(item, *by_id.at(item.id)));
    store_chunk(++sequence, DumpJson(stored));
  }
  if (!missing.empty()) {
    throw Error(ErrorCode::kInvalidInput,
                fmt::format("packageInfo.tocView.content: no {} with the id(s) {} in the source{}",
                            scope.kind == PackageKind::kProject           ? "project object"
                            : scope.kind == PackageKind::kProjectSecurity ? "user or user group"
                                                                          : "configuration object",
                            fmt::join(missing, ", "),
                            scope.kind == PackageKind::kProject ? " project" : ""));
  }
}

BuiltPackage BuildPackage(storage::MetadataStore& store, const PackageScope& scope,
                          const std::vector<model::ContentItem>& content,
                          const BuildOptions& options) {
  BuiltPackage built;
  store.Read([&](storage::MetadataTransaction& tx) {
    FolderChains folders(tx, StorageScope(scope));
    std::vector<Member> members = PackageMembers(tx, scope, content, folders);
    storage::PackageManifest manifest = options.manifest;
    manifest.object_count = static_cast<int64_t>(members.size());
    storage::PackageWriter writer(options.path, options.max_package_bytes);
    writer.WriteManifest(manifest);
    for (int64_t entry = 1; entry <= storage::ContentEntryCount(manifest.content_count); ++entry) {
      writer.AddContent(options.content_entry(tx, entry));
    }
    WriteObjects(tx, scope, members, folders, writer, options);
    built.file = writer.Commit();
    built.object_count = manifest.object_count;
  });
  return built;
}

}  // namespace tessera::service
