// MigrationService, import on the target: the import and undo requests, validation (a dry run
// of the import), the import and the undo, and the checks a package passes before either starts.
#include "service/migration/migration_service.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "core/error.h"
#include "core/ids.h"
#include "core/platform_version.h"
#include "core/strings.h"
#include "core/time.h"
#include "service/migration/import_outcomes.h"
#include "service/migration/migration_service_internal.h"
#include "service/migration/migration_state.h"
#include "service/migration/package_import.h"
#include "service/migration/package_undo.h"
#include "service/migration/status_sync.h"
#include "storage/package/format.h"
#include "storage/package/reader.h"

namespace tessera::service::migration {
namespace {

std::vector<model::package::ContentItem> ContentItems(const MigrationRecord& record) {
  std::vector<model::package::ContentItem> items;
  for (const auto& entry : record.package_info.toc_view.content) items.push_back(entry.item);
  return items;
}

// One import or undo runs at a time per target project.
std::string ProjectSerialKey(const std::string& project_id) { return "project:" + project_id; }

}  // namespace

// Import and undo requests

MigrationRecord MigrationService::Patch(const session::Principal& principal, const MigrationId& id,
                                        const PatchRequest& request,
                                        const std::optional<std::string>& project_id) {
  MigrationRecord result;
  std::optional<storage::JobRecord> undo_job;
  store_.Write([&](storage::MetadataTransaction& tx) {
    Loaded loaded = Load(tx, id, true);
    MigrationRecord& record = loaded.record;
    Timestamp now = Now();
    bool changed = false;
    if (request.undo_request_status) {
      RequirePackagePrivileges(principal, model::Privilege::kApplyPackage, loaded.project_id);
      bool has_undo = record.import_info.undo_storage.has_value() &&
                      std::filesystem::exists(
                          location_.Require().Resolve(record.import_info.undo_storage->path));
      changed =
          ApplyUndoRequestStatus(record, *request.undo_request_status, project_id, has_undo, now);
      if (changed && record.import_info.status == ImportStatus::kUndoing) {
        undo_job = JobFor(jobs_, kUndoJob, kTarget, id, ProjectSerialKey(loaded.project_id));
        loaded.internal["jobId"] = undo_job->id;
        tx.PutJob(*undo_job);
      }
    } else {
      if (loaded.role != kSource) {
        auto source = tx.FindMigration(kSource, FormatMigrationId(id), true);
        if (!source) {
          throw Error(ErrorCode::kInvalidInput,
                      "The import request is managed on the source environment");
        }
        loaded = {kSource, RecordFromJson(source->record), source->project_id, source->internal};
      }
      RequirePackagePrivileges(principal, model::Privilege::kCreatePackage, loaded.project_id);
      if (request.validation_status) {
        record = WithTargetStatus(location_.Require(), std::move(record));
        changed |= StartValidation(record, now);
      }
      if (request.name) changed |= Rename(record, *request.name, now);
      if (request.target_environment || request.target_project) {
        changed |= Retarget(record, request.target_environment, request.target_project, now);
      }
      if (request.import_request_status) {
        changed |= ApplyImportRequestStatus(record, *request.import_request_status, now);
      }
    }
    if (changed) Store(tx, loaded.role, record, loaded.project_id, loaded.internal);
    result = record;
  });
  if (request.undo_request_status) PublishTargetStatus(result);
  if (undo_job) jobs_.Start(*undo_job);
  return result;
}

void MigrationService::RunUndo(JobContext& context) {
  MigrationId id = ParseMigrationId(context.job().data.value("migrationId", ""));
  Loaded loaded;
  store_.Read([&](storage::MetadataTransaction& tx) { loaded = Load(tx, id, false); });
  if (!loaded.record.import_info.undo_storage) {
    throw Error(ErrorCode::kInvalidInput, "No undo package is available for this migration");
  }
  UndoOptions options;
  options.undo_path = location_.Require().Resolve(loaded.record.import_info.undo_storage->path);
  options.target_project_id = loaded.project_id;
  options.scratch_dir = options_.scratch_dir;
  MigrationRecord undone;
  options.in_transaction = [&](storage::MetadataTransaction& tx) { context.MarkDone(tx); };
  options.before_commit = [&](storage::MetadataTransaction& tx, const UndoSummary&) {
    undone = ChangeTargetRecord(
        tx, id, [](MigrationRecord& record) { MarkUndone(record, true, "", Now()); });
  };
  options.check_cancelled = [&] { context.ThrowIfCancelled(); };
  auto tracked = TrackRunning(id, options.on_progress);
  ApplyUndo(store_, options);
  PublishTargetStatus(undone);
}

// Import (target)

MigrationRecord MigrationService::Import(const session::Principal& principal,
                                         const MigrationRecord& sent,
                                         const std::optional<std::string>& project_id,
                                         bool generate_undo,
                                         const std::optional<ContentDigest>& streamed) {
  MigrationRecord record = sent;
  MigrationId id = IdOf(record);
  CheckImportable(record);
  std::string target_project = ResolveTargetProject(record, project_id);
  RequirePackagePrivileges(principal, model::Privilege::kApplyPackage, target_project);
  storage::package::PackageManifest manifest = CheckPackageFile(record);

  storage::JobRecord job = JobFor(jobs_, kImportJob, kTarget, id, ProjectSerialKey(target_project));
  store_.Write([&](storage::MetadataTransaction& tx) {
    NamedRef project;
    if (!target_project.empty()) {
      storage::ProjectRecord target = RequireProject(tx, target_project);
      CheckSchemaLineage(manifest, target);
      project = {target.object.id, target.object.name};
    }
    if (auto existing = tx.FindMigration(kTarget, FormatMigrationId(id), true)) {
      CheckNotYetImported(RecordFromJson(existing->record));
    }
    CheckNoMigrationRunningOn(tx, target_project);
    BeginImport(record, Caller(principal), options_.environment, project, Now());
    // No undo package when any rule is keep_both: the copies it makes under new ids are not in
    // the snapshot of the target an undo package is. Decided now: the stored record keeps no
    // content.
    auto settings = model::package::ParsePackageSettings(record.package_info.toc_view.settings,
                                                         record.package_info.type);
    bool keeps_both = model::package::UsesKeepBoth(settings, ContentItems(record)) ||
                      (streamed && streamed->keeps_both);
    bool undo = generate_undo && !keeps_both;
    record.package_info.toc_view.content.clear();  // the package keeps it (Store)
    Store(tx, kTarget, record, target_project, Json{{"jobId", job.id}, {"generateUndo", undo}});
    tx.PutJob(job);
  });
  PublishTargetStatus(record);
  jobs_.Start(job);
  return record;
}

std::string MigrationService::ResolveTargetProject(const MigrationRecord& record,
                                                   const std::optional<std::string>& header) {
  if (record.package_info.type == model::package::PackageKind::kConfiguration) {
    if (header) {
      throw Error(ErrorCode::kInvalidInput,
                  "A configuration package must not be imported into a project");
    }
    return "";
  }
  const std::string& body_project = record.import_info.project.id;
  if (header && !body_project.empty() && !EqualsIgnoreCase(*header, body_project)) {
    throw Error(ErrorCode::kInvalidInput,
                fmt::format("The project header {} and importInfo.project.id {} differ", *header,
                            body_project));
  }
  if (header) return *header;
  if (body_project.empty()) {
    throw Error(ErrorCode::kMissingParameter,
                "X-MSTR-ProjectID header (or importInfo.project.id) is required to import a "
                "project package");
  }
  auto canonical = CanonicalObjectId(body_project);
  if (!canonical) {
    throw Error(ErrorCode::kInvalidInput,
                fmt::format("importInfo.project.id: '{}' is not a project id", body_project));
  }
  return *canonical;
}

storage::package::PackageManifest MigrationService::CheckPackageFile(
    const MigrationRecord& record) {
  if (!record.package_info.storage || record.package_info.storage->path.empty()) {
    throw storage::package::PackageNotAccessible();
  }
  storage::package::PackageLocation location = location_.Require();
  std::filesystem::path path;
  try {
    path = location.Resolve(record.package_info.storage->path);
  } catch (const Error&) {
    throw storage::package::PackageNotAccessible();
  }
  storage::package::PackageManifest manifest =
      storage::package::CheckPackageStructure(path, record.package_info.storage->size);
  if (manifest.package_id != record.package_info.id ||
      manifest.kind != storage::package::PackageFileKind::kPackage) {
    throw storage::package::PackageCorrupt("the file holds another package");
  }
  if (ParsePlatformVersion(manifest.platform_version) >
      ParsePlatformVersion(options_.platform_version)) {
    throw Error(ErrorCode::kInvalidInput,
                fmt::format("Package created with platform {} cannot be imported into {}; only "
                            "same or newer targets are supported",
                            manifest.platform_version, options_.platform_version));
  }
  if (manifest.settings != record.package_info.toc_view.settings) {
    throw Error(ErrorCode::kInvalidInput,
                "packageInfo.tocView.settings: they differ from the settings the package was "
                "created with");
  }
  return manifest;
}

void MigrationService::CheckSchemaLineage(const storage::package::PackageManifest& manifest,
                                          const storage::ProjectRecord& target) {
  if (manifest.purpose !=
      model::package::PackagePurposeName(model::package::PackagePurpose::kObjectMigration)) {
    return;
  }
  if (SchemaIdOf(target) == manifest.source_project.schema_id) return;
  throw Error(ErrorCode::kInvalidInput,
              fmt::format("Project '{}' does not share the schema of the package's project '{}': "
                          "objects can only move between projects duplicated from one another",
                          target.object.name, manifest.source_project.name));
}

void MigrationService::CheckNoMigrationRunningOn(storage::MetadataTransaction& tx,
                                                 const std::string& project_id) {
  for (const auto& row : tx.ListMigrations()) {
    if (row.role != kTarget || row.project_id != project_id) continue;
    if (row.import_status == "importing" || row.import_status == "undoing") {
      throw Error(ErrorCode::kInvalidInput,
                  fmt::format("Another migration is running on project {}",
                              project_id.empty() ? "configuration" : project_id));
    }
  }
}

void MigrationService::RunImport(JobContext& context) {
  MigrationId id = ParseMigrationId(context.job().data.value("migrationId", ""));
  Loaded loaded;
  store_.Read([&](storage::MetadataTransaction& tx) { loaded = Load(tx, id, false); });
  const MigrationRecord& record = loaded.record;
  storage::package::PackageLocation location = location_.Require();

  PackageImportOptions options;
  options.package_path = location.Resolve(record.package_info.storage->path);
  options.target_project_id = loaded.project_id;
  options.importing_user_id = record.import_info.creator.id;
  options.import_id = id.import_id;
  options.scratch_dir = options_.scratch_dir;
  bool generate_undo = loaded.internal.value("generateUndo", true);
  std::string undo_relative =
      storage::package::UndoPackageRelativePath(id.package_id, id.import_id);
  if (generate_undo) options.undo_path = location.Resolve(undo_relative);
  storage::package::PackageManifest& undo = options.undo_manifest;
  undo.platform_version = options_.platform_version;
  undo.package_id = id.package_id;
  undo.import_id = id.import_id;
  undo.type = std::string(model::package::PackageKindName(record.package_info.type));
  undo.purpose = std::string(model::package::PackagePurposeName(record.package_info.purpose));
  undo.source_environment = {options_.environment.id, options_.environment.name};
  undo.target_project = {record.import_info.project.id, record.import_info.project.name, ""};
  undo.created_at = FormatTimestamp(Now());
  MigrationRecord imported;
  options.in_transaction = [&](storage::MetadataTransaction& tx) { context.MarkDone(tx); };
  options.before_commit = [&](storage::MetadataTransaction& tx,
                              const PackageImportSummary& summary) {
    if (options_.before_import_commit) options_.before_import_commit();
    std::optional<StoredFile> undo_storage;
    if (summary.undo_file) undo_storage = StoredFile{summary.undo_file->size_bytes, undo_relative};
    imported = ChangeTargetRecord(
        tx, id, [&](MigrationRecord& record) { MarkImported(record, undo_storage, Now()); });
  };
  options.check_cancelled = [&] { context.ThrowIfCancelled(); };
  auto tracked = TrackRunning(id, options.on_progress);
  ImportPackage(store_, options);
  PublishTargetStatus(imported);
}

// Validation (target)

void MigrationService::Validate(const session::Principal& principal, const MigrationRecord& record,
                                const std::optional<std::string>& project_id) {
  MigrationId id = IdOf(record);
  CheckValidatable(record);
  std::string target_project = ResolveTargetProject(record, project_id);
  RequirePackagePrivileges(principal, model::Privilege::kApplyPackage, target_project);
  storage::package::PackageManifest manifest = CheckPackageFile(record);
  if (!target_project.empty()) {
    store_.Read([&](storage::MetadataTransaction& tx) {
      CheckSchemaLineage(manifest, RequireProject(tx, target_project));
    });
  }
  Timestamp now = Now();
  storage::JobRecord job =
      JobFor(jobs_, kValidateJob, kTarget, id, ProjectSerialKey(target_project));
  job.data["projectId"] = target_project;
  job.data["userId"] = principal.user_id;
  job.data["record"] = ToJson(record);
  Json& toc = job.data["record"]["packageInfo"]["tocView"];
  if (toc.contains("content")) toc["content"] = Json::array();  // the package file has it
  job.data["validation"] = ToJson(Validation{ValidationStatus::kValidating, 0, "", now, now});
  store_.Write([&](storage::MetadataTransaction& tx) { tx.PutJob(job); });
  jobs_.Start(job);
}

void MigrationService::RunValidation(JobContext& context) {
  const Json& data = context.job().data;
  MigrationId id = ParseMigrationId(data.value("migrationId", ""));
  MigrationRecord record = RecordFromJson(data.at("record"));
  storage::package::PackageLocation location = location_.Require();

  PackageImportOptions options;
  options.package_path = location.Resolve(record.package_info.storage->path);
  options.target_project_id = data.value("projectId", "");
  options.importing_user_id = data.value("userId", "");
  options.import_id = id.import_id;
  options.scratch_dir = options_.scratch_dir;
  options.check_cancelled = [&] { context.ThrowIfCancelled(); };
  options.dry_run = true;
  Validation validation = ValidationFromJson(data).value_or(Validation{});
  try {
    PackageImportSummary summary = ImportPackage(store_, options);
    MarkValidationEnded(validation, true, DescribeImportOutcomes(summary), Now());
  } catch (const JobLost&) {
    throw;
  } catch (const Error& error) {
    MarkValidationEnded(validation, false, std::string(error.message()), Now());
  }
  WriteValidationStatus(location, id, validation);
  store_.Write([&](storage::MetadataTransaction& tx) { context.MarkDone(tx); });
}

}  // namespace tessera::service::migration
