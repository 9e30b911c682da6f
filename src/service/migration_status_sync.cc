#include "service/migration_status_sync.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <fstream>
#include <sstream>

#include "core/error.h"

namespace tessera::service {

namespace {

constexpr auto kClockTolerance = std::chrono::minutes(5);

std::filesystem::path StatusFileOf(const storage::PackageLocation& location,
                                   const MigrationId& id) {
  return location.Resolve(storage::StatusFileRelativePath(id.package_id, id.import_id));
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

void UpdateStatus(const storage::PackageLocation& location, const MigrationId& id,
                  const std::string& part, Json value) {
  std::filesystem::path file = StatusFileOf(location, id);
  Json status = ReadStatus(file);
  status["id"] = FormatMigrationId(id);
  status[part] = std::move(value);
  storage::WriteFileAtomically(file, DumpJson(status));
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

void MergeImport(const Json& status, const std::filesystem::path& file, MigrationRecord& record) {
  if (!status.contains("importInfo")) return;
  auto target = ReadPart(file, [&]() -> std::optional<ImportInfo> {
    Json whole = ToJson(record);
    whole["importInfo"] = status["importInfo"];
    return RecordFromJson(whole).import_info;
  });
  ImportInfo& own = record.import_info;
  if (!target || target->last_updated_date <= own.last_updated_date) return;
  own.status = target->status;
  own.progress = target->progress;
  own.message = target->message;
  own.undo_request_status = target->undo_request_status;
  own.undo_storage = target->undo_storage;
  own.last_updated_date = target->last_updated_date;
}

}  // namespace

void WriteValidationStatus(const storage::PackageLocation& location, const MigrationId& id,
                           const Validation& validation) {
  UpdateStatus(location, id, "validation", ToJson(validation));
}

void WriteImportStatus(const storage::PackageLocation& location,
                       const MigrationRecord& target_record) {
  UpdateStatus(location, IdOf(target_record), "importInfo", ToJson(target_record)["importInfo"]);
}

void WriteCertificationStatus(const storage::PackageLocation& location,
                              const MigrationRecord& record) {
  if (!record.package_info.certification) return;
  UpdateStatus(location, IdOf(record), "certification",
               ToJson(record)["packageInfo"]["certification"]);
}

std::optional<Certification> ReadCertificationStatus(const storage::PackageLocation& location,
                                                     const MigrationId& id) {
  std::filesystem::path file = StatusFileOf(location, id);
  Json status = ReadStatus(file);
  if (!status.contains("certification")) return std::nullopt;
  return ReadPart(file, [&]() -> std::optional<Certification> {
    return CertificationFromBody(status["certification"], {}, Timestamp{});
  });
}

MigrationRecord WithTargetStatus(const storage::PackageLocation& location, MigrationRecord record) {
  std::filesystem::path file = StatusFileOf(location, IdOf(record));
  Json status = ReadStatus(file);
  if (status.empty()) return record;
  MergeValidation(status, file, record);
  MergeImport(status, file, record);
  return record;
}

}  // namespace tessera::service
