#include "service/migration/package_undo.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <vector>

#include "core/error.h"
#include "model/object_types.h"
#include "model/package/entry.h"
#include "model/semantic.h"
#include "storage/package/reader.h"
#include "storage/scratch_table.h"

namespace tessera::service::migration {
namespace {

constexpr size_t kMaxUndoneListedInMessage = 5;

std::string Listed(const std::vector<std::string>& ids) {
  std::vector<std::string> shown(ids.begin(),
                                 ids.begin() + std::min(ids.size(), kMaxUndoneListedInMessage));
  return fmt::format("{}{}", fmt::join(shown, ", "), ids.size() > shown.size() ? ", ..." : "");
}

// What undo needs of an object the import created (not its definition), as a ScratchTable
// value.
struct CreatedObject {
  std::string project_id;
  std::string id;
  std::string name;
  int type = 0;

  std::string Encode() const { return DumpJson(Json::array({project_id, id, name, type})); }
  static CreatedObject Decode(std::string_view text) {
    Json fields = ParseJson(text);
    return {fields.at(0).get<std::string>(), fields.at(1).get<std::string>(),
            fields.at(2).get<std::string>(), fields.at(3).get<int>()};
  }
};

class UndoRun {
 public:
  UndoRun(storage::MetadataTransaction& tx, const UndoOptions& options, int64_t entry_count)
      : tx_(tx),
        options_(options),
        entry_count_(entry_count),
        to_delete_(options.scratch_dir),
        deleted_ids_(options.scratch_dir) {}

  void Restore() {
    storage::package::PackageReader reader(options_.undo_path);
    std::string scope = reader.manifest().type == "project" ? options_.target_project_id : "";
    storage::package::PackageEntry entry;
    while (reader.Next(entry)) {
      if (reader.objects_read() % 500 == 0) Checkpoint(reader.objects_read());
      model::package::PackageObject object =
          model::package::EntryFromJson(ParseJson(entry.json), scope);
      if (object.undo_action == model::package::UndoAction::kDelete) {
        const auto& record = object.record;
        to_delete_.Put(
            fmt::format("{:016}", to_delete_.size()),
            CreatedObject{record.project_id, record.id, record.name, record.type}.Encode());
        deleted_ids_.Insert(object.record.id);
        continue;
      }
      tx_.PutObject(object.record);
      tx_.SetDependencies(object.record.project_id, object.record.id,
                          model::UsedObjectIds(object.record));
      ++summary_.restored;
    }
  }

  // In reverse order: contents before their folders.
  void DeleteCreated() {
    to_delete_.ForEach(
        [&](std::string_view, std::string_view value) {
          CreatedObject created = CreatedObject::Decode(value);
          RequireUnused(created);
          if (tx_.DeleteObject(created.project_id, created.id)) ++summary_.deleted;
        },
        storage::ScratchTable::Order::kDescending);
  }

  const UndoSummary& summary() const { return summary_; }

 private:
  void Checkpoint(int64_t entries_read) {
    if (options_.check_cancelled) options_.check_cancelled();
    if (options_.on_progress && entry_count_ > 0) {
      options_.on_progress(static_cast<int>(10 + 85 * entries_read / entry_count_));
    }
  }

  std::vector<std::string> Remaining(std::vector<std::string> ids) const {
    ids.erase(std::remove_if(ids.begin(), ids.end(),
                             [&](const std::string& id) { return deleted_ids_.Contains(id); }),
              ids.end());
    return ids;
  }

  void RequireUnused(const CreatedObject& created) {
    auto users = Remaining(tx_.ListUsedBy(created.project_id, created.id));
    if (!users.empty()) {
      throw Error(ErrorCode::kInvalidInput,
                  fmt::format("Cannot undo: '{}' ({}), created by the import, is now used by {} "
                              "objects: {}",
                              created.name, created.id, users.size(), Listed(users)));
    }
    if (created.type != model::kTypeFolder) return;
    std::vector<std::string> children;
    for (const auto& child : tx_.ListChildren(created.project_id, created.id)) {
      children.push_back(child.id);
    }
    children = Remaining(std::move(children));
    if (!children.empty()) {
      throw Error(ErrorCode::kInvalidInput,
                  fmt::format("Cannot undo: the folder '{}' ({}), created by the import, now "
                              "holds {} other objects: {}",
                              created.name, created.id, children.size(), Listed(children)));
    }
  }

  storage::MetadataTransaction& tx_;
  const UndoOptions& options_;
  int64_t entry_count_;
  UndoSummary summary_;
  storage::ScratchTable to_delete_;  // recording order -> CreatedObject
  storage::ScratchTable deleted_ids_;
};

}  // namespace

UndoSummary ApplyUndo(storage::MetadataStore& store, const UndoOptions& options) {
  storage::package::PackageManifest manifest = storage::package::VerifyPackage(options.undo_path);
  if (manifest.kind != storage::package::PackageFileKind::kUndo) {
    throw Error(ErrorCode::kInvalidInput, "Package file is corrupt: not an undo package");
  }
  if (options.on_progress) options.on_progress(10);
  UndoSummary summary;
  store.Write([&](storage::MetadataTransaction& tx) {
    UndoRun run(tx, options, manifest.object_count);
    if (options.in_transaction) options.in_transaction(tx);
    run.Restore();
    run.DeleteCreated();
    summary = run.summary();
    if (options.before_commit) options.before_commit(tx, summary);
  });
  if (options.on_progress) options.on_progress(100);
  return summary;
}

}  // namespace tessera::service::migration
