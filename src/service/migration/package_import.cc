#include "service/migration/package_import.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "core/error.h"
#include "core/ids.h"
#include "core/strings.h"
#include "core/time.h"
#include "model/directory.h"
#include "model/object_types.h"
#include "model/package/action_resolver.h"
#include "model/package/entry.h"
#include "model/package/id_repointing.h"
#include "model/package/settings.h"
#include "model/package/translations.h"
#include "model/rights.h"
#include "model/semantic.h"
#include "service/migration/undo_spool.h"
#include "storage/package/reader.h"
#include "storage/scratch_table.h"

namespace tessera::service::migration {
namespace {

using model::ObjectRecord;
using model::package::Outcome;
using model::package::PackageObject;

constexpr size_t kBatchSize = 500;
constexpr size_t kMaxListedInMessage = 5;

bool IsPredefinedFolder(const ObjectRecord& record) {
  return record.type == model::kTypeFolder && record.definition.contains("folderType");
}

// One byte per enumerator in a ScratchTable value.
template <typename Enum>
std::string Encode(Enum value) {
  return std::string(1, static_cast<char>('a' + static_cast<int>(value)));
}

template <typename Enum>
Enum Decode(std::string_view value) {
  return static_cast<Enum>(value.at(0) - 'a');
}

// The package's settings and content as the manifest recorded them. The content's actions are
// kept on disk by upper-case id: a package may list every object it holds.
struct PackageRules {
  model::package::PackageKind kind;
  model::package::PackagePurpose purpose;
  model::package::PackageSettings settings;
  std::shared_ptr<storage::ScratchTable> listed;
  std::string source_project_id;  // project_security: whose links the package carries

  model::package::ListedActions ListedActions() const {
    return [listed = listed](
               const std::string& upper_id) -> std::optional<model::package::ConflictRule> {
      auto action = listed->Find(upper_id);
      if (!action) return std::nullopt;
      return Decode<model::package::ConflictRule>(*action);
    };
  }
};

PackageRules RulesOf(const std::filesystem::path& path, const std::filesystem::path& scratch_dir) {
  storage::package::PackageReader reader(path);
  const storage::package::PackageManifest& manifest = reader.manifest();
  PackageRules rules;
  rules.kind = model::package::ParsePackageKind(manifest.type, "manifest.type");
  rules.purpose = model::package::ParsePackagePurpose(manifest.purpose, "manifest.purpose");
  rules.settings =
      model::package::ParsePackageSettings(manifest.settings, rules.kind, "manifest.settings");
  rules.listed = std::make_shared<storage::ScratchTable>(scratch_dir);
  storage::package::ForEachContentEntry(reader, [&](Json entry) {
    for (const auto& item : model::package::ParseContent(entry, "content")) {
      rules.listed->Put(ToUpper(item.id), Encode(item.action));  // the last of an id wins
    }
  });
  rules.source_project_id = manifest.source_project.id;
  return rules;
}

// Reads a package's objects in batches, with the target's current records of their ids.
class BatchReader {
 public:
  BatchReader(const std::filesystem::path& path, std::string scope)
      : reader_(path), scope_(std::move(scope)) {}

  const storage::package::PackageManifest& manifest() const { return reader_.manifest(); }

  // The next batch (empty at the end); `targets` gets the target records found by id.
  std::vector<PackageObject> Next(storage::MetadataTransaction& tx,
                                  std::unordered_map<std::string, ObjectRecord>& targets) {
    std::vector<PackageObject> batch;
    storage::package::PackageEntry entry;
    while (batch.size() < kBatchSize && reader_.Next(entry)) {
      batch.push_back(model::package::EntryFromJson(ParseJson(entry.json), scope_));
    }
    targets.clear();
    std::vector<std::string> ids;
    for (const auto& object : batch) ids.push_back(object.record.id);
    for (auto& record : tx.FindObjects(scope_, ids)) {
      std::string id = record.id;
      targets.emplace(std::move(id), std::move(record));
    }
    return batch;
  }

  int64_t objects_read() const { return reader_.objects_read(); }

 private:
  storage::package::PackageReader reader_;
  std::string scope_;
};

// What the import knows of the target beyond one batch: folder parents, existing trustees and
// the names taken in each folder it writes to (on disk: a folder may hold every object).
class TargetIndex {
 public:
  TargetIndex(storage::MetadataTransaction& tx, std::string scope,
              const std::filesystem::path& scratch_dir)
      : tx_(tx), scope_(std::move(scope)), names_(scratch_dir) {}

  std::vector<std::string> FolderChain(const std::string& parent_id) {
    std::vector<std::string> chain;
    std::unordered_set<std::string> seen;
    for (std::string next = parent_id; !next.empty() && seen.insert(next).second;) {
      auto it = parents_.find(next);
      if (it == parents_.end()) {
        auto folder = tx_.FindObject(scope_, next);
        it = parents_.emplace(next, folder ? std::optional(folder->folder_id) : std::nullopt).first;
      }
      if (!it->second) break;
      chain.push_back(next);
      next = *it->second;
    }
    return chain;
  }

  bool HasTrustee(const std::string& id) {
    auto it = trustees_.find(id);
    if (it == trustees_.end()) {
      auto record = tx_.FindObject("", id);
      it = trustees_.emplace(id, record && record->type == model::kTypeUser).first;
    }
    return it->second;
  }

  // `wanted`, or `wanted (n)` with the smallest n >= 1 that no other object of the type has in
  // the folder.
  std::string UniqueName(const std::string& folder_id, int type, const std::string& wanted,
                         const std::string& id) {
    LoadNamesIn(folder_id);
    std::string name = wanted;
    for (int n = 1;; ++n) {
      auto holder = names_.Find(NameKey(folder_id, type, name));
      if (!holder || *holder == id) return name;
      name = fmt::format("{} ({})", wanted, n);
    }
  }

  void Place(const ObjectRecord& record) {
    LoadNamesIn(record.folder_id);
    names_.Put(NameKey(record.folder_id, record.type, record.name), record.id);
    if (record.type == model::kTypeFolder) parents_[record.id] = record.folder_id;
  }

 private:
  static std::string NameKey(const std::string& folder_id, int type, const std::string& name) {
    return folder_id + '\x1f' + std::to_string(type) + '\x1f' + ToLower(name);
  }

  void LoadNamesIn(const std::string& folder_id) {
    if (!loaded_folders_.insert(folder_id).second) return;
    for (const auto& child : tx_.ListChildren(scope_, folder_id)) {
      names_.Put(NameKey(folder_id, child.type, child.name), child.id);
    }
  }

  storage::MetadataTransaction& tx_;
  std::string scope_;
  std::unordered_map<std::string, std::optional<std::string>> parents_;
  std::unordered_map<std::string, bool> trustees_;
  std::unordered_set<std::string> loaded_folders_;
  storage::ScratchTable names_;  // folder, type and lower-case name -> id
};

std::vector<model::AclEntry> KnownTrustees(const std::vector<model::AclEntry>& acl,
                                           TargetIndex& target) {
  std::vector<model::AclEntry> kept;
  for (const auto& entry : acl) {
    if (target.HasTrustee(entry.trustee_id)) kept.push_back(entry);
  }
  return kept;
}

// aclOnReplacingObjects keep_both: every entry of both sides; for a trustee on both sides the
// granted rights add up and a denied right stays denied.
std::vector<model::AclEntry> UnionAcl(std::vector<model::AclEntry> target,
                                      const std::vector<model::AclEntry>& source) {
  for (const auto& entry : source) {
    auto same = std::find_if(target.begin(), target.end(), [&](const model::AclEntry& existing) {
      return existing.trustee_id == entry.trustee_id && existing.denied == entry.denied &&
             existing.inheritable == entry.inheritable;
    });
    if (same == target.end()) {
      target.push_back(entry);
    } else {
      same->rights |= entry.rights;
    }
  }
  return target;
}

class ImportRun {
 public:
  ImportRun(storage::MetadataTransaction& tx, const PackageImportOptions& options,
            PackageRules rules, int64_t object_count)
      : tx_(tx),
        options_(options),
        rules_(std::move(rules)),
        scope_(rules_.kind == model::package::PackageKind::kProject ? options.target_project_id
                                                                    : ""),
        resolver_(rules_.settings, rules_.purpose, rules_.ListedActions()),
        target_(tx, scope_, options.scratch_dir),
        plans_(options.scratch_dir),
        pending_deletes_(options.scratch_dir),
        undone_(options.scratch_dir),
        written_(options.scratch_dir) {
    summary_.objects = object_count;
  }

  void Plan() {
    BatchReader reader(options_.package_path, scope_);
    std::unordered_map<std::string, ObjectRecord> targets;
    for (auto batch = reader.Next(tx_, targets); !batch.empty();
         batch = reader.Next(tx_, targets)) {
      Checkpoint(20, 40, reader.objects_read());
      for (const auto& object : batch) PlanObject(object, targets);
    }
  }

  void Apply() {
    if (options_.undo_path) undo_.emplace(*options_.undo_path);
    BatchReader reader(options_.package_path, scope_);
    std::unordered_map<std::string, ObjectRecord> targets;
    for (auto batch = reader.Next(tx_, targets); !batch.empty();
         batch = reader.Next(tx_, targets)) {
      Checkpoint(40, 90, reader.objects_read());
      for (auto& object : batch) ApplyObject(object, targets);
    }
    ApplyDeletes();
    SaveChangedFolders();
    CheckDependencies();
  }

  PackageImportSummary Finish() {
    if (undo_) {
      storage::package::PackageManifest manifest = options_.undo_manifest;
      manifest.kind = storage::package::PackageFileKind::kUndo;
      summary_.undo_file = undo_->WritePackage(manifest);
    }
    return summary_;
  }

  void DiscardUndo() {
    if (undo_) undo_->Discard();
  }

 private:
  void Checkpoint(int from_percent, int to_percent, int64_t objects_read) {
    if (options_.check_cancelled) options_.check_cancelled();
    if (!options_.on_progress || summary_.objects == 0) {
      if (options_.on_progress) options_.on_progress(from_percent);
      return;
    }
    options_.on_progress(from_percent + static_cast<int>((to_percent - from_percent) *
                                                         objects_read / summary_.objects));
  }

  model::package::ConflictRule RuleOf(const PackageObject& object) {
    if (object.implicit_folder || IsPredefinedFolder(object.record)) {
      return model::package::ConflictRule::kUseExisting;
    }
    return resolver_.Resolve({object.record.id, object.record.type, object.record.subtype,
                              model::package::AncestorIds(object)});
  }

  void PlanObject(const PackageObject& object,
                  const std::unordered_map<std::string, ObjectRecord>& targets) {
    auto found = targets.find(object.record.id);
    const ObjectRecord* target = found == targets.end() ? nullptr : &found->second;
    std::vector<std::string> target_chain;
    if (target) target_chain = target_.FolderChain(target->folder_id);
    model::package::ConflictClass conflict = model::package::Classify(
        target, target_chain, object.record, model::package::AncestorIds(object));
    bool source_is_newer =
        target && model::package::IsSourceNewer(object.record.modified, target->modified);
    const model::package::ConflictRule rule = RuleOf(object);
    Outcome outcome = model::package::Decide(rule, conflict, source_is_newer);
    if (rules_.kind == model::package::PackageKind::kProjectSecurity)
      CheckLinksOnly(object, outcome);
    plans_.Put(ToUpper(object.record.id), Encode(outcome));
    ++summary_.outcomes[outcome];
    ++summary_.outcomes_by_rule[{rule, outcome}];
  }

  std::optional<Outcome> PlannedOutcome(const std::string& id) const {
    auto planned = plans_.Find(ToUpper(id));
    if (!planned) return std::nullopt;
    return Decode<Outcome>(*planned);
  }

  bool IsDeleted(const std::string& id) const { return PlannedOutcome(id) == Outcome::kDelete; }

  bool HasCopies() const { return summary_.outcomes.count(Outcome::kCopyAsNew) > 0; }

  // keep_both: the id of the copy of `id`, the same in every run of the import.
  std::optional<std::string> CopyIdOf(const std::string& id) const {
    if (!HasCopies() || PlannedOutcome(id) != Outcome::kCopyAsNew) return std::nullopt;
    return DeterministicObjectId("keep_both:" + options_.import_id + ":" + ToUpper(id));
  }

  void ApplyObject(PackageObject& object,
                   const std::unordered_map<std::string, ObjectRecord>& targets) {
    auto found = targets.find(object.record.id);
    const ObjectRecord* target = found == targets.end() ? nullptr : &found->second;
    std::optional<Outcome> outcome = PlannedOutcome(object.record.id);
    if (!outcome) {
      throw Error(ErrorCode::kInternal,
                  fmt::format("object {} was not planned before it was applied", object.record.id));
    }
    switch (*outcome) {
      case Outcome::kCreate:
        WriteNew(object, /*as_copy=*/false);
        return;
      case Outcome::kCopyAsNew:
        WriteNew(object, /*as_copy=*/true);
        return;
      case Outcome::kOverwrite:
        Overwrite(object, *target);
        return;
      case Outcome::kMove:
        Update(object, *target, [&](ObjectRecord& record) {
          record.folder_id = RepointedId(object.record.folder_id);
        });
        return;
      case Outcome::kTakeAddresses:
        Update(object, *target, [&](ObjectRecord& record) {
          record.definition["addresses"] =
              object.record.definition.value("addresses", Json::array());
        });
        return;
      case Outcome::kKeep:
        if (target) Update(object, *target, [](ObjectRecord&) {});
        return;
      case Outcome::kDelete:
        pending_deletes_.Put(fmt::format("{:016}", pending_deletes_.size()), object.record.id);
        return;
      case Outcome::kNoop:
        return;
    }
  }

  std::string RepointedId(const std::string& id) const { return CopyIdOf(id).value_or(id); }

  std::string OwnerFor(const std::string& source_owner) {
    return target_.HasTrustee(source_owner) ? source_owner : options_.importing_user_id;
  }

  // The source object as it will be written: re-pointed, owned and in the target's scope.
  ObjectRecord Incoming(const PackageObject& object) {
    ObjectRecord record = object.record;
    record.project_id = scope_;
    if (HasCopies()) {
      record.definition = model::package::RepointWith(
          record.definition, [&](const std::string& upper_id) { return CopyIdOf(upper_id); });
      record.folder_id = RepointedId(record.folder_id);
    }
    record.owner_id = OwnerFor(record.owner_id);
    return record;
  }

  void RequireParent(const ObjectRecord& record) {
    if (record.folder_id.empty() || scope_.empty()) return;
    if (!target_.FolderChain(record.folder_id).empty()) return;
    throw Error(ErrorCode::kInvalidInput,
                fmt::format("The folder {} of '{}' ({}) is neither in the package nor in the "
                            "destination",
                            record.folder_id, record.name, record.id));
  }

  void WriteNew(const PackageObject& object, bool as_copy) {
    ObjectRecord record = Incoming(object);
    if (as_copy) {
      record.id = *CopyIdOf(object.record.id);
      record.version = NewObjectId();
      record.created = record.modified = Now();
    }
    RequireParent(record);
    record.name = target_.UniqueName(record.folder_id, record.type, record.name, record.id);
    if (model::package::EffectiveAclOnNew(rules_.settings) ==
        model::package::AclOnNew::kInheritAclAsDestFolder) {
      auto parent = tx_.FindObject(scope_, record.folder_id);
      record.acl = parent ? model::InheritedAcl(*parent) : std::vector<model::AclEntry>{};
    } else {
      record.acl = KnownTrustees(record.acl, target_);
    }
    if (undo_) undo_->RecordDelete(record);
    undone_.Insert(record.id);
    Write(record, /*from_source=*/true);
    changed_folders_.insert(record.folder_id);
  }

  // A project_security package changes only the links of users and groups that the destination
  // already has: their grants of roles in the target project.
  void CheckLinksOnly(const PackageObject& object, Outcome outcome) {
    if (outcome == Outcome::kOverwrite || outcome == Outcome::kKeep || outcome == Outcome::kNoop) {
      return;
    }
    bool missing = outcome == Outcome::kCreate || outcome == Outcome::kCopyAsNew;
    throw Error(ErrorCode::kInvalidInput,
                fmt::format("'{}' ({}): {}", object.record.name, object.record.id,
                            missing ? "a project security package carries only the links of "
                                      "users and groups the destination has; migrate it with a "
                                      "configuration package first"
                                    : "a project security package only replaces or keeps "
                                      "project links"));
  }

  void OverwriteLinks(const PackageObject& object, const ObjectRecord& target) {
    std::vector<std::string> roles =
        model::ProjectRoleIds(object.record.definition, rules_.source_project_id);
    for (const std::string& role : roles) {
      auto found = tx_.FindObject("", role);
      if (!found || found->type != model::kTypeSecurityRole) {
        throw Error(ErrorCode::kInvalidInput,
                    fmt::format("'{}' ({}) holds the security role {}, which the destination "
                                "does not have; migrate it with a configuration package first",
                                object.record.name, object.record.id, role));
      }
    }
    ObjectRecord record = target;
    record.definition =
        model::WithProjectRoles(target.definition, object.record.definition,
                                rules_.source_project_id, options_.target_project_id);
    if (record.definition == target.definition) return;
    record.version = NewObjectId();
    record.modified = Now();
    RecordRestore(target);
    Write(record, /*from_source=*/false);
  }

  void Overwrite(const PackageObject& object, const ObjectRecord& target) {
    if (rules_.kind == model::package::PackageKind::kProjectSecurity)
      return OverwriteLinks(object, target);
    ObjectRecord record = Incoming(object);
    RequireParent(record);
    switch (rules_.settings.acl_on_replacing) {
      case model::package::AclOnReplacing::kReplace:
        record.acl = KnownTrustees(object.record.acl, target_);
        break;
      case model::package::AclOnReplacing::kKeepBoth:
        record.acl = UnionAcl(target.acl, KnownTrustees(object.record.acl, target_));
        break;
      case model::package::AclOnReplacing::kNone:
      case model::package::AclOnReplacing::kUseExisting:
        record.acl = target.acl;
        break;
    }
    MergeTranslations(record, target, object.record);
    RecordRestore(target);
    if (record.folder_id != target.folder_id) {
      changed_folders_.insert(target.folder_id);
      changed_folders_.insert(record.folder_id);
    }
    Write(record, /*from_source=*/true);
  }

  // A partial update of the target object (move, addresses, translations): the version changes
  // only when the translations do (a save), not for a move or new addresses.
  template <typename Change>
  void Update(const PackageObject& object, const ObjectRecord& target, const Change& change) {
    ObjectRecord record = target;
    change(record);
    bool translated = MergeTranslations(record, target, object.record);
    if (translated) {
      record.version = NewObjectId();
      record.modified = Now();
    }
    if (!translated && record.folder_id == target.folder_id &&
        record.definition == target.definition) {
      return;
    }
    RecordRestore(target);
    if (record.folder_id != target.folder_id) {
      RequireParent(record);
      changed_folders_.insert(target.folder_id);
      changed_folders_.insert(record.folder_id);
    }
    Write(record, /*from_source=*/false);
  }

  // translationAction for an object on both sides; returns whether `record` changed.
  bool MergeTranslations(ObjectRecord& record, const ObjectRecord& target,
                         const ObjectRecord& source) {
    if (rules_.settings.translation_action == model::package::TranslationAction::kNotMerged)
      return false;
    auto merged = model::package::MergeTranslations(
        model::package::TranslationsOf(target.definition),
        model::package::TranslationsOf(source.definition), rules_.settings.translation_action);
    Json before = model::package::TranslationsOf(record.definition);
    if (merged.translations == before) return false;
    record.definition["translations"] = merged.translations;
    return true;
  }

  void RecordRestore(const ObjectRecord& target) {
    if (!undone_.Insert(target.id)) return;
    if (undo_) undo_->RecordRestore(target);
  }

  // `from_source`: the definition is the package's, so its uses are checked.
  void Write(const ObjectRecord& record, bool from_source) {
    tx_.PutObject(record);
    tx_.SetDependencies(scope_, record.id, model::UsedObjectIds(record));
    target_.Place(record);
    if (from_source) written_.Insert(record.id);
  }

  // In reverse file order: contents before their folders.
  void ApplyDeletes() {
    pending_deletes_.ForEach(
        [&](std::string_view, std::string_view id) {
          auto target = tx_.FindObject(scope_, std::string(id));
          if (!target) return;
          RequireUnused(*target);
          RecordRestore(*target);
          tx_.DeleteObject(scope_, target->id);
          changed_folders_.insert(target->folder_id);
        },
        storage::ScratchTable::Order::kDescending);
  }

  std::vector<std::string> NotDeleted(std::vector<std::string> ids) const {
    ids.erase(std::remove_if(ids.begin(), ids.end(),
                             [&](const std::string& id) { return IsDeleted(id); }),
              ids.end());
    return ids;
  }

  void RequireUnused(const ObjectRecord& target) {
    auto users = NotDeleted(tx_.ListUsedBy(scope_, target.id));
    if (!users.empty()) {
      throw Error(ErrorCode::kInvalidInput,
                  fmt::format("Cannot delete '{}' ({}): used by {} objects in the destination: {}",
                              target.name, target.id, users.size(), ListForMessage(users)));
    }
    if (target.type != model::kTypeFolder) return;
    std::vector<std::string> children;
    for (const auto& child : tx_.ListChildren(scope_, target.id)) children.push_back(child.id);
    children = NotDeleted(std::move(children));
    if (!children.empty()) {
      throw Error(ErrorCode::kInvalidInput,
                  fmt::format("Cannot delete the folder '{}' ({}): it holds {} objects the "
                              "package does not delete: {}",
                              target.name, target.id, children.size(), ListForMessage(children)));
    }
  }

  static std::string ListForMessage(const std::vector<std::string>& ids) {
    std::vector<std::string> shown(ids.begin(),
                                   ids.begin() + std::min(ids.size(), kMaxListedInMessage));
    return fmt::format("{}{}", fmt::join(shown, ", "), ids.size() > shown.size() ? ", ..." : "");
  }

  void SaveChangedFolders() {
    for (const auto& folder_id : changed_folders_) {
      if (folder_id.empty() || IsDeleted(folder_id)) continue;
      auto folder = tx_.FindObject(scope_, folder_id);
      if (!folder || folder->type != model::kTypeFolder) continue;
      RecordRestore(*folder);
      folder->version = NewObjectId();
      folder->modified = Now();
      tx_.PutObject(*folder);
    }
  }

  bool ChecksDependencies() const {
    if (scope_.empty()) return false;  // configuration objects keep no dependency rows
    return rules_.purpose != model::package::PackagePurpose::kProjectMerge ||
           rules_.settings.validate_dependencies;
  }

  // The written objects' uses, a batch of ids at a time, in id order.
  void CheckDependencies() {
    if (!ChecksDependencies()) return;
    int64_t dangling = 0;
    std::vector<std::string> described;
    std::vector<std::string> batch;
    auto check = [&] {
      for (const auto& use : tx_.ListDanglingUses(scope_, batch)) {
        ++dangling;
        if (described.size() < kMaxListedInMessage) {
          described.push_back(fmt::format("{} uses {}", use.object_id, use.used_id));
        }
      }
      batch.clear();
    };
    written_.ForEach([&](std::string_view id, std::string_view) {
      batch.emplace_back(id);
      if (batch.size() == kBatchSize) check();
    });
    check();
    if (dangling == 0) return;
    throw Error(ErrorCode::kInvalidInput,
                fmt::format("Missing dependencies: {} reference(s) resolve neither in the package "
                            "nor in the destination: {}{}",
                            dangling, fmt::join(described, "; "),
                            dangling > static_cast<int64_t>(described.size()) ? "; ..." : ""));
  }

  storage::MetadataTransaction& tx_;
  const PackageImportOptions& options_;
  PackageRules rules_;
  std::string scope_;
  model::package::ActionResolver resolver_;
  TargetIndex target_;
  PackageImportSummary summary_;
  // Per object of the package, on disk: a package may hold every object of a project.
  storage::ScratchTable plans_;            // upper-case id -> Outcome
  storage::ScratchTable pending_deletes_;  // file order -> id
  storage::ScratchTable undone_;           // ids the undo package already restores or deletes
  storage::ScratchTable written_;          // ids written with the package's definition
  std::set<std::string> changed_folders_;
  std::optional<UndoSpool> undo_;
};

}  // namespace

PackageImportSummary ImportPackage(storage::MetadataStore& store,
                                   const PackageImportOptions& options) {
  storage::package::PackageManifest manifest =
      storage::package::VerifyPackage(options.package_path);
  PackageRules rules = RulesOf(options.package_path, options.scratch_dir);
  if (options.on_progress) options.on_progress(20);
  struct RolledBack {};  // the end of a dry run
  std::optional<PackageImportSummary> summary;
  std::optional<ImportRun> run;
  PackageImportOptions run_options = options;
  if (options.dry_run) run_options.undo_path.reset();
  try {
    store.Write([&](storage::MetadataTransaction& tx) {
      run.emplace(tx, run_options, rules, manifest.object_count);
      if (options.in_transaction) options.in_transaction(tx);
      run->Plan();
      run->Apply();
      summary = run->Finish();
      if (options.dry_run) throw RolledBack{};
      if (options.before_commit) options.before_commit(tx, *summary);
    });
  } catch (const RolledBack&) {
  } catch (...) {
    if (run) run->DiscardUndo();
    throw;
  }
  if (options.on_progress) options.on_progress(100);
  return *summary;
}

}  // namespace tessera::service::migration
