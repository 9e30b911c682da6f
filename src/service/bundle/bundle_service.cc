#include "service/bundle/bundle_service.h"

#include <map>
#include <set>

#include "core/error.h"
#include "core/ids.h"
#include "core/strings.h"
#include "model/bundle/bundle.h"
#include "model/object_types.h"
#include "model/rights.h"
#include "model/semantic.h"
#include "model/well_known.h"
#include "service/bundle/bundle_prune.h"
#include "service/project/project_service.h"

namespace tessera::service::bundle {

namespace {

bool IsBundleType(int type) {
  switch (type) {
    case model::kTypeTable:
    case model::kTypeAttribute:
    case model::kTypeFact:
    case model::kTypeMetric:
    case model::kTypeFilter:
    case model::kTypeReportDefinition:
    case model::kTypeDocumentDefinition:
      return true;
    default:
      return false;
  }
}

// Folders of one project addressed by their path below the root ("Public Objects/Reports").
class FolderPaths {
 public:
  FolderPaths(storage::MetadataTransaction& tx, std::string project_id, std::string project_name,
              std::string owner_id)
      : tx_(tx),
        project_id_(std::move(project_id)),
        project_name_(std::move(project_name)),
        owner_id_(std::move(owner_id)) {}

  // The folder at `path`, created (with its missing parents) when absent.
  model::ObjectRecord Ensure(const std::string& path) {
    model::ObjectRecord folder = *tx_.FindObject(project_id_, std::string(model::kRootFolderId));
    std::string walked;
    for (const auto& name : Split(path, '/')) {
      if (name.empty()) continue;
      walked += (walked.empty() ? "" : "/") + name;
      folder = Child(folder, name, walked);
    }
    return folder;
  }

 private:
  model::ObjectRecord Child(const model::ObjectRecord& parent, const std::string& name,
                            const std::string& path) {
    for (auto& child : tx_.ListChildren(project_id_, parent.id)) {
      if (child.type == model::kTypeFolder && child.name == name) return child;
    }
    model::ObjectRecord folder;
    folder.project_id = project_id_;
    folder.id = DeterministicObjectId("tessera:" + project_name_ + ":8:" + path);
    folder.type = model::kTypeFolder;
    folder.subtype = model::kSubtypeFolder;
    folder.name = name;
    folder.folder_id = parent.id;
    folder.owner_id = owner_id_;
    folder.version = NewObjectId();
    folder.created = folder.modified = Now();
    folder.acl = model::InheritedAcl(parent);
    tx_.PutObject(folder);
    return folder;
  }

  storage::MetadataTransaction& tx_;
  std::string project_id_;
  std::string project_name_;
  std::string owner_id_;
};

bool SameContent(const model::ObjectRecord& a, const model::ObjectRecord& b) {
  return a.type == b.type && a.subtype == b.subtype && a.name == b.name &&
         a.description == b.description && a.folder_id == b.folder_id &&
         a.definition == b.definition;
}

std::string ResolveProject(storage::MetadataTransaction& tx, const model::bundle::Bundle& bundle,
                           const session::Principal& principal) {
  auto by_name = tx.FindProjectByName(bundle.project_name);
  if (by_name && by_name->object.id != bundle.project_id) {
    throw Error(ErrorCode::kAlreadyExists, "A different project named '" + bundle.project_name +
                                               "' already exists (id " + by_name->object.id +
                                               "; the bundle's id is " + bundle.project_id + ")");
  }
  auto project = tx.FindProject(bundle.project_id);
  if (!project) {
    project::CreateProjectInTransaction(tx, bundle.project_id, bundle.project_name,
                                        bundle.description, principal.user_id);
    project = tx.FindProject(bundle.project_id);
  }
  model::ObjectRecord& object = project->object;
  Json definition = {{"warehouse", bundle.warehouse}};
  if (object.name != bundle.project_name || object.description != bundle.description ||
      object.definition != definition) {
    object.name = bundle.project_name;
    object.description = bundle.description;
    object.definition = definition;
    object.version = NewObjectId();
    object.modified = Now();
    tx.PutProject(*project);
  }
  return bundle.project_id;
}

// The folder path of `record` below the project root.
std::string PathOf(storage::MetadataTransaction& tx, const model::ObjectRecord& record,
                   std::map<std::string, std::string>& cache) {
  if (record.folder_id.empty() || record.folder_id == model::kRootFolderId) return "";
  auto it = cache.find(record.folder_id);
  if (it != cache.end()) return it->second;
  auto folder = tx.FindObject(record.project_id, record.folder_id);
  if (!folder) return "";
  std::string parent = PathOf(tx, *folder, cache);
  std::string path = parent.empty() ? folder->name : parent + "/" + folder->name;
  cache[record.folder_id] = path;
  return path;
}

// Error(kInvalidInput) unless `warehouses` has the bundle's warehouse.
void RequireConfiguredWarehouse(const project::WarehouseRegistry& warehouses,
                                const std::string& name) {
  if (warehouses.Has(name)) return;
  const std::string shown = name.empty() ? "demo" : name;
  throw Error(
      ErrorCode::kInvalidInput,
      "The bundle's warehouse '" + shown +
          "' is not configured here; the configured warehouses are: " +
          JoinStrings(warehouses.Names(), ", ") +
          ". Name one of them in project.yaml (warehouse: NAME) or configure it ([warehouses." +
          shown + "] url = \"...\"); nothing was imported");
}

// Thrown inside the transaction of a dry run once everything is counted, so that it rolls back.
struct DryRunDone {};

ImportedObject Imported(const model::ObjectRecord& record) {
  return {record.id, KindOfObject(record.type, record.subtype), record.name};
}

// Writes the bundle's folders and objects into its project, counting them in `summary`.
void WriteObjects(storage::MetadataTransaction& tx, const model::bundle::Bundle& bundle,
                  const session::Principal& principal, ImportSummary& summary) {
  FolderPaths folders(tx, summary.project_id, bundle.project_name, principal.user_id);
  for (const auto& path : bundle.folder_paths) folders.Ensure(path);
  for (const auto& object : bundle.objects) {
    model::ObjectRecord record = object.record;
    record.project_id = summary.project_id;
    model::ObjectRecord folder = folders.Ensure(object.folder_path);
    record.folder_id = folder.id;
    auto existing = tx.FindObject(summary.project_id, record.id);
    if (existing && SameContent(*existing, record)) {
      ++summary.unchanged;
    } else {
      const Timestamp now = Now();
      record.owner_id = existing ? existing->owner_id : principal.user_id;
      record.created = existing ? existing->created : now;
      record.acl = existing ? existing->acl : model::InheritedAcl(folder);
      record.hidden = existing && existing->hidden;
      record.certified = existing && existing->certified;
      record.modified = now;
      record.version = NewObjectId();
      tx.PutObject(record);
      ++(existing ? summary.updated : summary.created);
      (existing ? summary.updated_objects : summary.created_objects).push_back(Imported(record));
    }
    tx.SetDependencies(summary.project_id, record.id, model::UsedObjectIds(record));
  }
}

}  // namespace

BundleService::BundleService(storage::MetadataStore& store,
                             const project::WarehouseRegistry* warehouses)
    : store_(store), warehouses_(warehouses) {}

ImportSummary BundleService::Import(const session::Principal& principal,
                                    const std::filesystem::path& directory,
                                    const std::string& warehouse) {
  BundleImportOptions options;
  options.warehouse = warehouse;
  return Import(principal, directory, options);
}

ImportSummary BundleService::Import(const session::Principal& principal,
                                    const std::filesystem::path& directory,
                                    const BundleImportOptions& options) {
  session::RequirePrivilege(principal, model::Privilege::kAdministerEnvironment, "");
  model::bundle::Bundle bundle = model::bundle::ReadBundle(directory);
  if (!options.warehouse.empty()) bundle.warehouse = options.warehouse;
  if (warehouses_) RequireConfiguredWarehouse(*warehouses_, bundle.warehouse);
  ImportSummary summary;
  try {
    store_.Write([&](storage::MetadataTransaction& tx) {
      summary = ImportSummary{};
      summary.project_name = bundle.project_name;
      summary.project_id = ResolveProject(tx, bundle, principal);
      WriteObjects(tx, bundle, principal, summary);
      if (options.prune) {
        std::set<std::string> kept;
        for (const auto& object : bundle.objects) kept.insert(object.record.id);
        summary.deleted_objects = PruneToBundle(tx, summary.project_id, kept);
        summary.deleted = static_cast<int>(summary.deleted_objects.size());
      }
      if (options.dry_run) throw DryRunDone{};
    });
  } catch (const DryRunDone&) {
    summary.written = false;
  }
  return summary;
}

void BundleService::Export(const session::Principal& principal, std::string_view project_id_or_name,
                           const std::filesystem::path& directory) {
  session::RequirePrivilege(principal, model::Privilege::kAdministerEnvironment, "");
  model::bundle::Bundle bundle;
  store_.Read([&](storage::MetadataTransaction& tx) {
    std::optional<storage::ProjectRecord> project;
    if (auto id = CanonicalObjectId(project_id_or_name)) project = tx.FindProject(*id);
    if (!project) project = tx.FindProjectByName(std::string(project_id_or_name));
    if (!project) {
      throw Error(ErrorCode::kNotFound,
                  "Project '" + std::string(project_id_or_name) + "' was not found");
    }
    bundle.project_name = project->object.name;
    bundle.project_id = project->object.id;
    bundle.description = project->object.description;
    bundle.warehouse = project->object.definition.value("warehouse", "");
    std::map<std::string, std::string> paths;
    std::set<std::string> predefined;
    for (const auto& spec : model::ProjectFolderTree()) {
      predefined.insert(model::PredefinedFolderId(spec.folder_type));
    }
    for (const auto& object : tx.ListObjects(project->object.id, {})) {
      if (object.type == model::kTypeFolder) {
        if (!predefined.count(object.id) && !object.definition.contains("folderType")) {
          std::string parent = PathOf(tx, object, paths);
          bundle.folder_paths.push_back(parent.empty() ? object.name : parent + "/" + object.name);
        }
        continue;
      }
      if (!IsBundleType(object.type)) continue;
      model::bundle::BundleObject entry;
      entry.record = object;
      entry.record.project_id.clear();
      entry.folder_path = PathOf(tx, object, paths);
      bundle.objects.push_back(std::move(entry));
    }
  });
  model::bundle::WriteBundle(bundle, directory);
}

}  // namespace tessera::service::bundle
