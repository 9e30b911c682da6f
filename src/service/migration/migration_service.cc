#include "service/migration/migration_service.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>

#include "core/error.h"
#include "core/ids.h"
#include "core/platform_version.h"
#include "core/strings.h"
#include "core/time.h"
#include "service/migration/import_outcomes.h"
#include "service/migration/migration_state.h"
#include "service/migration/package_builder.h"
#include "service/migration/package_import.h"
#include "service/migration/package_undo.h"
#include "service/migration/status_sync.h"
#include "service/migration/undo_spool.h"
#include "storage/package_format.h"
#include "storage/package_reader.h"
#include "storage/package_writer.h"

namespace tessera::service::migration {
namespace {

constexpr char kSource[] = "source";
constexpr char kTarget[] = "target";
constexpr char kCreateJob[] = "create_package";
constexpr char kImportJob[] = "import_package";
constexpr char kUndoJob[] = "undo_package";
constexpr char kValidateJob[] = "validate_package";

NamedRef Caller(const Principal& principal) { return {principal.user_id, principal.username}; }

// spec 04 §3.3: each side's work needs its package privilege and Bypass all object security.
void RequirePackagePrivileges(const Principal& principal, model::Privilege privilege,
                              const std::string& project_id) {
  RequirePrivilege(principal, privilege, project_id);
  RequirePrivilege(principal, model::Privilege::kBypassObjectSecurity, project_id);
}

void RequireReader(const Principal& principal) {
  if (principal.HasPrivilegeAnywhere(model::Privilege::kCreatePackage) ||
      principal.HasPrivilegeAnywhere(model::Privilege::kApplyPackage)) {
    return;
  }
  RequirePrivilege(principal, model::Privilege::kCreatePackage, "");
}

Error MigrationNotFound(const MigrationId& id) {
  return Error(ErrorCode::kNotFound,
               fmt::format("Migration '{}' was not found", FormatMigrationId(id)));
}

// Configuration packages have no project; project and project_security packages have one.
bool IsConfiguration(model::package::PackageKind kind) {
  return kind == model::package::PackageKind::kConfiguration;
}

// Projects related by duplication share a schema (spec 04 §4.9, §6.1).
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

std::vector<model::package::ContentItem> ContentItems(const MigrationRecord& record) {
  std::vector<model::package::ContentItem> items;
  for (const auto& entry : record.package_info.toc_view.content) items.push_back(entry.item);
  return items;
}

// The content list of a package being created is stored in chunks beside its record (the
// package file keeps it once built); the record's internal data counts its items.
constexpr char kContentCount[] = "contentCount";

int64_t StoredContentCount(const Json& internal) {
  return internal.value(kContentCount, int64_t{0});
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

std::string StoredContentChunk(storage::MetadataTransaction& tx, const std::string& key,
                               int64_t sequence) {
  auto chunk = tx.FindMigrationContent(kSource, key, sequence);
  if (!chunk) {
    throw Error(ErrorCode::kInternal,
                fmt::format("migration {}: content chunk {} is missing", key, sequence));
  }
  return std::move(*chunk);
}

Json StoredContentList(storage::MetadataTransaction& tx, const std::string& key, int64_t count) {
  Json list = Json::array();
  for (int64_t sequence = 1; sequence <= storage::ContentEntryCount(count); ++sequence) {
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

storage::JobRecord JobFor(JobRunner& jobs, const char* kind, const char* role,
                          const MigrationId& id, const std::string& serial_key) {
  return jobs.NewJob(kind, serial_key,
                     Json{{"role", role}, {"migrationId", FormatMigrationId(id)}});
}

std::string SharedFileIdIn(const Json& body) {
  const Json* node = &body;
  for (const char* key : {"packageInfo", "storage", "sharedFileStore", "files"}) {
    if (!node->is_object() || !node->contains(key) || !(*node)[key].is_object()) {
      throw Error(ErrorCode::kMissingField,
                  "packageInfo.storage.sharedFileStore.files.id: the uploaded file is required");
    }
    node = &(*node)[key];
  }
  return RequiredString(*node, "id", "packageInfo.storage.sharedFileStore.files.id");
}

NamedRef NamedRefAt(const Json& body, const char* part, const char* key) {
  if (!body.contains(part) || !body[part].is_object()) return {};
  const Json& holder = body[part];
  if (!holder.contains(key) || !holder[key].is_object()) return {};
  return {holder[key].value("id", ""), holder[key].value("name", "")};
}

// Whether a record of the package other than `row` (a reuse, T15) names the file at `path`.
bool IsFileOfAnotherRecord(storage::MetadataTransaction& tx, const storage::MigrationRow& row,
                           const std::string& path) {
  for (const auto& other : tx.ListMigrationsOfPackage(row.package_id)) {
    if (other.role == row.role && other.migration_id == row.migration_id) continue;
    MigrationRecord record = RecordFromJson(other.record);
    if (record.package_info.storage && record.package_info.storage->path == path) return true;
  }
  return false;
}

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

// One package created or imported at a time per user; one import or undo per target project
// (spec 04 §8).
std::string UserSerialKey(const Principal& principal) { return "user:" + principal.user_id; }
std::string ProjectSerialKey(const std::string& project_id) { return "project:" + project_id; }

}  // namespace

struct MigrationService::Loaded {
  std::string role;
  MigrationRecord record;
  std::string project_id;
  Json internal;
};

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

// Creation (source)

MigrationRecord MigrationService::Create(const Principal& principal,
                                         const std::optional<std::string>& project_id,
                                         const CreateRequest& request) {
  bool is_configuration = IsConfiguration(request.type);
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
  job.data["path"] = storage::PackageRelativePath(now, NewObjectId());
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

MigrationRecord MigrationService::Reuse(const Principal& principal, const std::string& package_id,
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

  storage::PackageLocation location = location_.Require();
  std::string relative = context.job().data.value("path", "");
  BuildOptions options;
  options.path = location.Resolve(relative);
  options.max_package_bytes = options_.max_package_bytes;
  storage::PackageManifest& manifest = options.manifest;
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
    storage::RemoveFileQuietly(options.path);
    throw;
  }
}

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
    RemoveUncommittedUndo(storage::UndoPackageRelativePath(id.package_id, id.import_id));
  } else if (job.kind == kUndoJob) {
    MarkUndone(record, false, reason, now);
  }
  Store(tx, role, record, row->project_id, row->internal);
  if (role == kTarget) PublishTargetStatus(record);
}

void MigrationService::RemoveUncommittedFile(const std::string& relative_path) {
  if (relative_path.empty()) return;
  try {
    storage::RemovePackageFileQuietly(location_.Require().Resolve(relative_path));
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

void MigrationService::PublishTargetStatus(const MigrationRecord& record) {
  try {
    WriteImportStatus(location_.Require(), record);
  } catch (const Error& error) {
    spdlog::warn("migration {}: the import status cannot be shared with the source: {}",
                 FormatMigrationId(IdOf(record)), error.message());
  }
}

// Reading

MigrationRecord MigrationService::Get(const Principal& principal, const MigrationId& id,
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
std::unique_ptr<storage::PackageReader> OpenPackageOf(const storage::PackageLocation& location,
                                                      const PackageInfo& package) {
  std::filesystem::path path = location.Resolve(package.storage->path);
  storage::CheckPackageStructure(path, package.storage->size);
  auto reader = std::make_unique<storage::PackageReader>(path);
  if (reader->manifest().package_id != package.id) {
    throw storage::PackageCorrupt("another package");
  }
  return reader;
}

// Appends the items of `chunk` (JSON array text) to the array text `list`, as records show them.
void AppendShownItems(std::string_view chunk, std::string& list) {
  Json items = ParseJson(chunk);
  if (!items.is_array()) throw storage::PackageCorrupt("a content entry is not an array");
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
    WithContentList(record, storage::ReadContentList(*reader));
  } catch (const Error& error) {
    spdlog::warn("migration {}: the content list cannot be read from its package: {}",
                 FormatMigrationId(IdOf(record)), error.message());
  }
}

std::string MigrationService::ContentListText(const Principal& principal, const MigrationId& id) {
  RequireReader(principal);
  Loaded loaded;
  std::string list = "[";
  store_.Read([&](storage::MetadataTransaction& tx) {
    loaded = Load(tx, id, false);
    int64_t count = StoredContentCount(loaded.internal);
    if (loaded.record.package_info.storage || loaded.role != kSource) return;
    for (int64_t sequence = 1; sequence <= storage::ContentEntryCount(count); ++sequence) {
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

MigrationPage MigrationService::List(const Principal& principal,
                                     const std::vector<model::package::PackagePurpose>& purposes,
                                     int64_t offset, int64_t limit) {
  RequireReader(principal);
  std::vector<storage::MigrationRow> rows;
  store_.Read([&](storage::MetadataTransaction& tx) { rows = tx.ListMigrations(); });
  std::vector<model::package::PackagePurpose> wanted = purposes;
  if (wanted.empty()) wanted.push_back(model::package::PackagePurpose::kObjectMigration);
  std::map<std::string, const storage::MigrationRow*> shown;  // the target row wins (§3.1)
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

// Requests (source) and undo (target)

MigrationRecord MigrationService::Patch(const Principal& principal, const MigrationId& id,
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
    Loaded current = Load(tx, id, true);
    MarkUndone(current.record, true, "", Now());
    Store(tx, kTarget, current.record, current.project_id, current.internal);
    undone = current.record;
  };
  options.check_cancelled = [&] { context.ThrowIfCancelled(); };
  auto tracked = TrackRunning(id, options.on_progress);
  ApplyUndo(store_, options);
  PublishTargetStatus(undone);
}

// Import (target)

MigrationRecord MigrationService::Import(const Principal& principal, const MigrationId& id,
                                         const Json& body,
                                         const std::optional<std::string>& project_id,
                                         bool generate_undo,
                                         const std::optional<ContentDigest>& streamed) {
  MigrationRecord record = ParseImportBody(body, id);
  CheckImportable(record);
  std::string target_project = ResolveTargetProject(record, project_id);
  RequirePackagePrivileges(principal, model::Privilege::kApplyPackage, target_project);
  storage::PackageManifest manifest = CheckPackageFile(record);

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
    // §5.1: no undo package after keep_both. Decided now: the stored record keeps no content.
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

storage::PackageManifest MigrationService::CheckPackageFile(const MigrationRecord& record) {
  if (!record.package_info.storage || record.package_info.storage->path.empty()) {
    throw storage::PackageNotAccessible();
  }
  storage::PackageLocation location = location_.Require();
  std::filesystem::path path;
  try {
    path = location.Resolve(record.package_info.storage->path);
  } catch (const Error&) {
    throw storage::PackageNotAccessible();
  }
  storage::PackageManifest manifest =
      storage::CheckPackageStructure(path, record.package_info.storage->size);
  if (manifest.package_id != record.package_info.id ||
      manifest.kind != storage::PackageFileKind::kPackage) {
    throw storage::PackageCorrupt("the file holds another package");
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

void MigrationService::CheckSchemaLineage(const storage::PackageManifest& manifest,
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
  storage::PackageLocation location = location_.Require();

  PackageImportOptions options;
  options.package_path = location.Resolve(record.package_info.storage->path);
  options.target_project_id = loaded.project_id;
  options.importing_user_id = record.import_info.creator.id;
  options.import_id = id.import_id;
  options.scratch_dir = options_.scratch_dir;
  bool generate_undo = loaded.internal.value("generateUndo", true);
  std::string undo_relative = storage::UndoPackageRelativePath(id.package_id, id.import_id);
  if (generate_undo) options.undo_path = location.Resolve(undo_relative);
  storage::PackageManifest& undo = options.undo_manifest;
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
    Loaded current = Load(tx, id, true);
    std::optional<StoredFile> undo_storage;
    if (summary.undo_file) undo_storage = StoredFile{summary.undo_file->size_bytes, undo_relative};
    MarkImported(current.record, undo_storage, Now());
    Store(tx, kTarget, current.record, current.project_id, current.internal);
    imported = current.record;
  };
  options.check_cancelled = [&] { context.ThrowIfCancelled(); };
  auto tracked = TrackRunning(id, options.on_progress);
  ImportPackage(store_, options);
  PublishTargetStatus(imported);
}

// Validation (target)

void MigrationService::Validate(const Principal& principal, const MigrationId& id, const Json& body,
                                const std::optional<std::string>& project_id) {
  MigrationRecord record = ParseValidationBody(body, id);
  CheckValidatable(record);
  std::string target_project = ResolveTargetProject(record, project_id);
  RequirePackagePrivileges(principal, model::Privilege::kApplyPackage, target_project);
  storage::PackageManifest manifest = CheckPackageFile(record);
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
  storage::PackageLocation location = location_.Require();

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

// Deletion (each side)

void MigrationService::Delete(const Principal& principal, const std::string& package_id) {
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
      RequirePrivilege(
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
    storage::PackageLocation location = location_.Require();
    for (const auto& file : files) storage::RemoveFileQuietly(location.Resolve(file.string()));
  } catch (const Error& error) {
    spdlog::warn("package {} deleted; its files stay: {}", *canonical, error.message());
  }
}

// Edit and certification (spec 04 §1.10)

MigrationRecord MigrationService::Edit(const Principal& principal, const MigrationId& id,
                                       const Json& body) {
  Json wrapped = body.is_object() && body.contains("packageInfo")
                     ? body
                     : Json{{"packageInfo", body}, {"importInfo", Json::object()}};
  CreateRequest request = ParseCreateBody(wrapped);
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
    job.data["path"] = storage::PackageRelativePath(now, NewObjectId());
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

void MigrationService::Certify(const Principal& principal, const MigrationId& id, const Json& body,
                               bool auto_sync) {
  MigrationRecord certified;
  store_.Write([&](storage::MetadataTransaction& tx) {
    Loaded loaded = Load(tx, id, true);
    RequirePackagePrivileges(
        principal,
        loaded.role == kSource ? model::Privilege::kCreatePackage : model::Privilege::kApplyPackage,
        loaded.project_id);
    MigrationRecord& record = loaded.record;
    const auto& own = record.package_info.certification;
    if (auto_sync) {
      auto shared = ReadCertificationStatus(location_.Require(), id);
      if (!shared || (own && shared->last_updated <= own->last_updated)) return;
      record.package_info.certification = *shared;
    } else {
      CertificationOperator caller{principal.user_id, principal.username, principal.full_name};
      Timestamp now = Now();
      service::migration::Certify(record, CertificationFromBody(body, caller, now), now);
      certified = record;
    }
    Store(tx, loaded.role, record, loaded.project_id, loaded.internal);
  });
  if (certified.package_info.certification) {
    WriteCertificationStatus(location_.Require(), certified);
  }
}

// Shared file store (spec 04 §3.4)

MigrationRecord MigrationService::ImportSharedFile(const Principal& principal,
                                                   const std::optional<std::string>& project_id,
                                                   const Json& body) {
  std::string file_id = SharedFileIdIn(body);
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
  storage::CheckPackageStructure(path, stored.size);
  storage::PackageReader reader(path);
  const storage::PackageManifest& manifest = reader.manifest();

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
  import.environment = NamedRefAt(body, "importInfo", "environment");
  if (import.environment.empty()) import.environment = options_.environment;
  import.project = NamedRefAt(body, "importInfo", "project");
  import.import_request_status = RequestStatus::kApproved;
  ContentDigest content;  // the package's list, read entry by entry
  storage::ForEachContentEntry(reader, [&](Json entry) {
    for (const auto& item : model::package::ParseContent(entry, "content")) {
      ++content.items;
      content.keeps_both |= item.action == model::package::ConflictRule::kKeepBoth;
    }
  });
  return Import(principal, IdOf(record), ToJson(record), project_id, /*generate_undo=*/true,
                content);
}

MigrationService::PackageDownload MigrationService::Download(const Principal& principal,
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
  RequirePrivilege(
      principal,
      row.role == kSource ? model::Privilege::kCreatePackage : model::Privilege::kApplyPackage,
      row.project_id);
  MigrationRecord record = RecordFromJson(row.record);
  if (!record.package_info.storage || record.package_info.deleted) {
    throw Error(ErrorCode::kInvalidInput, "The package is not in status created");
  }
  std::filesystem::path file = location_.Require().Resolve(record.package_info.storage->path);
  std::error_code error;
  if (!std::filesystem::is_regular_file(file, error)) throw storage::PackageNotAccessible();
  return {file, DownloadName(record.package_info)};
}

}  // namespace tessera::service::migration
