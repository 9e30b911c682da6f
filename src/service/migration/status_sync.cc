#include "service/migration/status_sync.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <cerrno>
#include <chrono>
#include <fstream>
#include <sstream>

#include "core/error.h"

namespace tessera::service::migration {

namespace {

constexpr auto kClockTolerance = std::chrono::minutes(5);

std::filesystem::path StatusFileOf(const storage::package::PackageLocation& location,
                                   const MigrationId& id) {
  return location.Resolve(storage::package::StatusFileRelativePath(id.package_id, id.import_id));
}

// The status file's object; {} when it is missing or unreadable.
Json ReadStatus(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) return Json::object();
  std::stringstream text;
  text << in.rdbuf();
  try {
    Json status = ParseJson(text.str());
    if (status.is_object()) return status;
  } catch (const std::exception& error) {
    spdlog::warn("ignoring the unreadable status file {}: {}", file.string(), error.what());
  }
  return Json::object();
}

void UpdateStatus(const storage::package::PackageLocation& location, const MigrationId& id,
                  const std::string& part, Json value) {
  std::filesystem::path file = StatusFileOf(location, id);
  Json status = ReadStatus(file);
  status["id"] = FormatMigrationId(id);
  status[part] = std::move(value);
  storage::package::WriteFileAtomically(file, DumpJson(status), location.writer());
}

// read(), or nullopt when the part it reads is malformed.
template <typename Read>
auto ReadPart(const std::filesystem::path& file, Read read) -> decltype(read()) {
  try {
    return read();
  } catch (const std::exception& error) {
    spdlog::warn("ignoring a malformed part of the status file {}: {}", file.string(),
                 error.what());
    return std::nullopt;
  }
}

void MergeValidation(const Json& status, const std::filesystem::path& file,
                     MigrationRecord& record) {
  if (!record.validation) return;
  auto target = ReadPart(file, [&] { return ValidationFromJson(status); });
  if (!target || target->status == ValidationStatus::kValidating) return;
  if (target->creation_date + kClockTolerance < record.validation->creation_date) return;
  record.validation = *target;
}

// When the file was last written or touched; nullopt when it cannot be told.
std::optional<Timestamp> ModifiedAt(const std::filesystem::path& file) {
  struct stat info {};
  if (::stat(file.c_str(), &info) != 0) return std::nullopt;
  auto since_epoch =
      std::chrono::seconds(info.st_mtim.tv_sec) + std::chrono::nanoseconds(info.st_mtim.tv_nsec);
  return Timestamp(std::chrono::duration_cast<Timestamp::duration>(since_epoch));
}

// A running import or undo whose target has been silent too long ends on the source's side.
void EndSilentImport(const std::filesystem::path& file, std::chrono::seconds target_silence,
                     ImportInfo& import) {
  bool importing = import.status == ImportStatus::kImporting;
  if (!importing && import.status != ImportStatus::kUndoing) return;
  auto reported = ModifiedAt(file);
  if (!reported || Now() - *reported <= target_silence) return;
  import.status = importing ? ImportStatus::kImportFailed : ImportStatus::kUndoFailed;
  import.message = fmt::format(
      "The target environment has not reported on this {} since {}, more than {} s ago: it is "
      "stopped or cannot reach the package location",
      importing ? "import" : "undo", FormatTimestamp(*reported), target_silence.count());
}

bool MergeImport(const Json& status, const std::filesystem::path& file, MigrationRecord& record) {
  if (!status.contains("importInfo")) return false;
  auto target = ReadPart(file, [&]() -> std::optional<ImportInfo> {
    Json whole = ToJson(record);
    whole["importInfo"] = status["importInfo"];
    return RecordFromJson(whole).import_info;
  });
  ImportInfo& own = record.import_info;
  if (!target || target->last_updated_date <= own.last_updated_date) return false;
  own.status = target->status;
  own.progress = target->progress;
  own.message = target->message;
  own.undo_request_status = target->undo_request_status;
  own.undo_storage = target->undo_storage;
  own.last_updated_date = target->last_updated_date;
  return true;
}

}  // namespace

void WriteValidationStatus(const storage::package::PackageLocation& location, const MigrationId& id,
                           const Validation& validation) {
  UpdateStatus(location, id, "validation", ToJson(validation));
}

void WriteImportStatus(const storage::package::PackageLocation& location,
                       const MigrationRecord& target_record) {
  UpdateStatus(location, IdOf(target_record), "importInfo", ToJson(target_record)["importInfo"]);
}

void WriteCertificationStatus(const storage::package::PackageLocation& location,
                              const MigrationRecord& record) {
  if (!record.package_info.certification) return;
  UpdateStatus(location, IdOf(record), "certification",
               ToJson(record)["packageInfo"]["certification"]);
}

std::optional<Certification> ReadCertificationStatus(
    const storage::package::PackageLocation& location, const MigrationId& id) {
  std::filesystem::path file = StatusFileOf(location, id);
  Json status = ReadStatus(file);
  if (!status.contains("certification")) return std::nullopt;
  return ReadPart(file, [&]() -> std::optional<Certification> {
    return CertificationChangeFromJson(status["certification"], "").CompletedWith({}, Timestamp{});
  });
}

MigrationRecord WithTargetStatus(const storage::package::PackageLocation& location,
                                 MigrationRecord record, std::chrono::seconds target_silence) {
  std::filesystem::path file = StatusFileOf(location, IdOf(record));
  Json status = ReadStatus(file);
  if (status.empty()) return record;
  MergeValidation(status, file, record);
  if (MergeImport(status, file, record)) EndSilentImport(file, target_silence, record.import_info);
  return record;
}

void TouchImportStatus(const storage::package::PackageLocation& location, const MigrationId& id) {
  std::filesystem::path file = StatusFileOf(location, id);
  if (::utimensat(AT_FDCWD, file.c_str(), nullptr, 0) == 0 || errno == ENOENT) return;
  storage::package::ThrowLocationUnavailable("cannot touch " + file.string(), errno);
}

}  // namespace tessera::service::migration
