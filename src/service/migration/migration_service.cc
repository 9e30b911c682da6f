#include "service/migration/migration_service.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>

#include "core/error.h"
#include "core/time.h"
#include "service/migration/migration_service_internal.h"
#include "service/migration/migration_state.h"
#include "service/migration/status_sync.h"
#include "storage/package/format.h"
#include "storage/package/reader.h"

namespace tessera::service::migration {

// Shared by the files that define MigrationService (migration_service_internal.h) -------------

NamedRef Caller(const session::Principal& principal) {
  return {principal.user_id, principal.username};
}

void RequirePackagePrivileges(const session::Principal& principal, model::Privilege privilege,
                              const std::string& project_id) {
  session::RequirePrivilege(principal, privilege, project_id);
  session::RequirePrivilege(principal, model::Privilege::kBypassObjectSecurity, project_id);
}

Error MigrationNotFound(const MigrationId& id) {
  return Error(ErrorCode::kNotFound,
               fmt::format("Migration '{}' was not found", FormatMigrationId(id)));
}

std::string SchemaIdOf(const storage::ProjectRecord& project) {
  const Json& definition = project.object.definition;
  if (definition.is_object() && definition.contains("schemaId") &&
      definition["schemaId"].is_string()) {
    return definition["schemaId"].get<std::string>();
  }
  return project.object.id;
}

storage::ProjectRecord RequireProject(storage::MetadataTransaction& tx, const std::string& id) {
  auto project = tx.FindProject(id);
  if (!project) {
    throw Error(ErrorCode::kInvalidInput, fmt::format("Project '{}' does not exist", id));
  }
  return *project;
}

int64_t StoredContentCount(const Json& internal) {
  return internal.value(kContentCount, int64_t{0});
}

std::string StoredContentChunk(storage::MetadataTransaction& tx, const std::string& key,
                               int64_t sequence) {
  auto chunk = tx.FindMigrationContent(kSource, key, sequence);
  if (!chunk) {
    throw Error(ErrorCode::kInternal,
                fmt::format("migration {}: content chunk {} is missing", key, sequence));
  }
  return std::move(*chunk);
}

storage::JobRecord JobFor(JobRunner& jobs, const char* kind, const char* role,
                          const MigrationId& id, const std::string& serial_key) {
  return jobs.NewJob(kind, serial_key,
                     Json{{"role", role}, {"migrationId", FormatMigrationId(id)}});
}

namespace {

void RequireReader(const session::Principal& principal) {
  if (principal.HasPrivilegeAnywhere(model::Privilege::kCreatePackage) ||
      principal.HasPrivilegeAnywhere(model::Privilege::kApplyPackage)) {
    return;
  }
  session::RequirePrivilege(principal, model::Privilege::kCreatePackage, "");
}

Json StoredContentList(storage::MetadataTransaction& tx, const std::string& key, int64_t count) {
  Json list = Json::array();
  for (int64_t sequence = 1; sequence <= storage::package::ContentEntryCount(count); ++sequence) {
    for (auto& item : ParseJson(StoredContentChunk(tx, key, sequence))) {
      list.push_back(std::move(item));
    }
  }
  return list;
}

void WithContentList(MigrationRecord& record, Json list) {
  Json full = ToJson(record);
  full["packageInfo"]["tocView"]["content"] = std::move(list);
  record = RecordFromJson(full);
}

}  // namespace

MigrationService::MigrationService(storage::MetadataStore& store, JobRunner& jobs,
                                   StorageLocationService& location,
                                   MigrationServiceOptions options)
    : store_(store), jobs_(jobs), location_(location), options_(std::move(options)) {}

void MigrationService::RegisterJobs() {
  auto fail = [this](storage::MetadataTransaction& tx, const storage::JobRecord& job,
                     const std::string& reason) { FailJob(tx, job, reason); };
  // While an import or undo waits or runs, the source sees its status file touched (also while
  // its transaction is open: the import is all that transaction).
  auto touch = [this](const storage::JobRecord& job) {
    if (job.data.value("role", "") != kTarget) return;
    TouchImportStatus(location_.Require(), ParseMigrationId(job.data.value("migrationId", "")));
  };
  jobs_.RegisterKind(kCreateJob, {[this](JobContext& c) { RunCreation(c); }, fail, nullptr});
  jobs_.RegisterKind(kImportJob, {[this](JobContext& c) { RunImport(c); }, fail, touch});
  jobs_.RegisterKind(kUndoJob, {[this](JobContext& c) { RunUndo(c); }, fail, touch});
  jobs_.RegisterKind(kValidateJob, {[this](JobContext& c) { RunValidation(c); }, fail, nullptr});
}

// Records

MigrationService::Loaded MigrationService::Load(storage::MetadataTransaction& tx,
                                                const MigrationId& id, bool for_update) {
  std::string key = FormatMigrationId(id);
  for (const char* role : {kTarget, kSource}) {
    if (auto row = tx.FindMigration(role, key, for_update)) {
      return {role, RecordFromJson(row->record), row->project_id, row->internal};
    }
  }
  throw MigrationNotFound(id);
}

void MigrationService::Store(storage::MetadataTransaction& tx, const std::string& role,
                             const MigrationRecord& record, const std::string& project_id,
                             const Json& internal) {
  storage::MigrationRow row;
  row.role = role;
  row.migration_id = FormatMigrationId(IdOf(record));
  row.package_id = record.package_info.id;
  row.purpose = std::string(model::package::PackagePurposeName(record.package_info.purpose));
  row.project_id = project_id;
  row.package_status = std::string(PackageStatusName(record.package_info.status));
  row.import_status = std::string(ImportStatusName(record.import_info.status));
  row.record = ToJson(record);
  if (record.package_info.storage) {  // the package file's manifest keeps the content (Get)
    Json& toc = row.record["packageInfo"]["tocView"];
    if (toc.contains("content")) toc["content"] = Json::array();
  }
  row.internal = internal;
  row.created = record.package_info.creation_date;
  row.updated = Now();
  tx.PutMigration(row);
}

MigrationRecord MigrationService::ChangeTargetRecord(
    storage::MetadataTransaction& tx, const MigrationId& id,
    const std::function<void(MigrationRecord&)>& change) {
  Loaded current = Load(tx, id, true);
  change(current.record);
  Store(tx, kTarget, current.record, current.project_id, current.internal);
  return current.record;
}

// Jobs

std::shared_ptr<void> MigrationService::TrackRunning(const MigrationId& id,
                                                     std::function<void(int)>& on_progress) {
  std::string key = FormatMigrationId(id);
  on_progress = [this, key](int percent) {
    std::lock_guard lock(running_mutex_);
    running_progress_[key] = std::min(percent, 99);
  };
  return std::shared_ptr<void>(nullptr, [this, key](void*) {
    std::lock_guard lock(running_mutex_);
    running_progress_.erase(key);
  });
}

void MigrationService::ShowRunningProgress(MigrationRecord& record) {
  std::lock_guard lock(running_mutex_);
  auto running = running_progress_.find(FormatMigrationId(IdOf(record)));
  if (running == running_progress_.end()) return;
  // Between a job's commit and the end of its tracking the stored record already says how it
  // ended; only a record still running shows the running figure.
  if (record.package_info.status == PackageStatus::kCreating) {
    record.package_info.progress = running->second;
  } else if (record.import_info.status == ImportStatus::kImporting ||
             record.import_info.status == ImportStatus::kUndoing) {
    record.import_info.progress = running->second;
  }
}

void MigrationService::FailJob(storage::MetadataTransaction& tx, const storage::JobRecord& job,
                               const std::string& reason) {
  if (job.kind == kValidateJob) {
    Validation failed = ValidationFromJson(job.data).value_or(Validation{});
    MarkValidationEnded(failed, false, reason, Now());
    try {
      WriteValidationStatus(location_.Require(),
                            ParseMigrationId(job.data.value("migrationId", "")), failed);
    } catch (const Error& error) {
      spdlog::warn("the failed validation of {} cannot be reported: {}",
                   job.data.value("migrationId", ""), error.message());
    }
    return;
  }
  std::string role = job.data.value("role", "");
  auto row = tx.FindMigration(role, job.data.value("migrationId", ""), true);
  if (!row) return;
  MigrationRecord record = RecordFromJson(row->record);
  Timestamp now = Now();
  if (job.kind == kCreateJob) {
    MarkCreateFailed(record, reason, now);
    RemoveUncommittedFile(job.data.value("path", ""));
  } else if (job.kind == kImportJob) {
    MarkImportFailed(record, reason, now);
    MigrationId id = IdOf(record);
    RemoveUncommittedUndo(storage::package::UndoPackageRelativePath(id.package_id, id.import_id));
  } else if (job.kind == kUndoJob) {
    MarkUndone(record, false, reason, now);
  }
  Store(tx, role, record, row->project_id, row->internal);
  if (role == kTarget) PublishTargetStatus(record);
}

void MigrationService::PublishTargetStatus(const MigrationRecord& record) {
  try {
    WriteImportStatus(location_.Require(), record);
  } catch (const Error& error) {
    spdlog::warn("migration {}: the import status cannot be shared with the source: {}",
                 FormatMigrationId(IdOf(record)), error.message());
  }
}

// Reading

MigrationRecord MigrationService::Get(const session::Principal& principal, const MigrationId& id,
                                      bool with_content) {
  RequireReader(principal);
  Loaded loaded;
  store_.Read([&](storage::MetadataTransaction& tx) {
    loaded = Load(tx, id, false);
    int64_t count = StoredContentCount(loaded.internal);
    if (with_content && !loaded.record.package_info.storage && loaded.role == kSource && count) {
      WithContentList(loaded.record, StoredContentList(tx, FormatMigrationId(id), count));
    }
  });
  ShowRunningProgress(loaded.record);
  if (with_content) ShowContentFromPackage(loaded.record);
  if (loaded.role != kSource) return loaded.record;
  return WithTargetStatusIfReadable(std::move(loaded.record));
}

MigrationRecord MigrationService::WithTargetStatusIfReadable(MigrationRecord record) const {
  try {
    return WithTargetStatus(location_.Require(), std::move(record), options_.target_silence);
  } catch (const Error& error) {  // the location is gone: show what this side knows
    spdlog::warn("migration {}: the target's status cannot be read: {}",
                 FormatMigrationId(IdOf(record)), error.message());
    return record;
  }
}

namespace {

// The package file of `package`, opened for reading and checked to be that package's.
std::unique_ptr<storage::package::PackageReader> OpenPackageOf(
    const storage::package::PackageLocation& location, const PackageInfo& package) {
  std::filesystem::path path = location.Resolve(package.storage->path);
  storage::package::CheckPackageStructure(path, package.storage->size);
  auto reader = std::make_unique<storage::package::PackageReader>(path);
  if (reader->manifest().package_id != package.id) {
    throw storage::package::PackageCorrupt("another package");
  }
  return reader;
}

// Appends the items of `chunk` (JSON array text) to the array text `list`, as records show them.
void AppendShownItems(std::string_view chunk, std::string& list) {
  Json items = ParseJson(chunk);
  if (!items.is_array()) throw storage::package::PackageCorrupt("a content entry is not an array");
  for (const Json& item : items) {
    list += list.size() > 1 ? "," : "";
    list += DumpJson(ShownContentItem(item));
  }
}

}  // namespace

void MigrationService::ShowContentFromPackage(MigrationRecord& record) {
  const PackageInfo& package = record.package_info;
  if (!package.storage || package.purpose == model::package::PackagePurpose::kProjectMerge ||
      !package.toc_view.content.empty()) {
    return;
  }
  try {
    auto reader = OpenPackageOf(location_.Require(), package);
    WithContentList(record, storage::package::ReadContentList(*reader));
  } catch (const Error& error) {
    spdlog::warn("migration {}: the content list cannot be read from its package: {}",
                 FormatMigrationId(IdOf(record)), error.message());
  }
}

std::string MigrationService::ContentListText(const session::Principal& principal,
                                              const MigrationId& id) {
  RequireReader(principal);
  Loaded loaded;
  std::string list = "[";
  store_.Read([&](storage::MetadataTransaction& tx) {
    loaded = Load(tx, id, false);
    int64_t count = StoredContentCount(loaded.internal);
    if (loaded.record.package_info.storage || loaded.role != kSource) return;
    for (int64_t sequence = 1; sequence <= storage::package::ContentEntryCount(count); ++sequence) {
      AppendShownItems(StoredContentChunk(tx, FormatMigrationId(id), sequence), list);
    }
  });
  const PackageInfo& package = loaded.record.package_info;
  if (package.storage && package.purpose != model::package::PackagePurpose::kProjectMerge) {
    try {
      auto reader = OpenPackageOf(location_.Require(), package);
      std::string chunk;
      while (reader->NextContent(chunk)) AppendShownItems(chunk, list);
    } catch (const Error& error) {
      spdlog::warn("migration {}: the content list cannot be read from its package: {}",
                   FormatMigrationId(id), error.message());
      list = "[";
    }
  }
  return list + "]";
}

MigrationPage MigrationService::List(const session::Principal& principal,
                                     const std::vector<model::package::PackagePurpose>& purposes,
                                     int64_t offset, int64_t limit) {
  RequireReader(principal);
  std::vector<storage::MigrationRow> rows;
  store_.Read([&](storage::MetadataTransaction& tx) { rows = tx.ListMigrations(); });
  std::vector<model::package::PackagePurpose> wanted = purposes;
  if (wanted.empty()) wanted.push_back(model::package::PackagePurpose::kObjectMigration);
  // Between two projects of one server a migration has both rows: the target's is shown.
  std::map<std::string, const storage::MigrationRow*> shown;
  std::vector<std::string> order;
  for (const auto& row : rows) {
    auto [it, inserted] = shown.emplace(row.migration_id, &row);
    if (inserted) {
      order.push_back(row.migration_id);
    } else if (row.role == kTarget) {
      it->second = &row;
    }
  }
  MigrationPage page;
  for (const auto& migration_id : order) {
    const storage::MigrationRow& row = *shown[migration_id];
    MigrationRecord record = RecordFromJson(row.record);
    if (std::find(wanted.begin(), wanted.end(), record.package_info.purpose) == wanted.end()) {
      continue;
    }
    if (page.total >= offset && static_cast<int64_t>(page.records.size()) < limit) {
      if (row.role == kSource) record = WithTargetStatusIfReadable(std::move(record));
      page.records.push_back(std::move(record));
    }
    ++page.total;
  }
  return page;
}

}  // namespace tessera::service::migration
