// MigrationService and the package files in the storage location: deleting a package's records
// with their files, removing what a failed job left, downloading a created package, and
// importing a package file uploaded to the shared file store.
#include "service/migration/migration_service.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "core/error.h"
#include "core/ids.h"
#include "core/time.h"
#include "service/migration/migration_service_internal.h"
#include "service/migration/migration_state.h"
#include "service/migration/status_sync.h"
#include "service/migration/undo_spool.h"
#include "storage/package/format.h"
#include "storage/package/reader.h"

namespace tessera::service::migration {
namespace {

// A download name safe in a header and on any file system.
std::string DownloadName(const PackageInfo& package) {
  std::string name = package.name.empty() ? package.id : package.name;
  for (char& c : name) {
    bool safe = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                c == '-' || c == '_' || c == '.';
    if (!safe) c = '_';
  }
  return name + ".mmp";
}

}  // namespace

// Deletion (each side)

void MigrationService::Delete(const session::Principal& principal, const std::string& package_id) {
  auto canonical = CanonicalObjectId(package_id);
  auto nothing = [&] {
    return Error(ErrorCode::kNothingToDelete,
                 fmt::format("Package '{}' does not exist or is already deleted", package_id));
  };
  if (!canonical) throw nothing();
  std::vector<std::filesystem::path> files;
  store_.Write([&](storage::MetadataTransaction& tx) {
    auto rows = tx.ListMigrationsOfPackage(*canonical);
    if (rows.empty()) throw nothing();
    for (const auto& row : rows) {
      MigrationRecord record = RecordFromJson(row.record);
      // The target may have finished what this side still shows as running.
      if (row.role == kSource) record = WithTargetStatusIfReadable(std::move(record));
      CheckDeletable(record);
      session::RequirePrivilege(
          principal,
          row.role == kSource ? model::Privilege::kCreatePackage : model::Privilege::kApplyPackage,
          row.project_id);
      const auto& stored =
          row.role == kSource ? record.package_info.storage : record.import_info.undo_storage;
      if (stored) files.push_back(stored->path);
      tx.DeleteMigration(row.role, row.migration_id);
    }
  });
  try {
    storage::package::PackageLocation location = location_.Require();
    for (const auto& file : files)
      storage::package::RemoveFileQuietly(location.Resolve(file.string()));
  } catch (const Error& error) {
    spdlog::warn("package {} deleted; its files stay: {}", *canonical, error.message());
  }
}

void MigrationService::RemoveUncommittedFile(const std::string& relative_path) {
  if (relative_path.empty()) return;
  try {
    storage::package::RemovePackageFileQuietly(location_.Require().Resolve(relative_path));
  } catch (const Error& error) {
    spdlog::warn("the file {} of a failed job stays: {}", relative_path, error.message());
  }
}

void MigrationService::RemoveUncommittedUndo(const std::string& relative_path) {
  try {
    UndoSpool::RemoveFiles(location_.Require().Resolve(relative_path));
  } catch (const Error& error) {
    spdlog::warn("the undo files {} of a failed import stay: {}", relative_path, error.message());
  }
}

MigrationRecord MigrationService::ImportSharedFile(const session::Principal& principal,
                                                   const std::optional<std::string>& project_id,
                                                   const SharedFileImportRequest& request) {
  const std::string& file_id = request.file_id;
  std::optional<storage::SharedFileRecord> file;
  store_.Read([&](storage::MetadataTransaction& tx) { file = tx.FindSharedFile(file_id); });
  if (!file) {
    throw Error(ErrorCode::kInvalidInput, fmt::format("Shared file '{}' was not found", file_id));
  }
  if (!file->data.value("existing", false)) {
    throw Error(ErrorCode::kInvalidInput,
                fmt::format("Shared file '{}' has no content yet: upload it first", file_id));
  }
  StoredFile stored{file->data.value("size", int64_t{0}), file->data.value("path", "")};
  std::filesystem::path path = location_.Require().Resolve(stored.path);
  storage::package::CheckPackageStructure(path, stored.size);
  storage::package::PackageReader reader(path);
  const storage::package::PackageManifest& manifest = reader.manifest();

  Timestamp now = Now();
  MigrationRecord record;
  PackageInfo& package = record.package_info;
  package.id = manifest.package_id;
  package.replicated = true;
  package.type = model::package::ParsePackageKind(manifest.type, "manifest.type");
  package.purpose = model::package::PackagePurpose::kMigrationFromSharedFileStore;
  package.name = file->data.value("name", "");
  package.creator = Caller(principal);
  package.creation_date = package.last_updated_date = now;
  package.environment = {manifest.source_environment.id, manifest.source_environment.name};
  package.storage = stored;
  package.project = {manifest.source_project.id, manifest.source_project.name};
  package.status = PackageStatus::kLocked;
  package.progress = 100;
  package.existing = true;
  package.toc_view.settings = manifest.settings;
  ImportInfo& import = record.import_info;
  import.id = NewObjectId();
  import.creation_date = import.last_updated_date = now;
  import.environment = request.target_environment;
  if (import.environment.empty()) import.environment = options_.environment;
  import.project = request.target_project;
  import.import_request_status = RequestStatus::kApproved;
  ContentDigest content;  // the package's list, read entry by entry
  storage::package::ForEachContentEntry(reader, [&](Json entry) {
    for (const auto& item : model::package::ParseContent(entry, "content")) {
      ++content.items;
      content.keeps_both |= item.action == model::package::ConflictRule::kKeepBoth;
    }
  });
  // Read back as a client's import body is read: the manifest's ids and settings are checked and
  // normalised like any others.
  MigrationRecord sent = RecordFromJson(ToJson(record));
  RequireMigrationId(sent, IdOf(record));
  return Import(principal, sent, project_id, /*generate_undo=*/true, content);
}

MigrationService::PackageDownload MigrationService::Download(const session::Principal& principal,
                                                             const std::string& package_id) {
  auto not_found = [&] {
    return Error(ErrorCode::kNotFound, fmt::format("Package '{}' was not found", package_id));
  };
  auto canonical = CanonicalObjectId(package_id);
  if (!canonical) throw not_found();
  std::vector<storage::MigrationRow> rows;
  store_.Read(
      [&](storage::MetadataTransaction& tx) { rows = tx.ListMigrationsOfPackage(*canonical); });
  if (rows.empty()) throw not_found();
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return a.role == kSource && b.role != kSource;
  });
  const storage::MigrationRow& row = rows.front();
  session::RequirePrivilege(
      principal,
      row.role == kSource ? model::Privilege::kCreatePackage : model::Privilege::kApplyPackage,
      row.project_id);
  MigrationRecord record = RecordFromJson(row.record);
  if (!record.package_info.storage || record.package_info.deleted) {
    throw Error(ErrorCode::kInvalidInput, "The package is not in status created");
  }
  std::filesystem::path file = location_.Require().Resolve(record.package_info.storage->path);
  std::error_code error;
  if (!std::filesystem::is_regular_file(file, error))
    throw storage::package::PackageNotAccessible();
  return {file, DownloadName(record.package_info)};
}

}  // namespace tessera::service::migration
