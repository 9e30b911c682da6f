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

// The validation the status file holds, if it can be read.
std::optional<Validation> ReadValidation(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  try {
    Json status = ParseJson(text.str());
    if (!status.is_object()) return std::nullopt;
    return ValidationFromJson(status);
  } catch (const std::exception& error) {
    spdlog::warn("ignoring the unreadable status file {}: {}", file.string(), error.what());
    return std::nullopt;
  }
}

}  // namespace

void WriteValidationStatus(const storage::PackageLocation& location, const MigrationId& id,
                           const Validation& validation) {
  Json status = {{"id", FormatMigrationId(id)}, {"validation", ToJson(validation)}};
  storage::WriteFileAtomically(StatusFileOf(location, id), DumpJson(status));
}

MigrationRecord WithTargetValidation(const storage::PackageLocation& location,
                                     MigrationRecord record) {
  if (!record.validation) return record;
  auto target = ReadValidation(StatusFileOf(location, IdOf(record)));
  if (!target || target->status == ValidationStatus::kValidating) return record;
  if (target->creation_date + kClockTolerance < record.validation->creation_date) return record;
  record.validation = *target;
  return record;
}

}  // namespace tessera::service
