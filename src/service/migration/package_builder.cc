#include "service/migration/package_builder.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "core/error.h"
#include "core/time.h"
#include "model/object_types.h"
#include "model/package/configuration_uses.h"
#include "model/package/entry.h"
#include "model/package/import_order.h"
#include "model/semantic.h"
#include "storage/package/format.h"
#include "storage/scratch_table.h"

namespace tessera::service::migration {
namespace {

using model::ObjectRecord;
using model::package::PackageKind;

constexpr size_t kObjectsPerBatch = 500;

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
      return {};  // links only: the roles and groups themselves are not carried
    case PackageKind::kConfiguration:
      return model::package::ConfigurationUses(record);
  }
  return {};
}

// What the package holds of one object before its definition is read.
struct Member {
  std::string id;
  model::package::ImportOrderKey order;
  bool explicit_included = false;
  bool implicit_folder = false;
};

// The members of a package, on disk (a package may hold every object of a project): each id
// once, read back in import order (model/package/import_order.h), then by id. The folders that hold
// them are kept in memory: there are few.
class MemberList {
 public:
  explicit MemberList(const std::filesystem::path& scratch_dir)
      : ids_(scratch_dir), ordered_(scratch_dir) {}

  bool Contains(const std::string& id) const { return ids_.Contains(id); }

  // False when `member.id` is a member already.
  bool Add(const Member& member, const std::string& parent_id) {
    if (!ids_.Insert(member.id)) return false;
    std::string flags{member.explicit_included ? 'e' : '-', member.implicit_folder ? 'i' : '-'};
    ordered_.Insert(OrderedKey(member.order, member.id), flags);
    if (!parent_id.empty()) parents_.insert(parent_id);
    return true;
  }

  int64_t size() const { return ids_.size(); }
  const std::unordered_set<std::string>& parents() const { return parents_; }

  // Members in order, up to kObjectsPerBatch at a time.
  void ForEachBatch(const std::function<void(const std::vector<Member>&)>& visit) const {
    std::vector<Member> batch;
    ordered_.ForEach([&](std::string_view key, std::string_view flags) {
      Member member;
      member.id = std::string(key.substr(key.rfind(':') + 1));
      member.explicit_included = flags.at(0) == 'e';
      member.implicit_folder = flags.at(1) == 'i';
      batch.push_back(std::move(member));
      if (batch.size() < kObjectsPerBatch) return;
      visit(batch);
      batch.clear();
    });
    if (!batch.empty()) visit(batch);
  }

 private:
  // Sorts bytewise as (order, id) compares.
  static std::string OrderedKey(const model::package::ImportOrderKey& order,
                                const std::string& id) {
    constexpr int64_t kOffset = int64_t{1} << 31;  // ranks and depths as non-negative numbers
    return fmt::format("{:011}:{:011}:{}", order.rank + kOffset, order.folder_depth + kOffset, id);
  }

  storage::ScratchTable ids_;
  storage::ScratchTable ordered_;  // OrderedKey -> flags
  std::unordered_set<std::string> parents_;
};

// The folders above the package's objects: names and parents, read once each.
class FolderChains {
 public:
  FolderChains(storage::MetadataTransaction& tx, std::string scope)
      : tx_(tx), scope_(std::move(scope)) {}

  std::vector<model::package::PackageAncestor> AncestorsOf(const std::string& parent_id) {
    std::vector<model::package::PackageAncestor> chain;
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

std::vector<std::string> MissingIds(const std::vector<model::package::ContentItem>& content,
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

Json StoredItem(const model::package::ContentItem& item, const ObjectRecord& record) {
  Json stored = model::package::ToJson(item);
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
  for (size_t start = 0; start < ids.size(); start += kObjectsPerBatch) {
    std::vector<std::string> batch(ids.begin() + start,
                                   ids.begin() + std::min(ids.size(), start + kObjectsPerBatch));
    for (const auto& record : tx.FindObjects(scope, batch)) visit(record);
  }
}

std::vector<ObjectRecord> FindInBatches(storage::MetadataTransaction& tx, const std::string& scope,
                                        const std::vector<std::string>& ids) {
  std::vector<ObjectRecord> found;
  ForEachFound(tx, scope, ids, [&](const ObjectRecord& record) { found.push_back(record); });
  return found;
}

// Ids visited a batch at a time, kept on disk between the rounds of a closure.
class IdQueue {
 public:
  explicit IdQueue(const std::filesystem::path& scratch_dir)
      : ids_(std::make_unique<storage::ScratchTable>(scratch_dir)) {}

  void Push(const std::string& id) { ids_->Insert(id); }
  bool empty() const { return ids_->size() == 0; }

  void ForEachBatch(const std::function<void(const std::vector<std::string>&)>& visit) const {
    std::vector<std::string> batch;
    ids_->ForEach([&](std::string_view id, std::string_view) {
      batch.emplace_back(id);
      if (batch.size() < kObjectsPerBatch) return;
      visit(batch);
      batch.clear();
    });
    if (!batch.empty()) visit(batch);
  }

 private:
  std::unique_ptr<storage::ScratchTable> ids_;
};

class Closure {
 public:
  Closure(storage::MetadataTransaction& tx, const PackageScope& scope, FolderChains& folders,
          MemberList& members)
      : tx_(tx), scope_(scope), folders_(folders), members_(members) {}

  bool Add(const ObjectRecord& record, bool listed) {
    if (!IsAtPackageLevel(scope_, record)) return false;
    return Add(record.id, record.folder_id, record.type, record.subtype, listed, false);
  }

  bool Add(const std::string& id, const std::string& parent_id, int type, int subtype, bool listed,
           bool implicit_folder) {
    int depth = static_cast<int>(folders_.AncestorsOf(parent_id).size());
    return members_.Add({id, model::package::MakeImportOrderKey(scope_.kind, type, subtype, depth),
                         listed, implicit_folder},
                        parent_id);
  }

  // Listed objects and, for those that ask, everything they use at the package's level.
  void AddListed(const BuildOptions& options, int64_t content_count,
                 const std::filesystem::path& scratch_dir) {
    IdQueue frontier(scratch_dir);
    for (int64_t entry = 1; entry <= storage::package::ContentEntryCount(content_count); ++entry) {
      std::vector<std::string> ids;
      std::unordered_set<std::string> with_dependents;
      for (const auto& item :
           model::package::ParseContent(ParseJson(options.content_entry(tx_, entry)))) {
        ids.push_back(item.id);
        if (item.include_dependents) with_dependents.insert(item.id);
      }
      ForEachFound(tx_, StorageScope(scope_), ids, [&](const ObjectRecord& record) {
        Add(record, true);
        if (!with_dependents.count(record.id)) return;
        for (const auto& used : UsesOf(scope_, record)) frontier.Push(used);
      });
    }
    while (!frontier.empty()) {
      IdQueue next(scratch_dir);
      frontier.ForEachBatch([&](const std::vector<std::string>& ids) {
        ForEachFound(tx_, StorageScope(scope_), ids, [&](const ObjectRecord& record) {
          if (!Add(record, false)) return;
          for (const auto& used : UsesOf(scope_, record)) next.Push(used);
        });
      });
      std::swap(frontier, next);
    }
  }

  // A page of keys at a time: a project may hold millions of objects.
  void AddProject() {
    std::string after;
    for (;;) {
      auto keys =
          tx_.ListObjectKeysAfter(scope_.project_id, after, static_cast<int64_t>(kObjectsPerBatch));
      for (const auto& key : keys) Add(key.id, key.folder_id, key.type, key.subtype, false, false);
      if (keys.size() < kObjectsPerBatch) return;
      after = keys.back().id;
    }
  }

  // The ancestor folders of the package's objects that the package does not hold yet.
  void AddImplicitFolders() {
    std::unordered_set<std::string> seen;
    std::vector<std::string> missing;
    std::vector<std::string> parents(members_.parents().begin(), members_.parents().end());
    for (const auto& parent_id : parents) {
      for (const auto& ancestor : folders_.AncestorsOf(parent_id)) {
        if (!members_.Contains(ancestor.id) && seen.insert(ancestor.id).second) {
          missing.push_back(ancestor.id);
        }
      }
    }
    ForEachFound(tx_, StorageScope(scope_), missing, [&](const ObjectRecord& record) {
      Add(record.id, record.folder_id, record.type, record.subtype, false, true);
    });
  }

 private:
  storage::MetadataTransaction& tx_;
  const PackageScope& scope_;
  FolderChains& folders_;
  MemberList& members_;
};

void WriteObjects(storage::MetadataTransaction& tx, const PackageScope& scope,
                  const MemberList& members, FolderChains& folders,
                  storage::package::PackageWriter& writer, const BuildOptions& options) {
  int reported_percent = -1;
  int64_t written = 0;
  members.ForEachBatch([&](const std::vector<Member>& batch) {
    if (options.check_cancelled) options.check_cancelled();
    std::vector<std::string> ids;
    for (const auto& member : batch) ids.push_back(member.id);
    std::unordered_map<std::string, ObjectRecord> records;
    for (auto& record : tx.FindObjects(StorageScope(scope), ids)) {
      std::string id = record.id;
      records.emplace(std::move(id), std::move(record));
    }
    for (const auto& member : batch) {
      auto found = records.find(member.id);
      if (found == records.end()) {
        throw Error(ErrorCode::kInternal,
                    fmt::format("object {} vanished while the package was written", member.id));
      }
      model::package::PackageObject object;
      object.record = std::move(found->second);
      object.ancestors = folders.AncestorsOf(object.record.folder_id);
      object.uses = UsesOf(scope, object.record);
      object.explicit_included = member.explicit_included;
      object.implicit_folder = member.implicit_folder;
      writer.AddObject(object.record.id, DumpJson(model::package::EntryToJson(object)));
    }
    written += static_cast<int64_t>(batch.size());
    int percent = static_cast<int>(written * 100 / members.size());
    if (options.on_progress && percent / 5 != reported_percent / 5) {
      options.on_progress(percent);
      reported_percent = percent;
    }
  });
}

}  // namespace

void DescribeContent(storage::MetadataTransaction& tx, const PackageScope& scope,
                     const ContentList& content,
                     const std::function<void(int64_t sequence, std::string chunk)>& store_chunk) {
  const size_t chunk_items = static_cast<size_t>(storage::package::kContentItemsPerEntry);
  std::vector<std::string> missing;
  int64_t sequence = 0;
  content.ForEachChunk(chunk_items, [&](const std::vector<model::package::ContentItem>& chunk) {
    std::vector<std::string> ids;
    for (const auto& item : chunk) ids.push_back(item.id);
    std::vector<ObjectRecord> found = FindInBatches(tx, StorageScope(scope), ids);
    std::vector<std::string> absent = MissingIds(chunk, found, scope);
    missing.insert(missing.end(), absent.begin(), absent.end());
    if (!missing.empty()) return;  // only the ids are wanted now
    std::unordered_map<std::string, const ObjectRecord*> by_id;
    for (const auto& record : found) by_id[record.id] = &record;
    Json stored = Json::array();
    for (const auto& item : chunk) stored.push_back(StoredItem(item, *by_id.at(item.id)));
    store_chunk(++sequence, DumpJson(stored));
  });
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
                          const BuildOptions& options) {
  BuiltPackage built;
  store.Read([&](storage::MetadataTransaction& tx) {
    FolderChains folders(tx, StorageScope(scope));
    MemberList members(options.scratch_dir);
    Closure closure(tx, scope, folders, members);
    if (scope.purpose == model::package::PackagePurpose::kProjectMerge) {
      closure.AddProject();
    } else {
      closure.AddListed(options, options.manifest.content_count, options.scratch_dir);
    }
    closure.AddImplicitFolders();
    storage::package::PackageManifest manifest = options.manifest;
    manifest.object_count = members.size();
    storage::package::PackageWriter writer(options.path, options.max_package_bytes);
    writer.WriteManifest(manifest);
    for (int64_t entry = 1; entry <= storage::package::ContentEntryCount(manifest.content_count);
         ++entry) {
      writer.AddContent(options.content_entry(tx, entry));
    }
    WriteObjects(tx, scope, members, folders, writer, options);
    built.file = writer.Commit();
    built.object_count = manifest.object_count;
  });
  return built;
}

}  // namespace tessera::service::migration
