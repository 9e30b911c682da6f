// MigrationService, creation on the source: creating a package, reusing a built one for another
// import, rebuilding it from an edit, and certifying it.
#include "service/migration/migration_service.h"

#include <fmt/format.h>

#include "core/error.h"
#include "core/ids.h"
#include "core/time.h"
#include "service/migration/migration_service_internal.h"
#include "service/migration/migration_state.h"
#include "service/migration/package_builder.h"
#include "service/migration/status_sync.h"
#include "storage/package/format.h"
#include "storage/package/writer.h"

namespace tessera::service::migration {
namespace {

// Configuration packages have no project; project and project_security packages have one.
bool IsConfigurationKind(model::package::PackageKind kind) {
  return kind == model::package::PackageKind::kConfiguration;
}

// Stores the described content of `request` for the source record `key`; returns its count.
int64_t StoreDescribedContent(storage::MetadataTransaction& tx, const PackageScope& scope,
                              const std::string& key, const CreateRequest& request) {
  tx.DeleteMigrationContent(kSource, key);
  if (request.purpose == model::package::PackagePurpose::kProjectMerge) return 0;
  DescribeContent(tx, scope, request.content, [&](int64_t sequence, std::string chunk) {
    tx.PutMigrationContent(kSource, key, sequence, chunk);
  });
  return request.content.size();
}

// Whether a record of the package other than `row` (a reuse of the package) names the file at
// `path`.
bool IsFileOfAnotherRecord(storage::MetadataTransaction& tx, const storage::MigrationRow& row,
                           const std::string& path) {
  for (const auto& other : tx.ListMigrationsOfPackage(row.package_id)) {
    if (other.role == row.role && other.migration_id == row.migration_id) continue;
    MigrationRecord record = RecordFromJson(other.record);
    if (record.package_info.storage && record.package_info.storage->path == path) return true;
  }
  return false;
}

// One package is created at a time per user.
std::string UserSerialKey(const session::Principal& principal) {
  return "user:" + principal.user_id;
}

}  // namespace

MigrationRecord MigrationService::Create(const session::Principal& principal,
                                         const std::optional<std::string>& project_id,
                                         const CreateRequest& request) {
  bool is_configuration = IsConfigurationKind(request.type);
  if (!is_configuration && !project_id) {
    throw Error(ErrorCode::kMissingParameter,
                "X-MSTR-ProjectID header is required for a project package");
  }
  if (is_configuration && project_id) {
    throw Error(ErrorCode::kInvalidInput,
                "A configuration package must not be created with a project");
  }
  std::string scope_project = is_configuration ? "" : project_id.value_or("");
  RequirePackagePrivileges(principal, model::Privilege::kCreatePackage, scope_project);
  location_.Require();

  Timestamp now = Now();
  MigrationRecord record;
  PackageInfo& package = record.package_info;
  package.id = NewObjectId();
  package.type = request.type;
  package.purpose = request.purpose;
  package.name =
      request.name.empty() ? "New Migration Package " + FormatTimestamp(now) : request.name;
  package.creator = Caller(principal);
  package.creation_date = package.last_updated_date = now;
  package.environment = options_.environment;
  package.toc_view.settings = model::package::ToJson(request.settings);
  package.tree_view = request.tree_view;
  ImportInfo& import = record.import_info;
  import.id = NewObjectId();
  import.creation_date = import.last_updated_date = now;
  import.environment = request.target_environment;
  import.project = is_configuration ? NamedRef{} : request.target_project;

  PackageScope scope{scope_project, request.type, request.purpose};
  storage::JobRecord job =
      JobFor(jobs_, kCreateJob, kSource, IdOf(record), UserSerialKey(principal));
  job.data["path"] = storage::package::PackageRelativePath(now, NewObjectId());
  store_.Write([&](storage::MetadataTransaction& tx) {
    if (!scope_project.empty()) {
      package.project = {scope_project, RequireProject(tx, scope_project).object.name};
    }
    int64_t content_count =
        StoreDescribedContent(tx, scope, FormatMigrationId(IdOf(record)), request);
    Store(tx, kSource, record, scope_project,
          Json{{"jobId", job.id}, {kContentCount, content_count}});
    tx.PutJob(job);
  });
  jobs_.Start(job);
  return record;
}

MigrationRecord MigrationService::Reuse(const session::Principal& principal,
                                        const std::string& package_id,
                                        const NamedRef& target_environment,
                                        const NamedRef& target_project) {
  auto canonical = CanonicalObjectId(package_id);
  if (!canonical) {
    throw Error(ErrorCode::kNotFound, fmt::format("Package '{}' was not found", package_id));
  }
  MigrationRecord reused;
  store_.Write([&](storage::MetadataTransaction& tx) {
    std::optional<storage::MigrationRow> original;
    for (const auto& row : tx.ListMigrationsOfPackage(*canonical)) {
      if (row.role == kSource) original = row;
    }
    if (!original) {
      throw Error(ErrorCode::kNotFound, fmt::format("Package '{}' was not found", *canonical));
    }
    RequirePackagePrivileges(principal, model::Privilege::kCreatePackage, original->project_id);
    MigrationRecord source = RecordFromJson(original->record);
    CheckReusable(source);
    reused = ReuseRecord(source, NewObjectId(), target_environment, target_project, Now());
    Store(tx, kSource, reused, original->project_id, original->internal);
  });
  return reused;
}

void MigrationService::RunCreation(JobContext& context) {
  MigrationId id = ParseMigrationId(context.job().data.value("migrationId", ""));
  Loaded loaded;
  store_.Read([&](storage::MetadataTransaction& tx) { loaded = Load(tx, id, false); });
  const MigrationRecord& record = loaded.record;
  PackageScope scope{loaded.project_id, record.package_info.type, record.package_info.purpose};

  storage::package::PackageLocation location = location_.Require();
  std::string relative = context.job().data.value("path", "");
  BuildOptions options;
  options.path = location.Resolve(relative);
  options.max_package_bytes = options_.max_package_bytes;
  storage::package::PackageManifest& manifest = options.manifest;
  manifest.platform_version = options_.platform_version;
  manifest.package_id = record.package_info.id;
  manifest.type = std::string(model::package::PackageKindName(record.package_info.type));
  manifest.purpose = std::string(model::package::PackagePurposeName(record.package_info.purpose));
  manifest.source_environment = {options_.environment.id, options_.environment.name};
  manifest.settings = record.package_info.toc_view.settings;
  manifest.content_count = StoredContentCount(loaded.internal);
  manifest.created_at = FormatTimestamp(Now());
  std::string key = FormatMigrationId(id);
  store_.Read([&](storage::MetadataTransaction& tx) {
    if (loaded.project_id.empty()) return;
    auto project = RequireProject(tx, loaded.project_id);
    manifest.source_project = {project.object.id, project.object.name, SchemaIdOf(project)};
  });
  options.content_entry = [&](storage::MetadataTransaction& tx, int64_t sequence) {
    return StoredContentChunk(tx, key, sequence);
  };
  auto tracked = TrackRunning(id, options.on_progress);
  options.check_cancelled = [&] { context.ThrowIfCancelled(); };

  options.scratch_dir = options_.scratch_dir;
  BuiltPackage built = BuildPackage(store_, scope, options);
  try {
    if (options_.before_creation_commit) options_.before_creation_commit();
    store_.Write([&](storage::MetadataTransaction& tx) {
      context.MarkDone(tx);
      Loaded current = Load(tx, id, true);
      tx.DeleteMigrationContent(kSource, key);  // the package keeps it
      MarkCreated(current.record, {built.file.size_bytes, relative}, Now());
      current.internal["sha256"] = built.file.sha256;
      Store(tx, kSource, current.record, current.project_id, current.internal);
    });
  } catch (...) {
    storage::package::RemoveFileQuietly(options.path);
    throw;
  }
}

MigrationRecord MigrationService::Edit(const session::Principal& principal, const MigrationId& id,
                                       const CreateRequest& request) {
  std::optional<StoredFile> replaced;
  MigrationRecord record;
  storage::JobRecord job = JobFor(jobs_, kCreateJob, kSource, id, UserSerialKey(principal));
  store_.Write([&](storage::MetadataTransaction& tx) {
    auto row = tx.FindMigration(kSource, FormatMigrationId(id), true);
    if (!row) {
      if (tx.FindMigration(kTarget, FormatMigrationId(id), false)) {
        throw Error(ErrorCode::kInvalidInput,
                    "A package can be edited only on its source environment");
      }
      throw MigrationNotFound(id);
    }
    RequirePackagePrivileges(principal, model::Privilege::kCreatePackage, row->project_id);
    record = RecordFromJson(row->record);
    if (request.type != record.package_info.type ||
        request.purpose != record.package_info.purpose) {
      throw Error(ErrorCode::kInvalidInput, "The type and purpose of a package cannot change");
    }
    replaced = record.package_info.storage;
    Timestamp now = Now();
    BeginRebuild(record, now);
    if (replaced && IsFileOfAnotherRecord(tx, *row, replaced->path)) replaced.reset();
    if (!request.name.empty()) record.package_info.name = request.name;
    record.package_info.toc_view.settings = model::package::ToJson(request.settings);
    record.package_info.tree_view = request.tree_view;
    record.package_info.warnings.clear();
    record.package_info.certification.reset();  // another package: certified again
    PackageScope scope{row->project_id, record.package_info.type, record.package_info.purpose};
    int64_t content_count = StoreDescribedContent(tx, scope, row->migration_id, request);
    job.data["path"] = storage::package::PackageRelativePath(now, NewObjectId());
    Json internal = row->internal;
    internal["jobId"] = job.id;
    internal[kContentCount] = content_count;
    internal.erase("sha256");
    Store(tx, kSource, record, row->project_id, internal);
    tx.PutJob(job);
  });
  if (replaced) RemoveUncommittedFile(replaced->path);
  jobs_.Start(job);
  return record;
}

MigrationService::Loaded MigrationService::LoadForCertifier(storage::MetadataTransaction& tx,
                                                            const session::Principal& principal,
                                                            const MigrationId& id,
                                                            bool for_update) {
  Loaded loaded = Load(tx, id, for_update);
  RequirePackagePrivileges(
      principal,
      loaded.role == kSource ? model::Privilege::kCreatePackage : model::Privilege::kApplyPackage,
      loaded.project_id);
  return loaded;
}

void MigrationService::RequireCertifier(const session::Principal& principal,
                                        const MigrationId& id) {
  store_.Read(
      [&](storage::MetadataTransaction& tx) { LoadForCertifier(tx, principal, id, false); });
}

void MigrationService::Certify(const session::Principal& principal, const MigrationId& id,
                               const CertificationChange& change) {
  MigrationRecord certified;
  store_.Write([&](storage::MetadataTransaction& tx) {
    Loaded loaded = LoadForCertifier(tx, principal, id, true);
    CertificationOperator caller{principal.user_id, principal.username, principal.full_name};
    Timestamp now = Now();
    service::migration::Certify(loaded.record, change.CompletedWith(caller, now), now);
    certified = loaded.record;
    Store(tx, loaded.role, loaded.record, loaded.project_id, loaded.internal);
  });
  if (certified.package_info.certification) {
    WriteCertificationStatus(location_.Require(), certified);
  }
}

void MigrationService::SyncCertification(const session::Principal& principal,
                                         const MigrationId& id) {
  store_.Write([&](storage::MetadataTransaction& tx) {
    Loaded loaded = LoadForCertifier(tx, principal, id, true);
    MigrationRecord& record = loaded.record;
    const auto& own = record.package_info.certification;
    auto shared = ReadCertificationStatus(location_.Require(), id);
    if (!shared || (own && shared->last_updated <= own->last_updated)) return;
    record.package_info.certification = *shared;
    Store(tx, loaded.role, record, loaded.project_id, loaded.internal);
  });
}

}  // namespace tessera::service::migration
