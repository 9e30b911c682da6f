#include "service/migration/storage_location_service.h"

#include <unistd.h>

#include <fmt/format.h>

#include "core/error.h"

namespace tessera::service::migration {
namespace {

constexpr char kSettingKey[] = "storage.sharedFileStore";

Error NotConfigured() {
  return Error(ErrorCode::kServiceUnavailable,
               std::string(storage::package::kLocationNotConfiguredMessage));
}

bool IsUsableDirectory(const std::filesystem::path& dir) {
  std::error_code error;
  return std::filesystem::is_directory(dir, error) && ::access(dir.c_str(), W_OK | X_OK) == 0;
}

void ProbeOrRefuse(const std::filesystem::path& location) {
  if (!IsUsableDirectory(location)) {
    throw Error(ErrorCode::kInvalidInput,
                fmt::format("sharedFileStore.location: '{}' is not a directory this server can "
                            "write",
                            location.string()));
  }
  try {
    storage::package::PackageLocation(location).Probe();
  } catch (const Error&) {
    throw Error(ErrorCode::kInvalidInput,
                fmt::format("sharedFileStore.location: files cannot be written and read back "
                            "under '{}'",
                            location.string()));
  }
}

}  // namespace

StorageLocationService::StorageLocationService(storage::MetadataStore& store,
                                               std::filesystem::path configured_dir,
                                               std::string writer)
    : store_(store), configured_dir_(std::move(configured_dir)), writer_(std::move(writer)) {}

StorageLocationService::Choice StorageLocationService::Current() const {
  std::optional<Json> setting;
  store_.Read([&](storage::MetadataTransaction& tx) { setting = tx.FindSetting(kSettingKey); });
  if (setting && setting->is_object() && setting->contains("location")) {
    return {setting->value("location", ""), setting->value("alias", "")};
  }
  return {configured_dir_, ""};
}

bool StorageLocationService::IsConfigured() const { return !Current().location.empty(); }

storage::package::PackageLocation StorageLocationService::Require() const {
  Choice choice = Current();
  if (choice.location.empty() || !IsUsableDirectory(choice.location)) throw NotConfigured();
  return storage::package::PackageLocation(choice.location, writer_);
}

void StorageLocationService::RequireAdministrator(const session::Principal& principal) const {
  session::RequirePrivilege(principal, model::Privilege::kAdministerEnvironment, "");
}

Json StorageLocationService::Describe(const session::Principal& principal) const {
  RequireAdministrator(principal);
  Choice choice = Current();
  bool is_set = !choice.location.empty();
  return {{"sharedFileStore",
           {{"type", is_set ? "file_system" : "unset"},
            {"alias", choice.alias},
            {"location", choice.location.string()},
            {"s3Region", ""},
            {"awsAccessId", ""},
            {"awsSecretKey", ""},
            {"azureStorageAccountName", ""},
            {"azureSecretKey", ""},
            {"gcsServiceAccountKey", ""},
            {"configured", is_set && IsUsableDirectory(choice.location)}}}};
}

void StorageLocationService::Validate(const session::Principal& principal,
                                      const StorageLocationRequest& requested) const {
  RequireAdministrator(principal);
  ProbeOrRefuse(requested.unset ? configured_dir_ : requested.location);
}

void StorageLocationService::Configure(const session::Principal& principal,
                                       const StorageLocationRequest& requested) {
  RequireAdministrator(principal);
  if (!requested.unset) ProbeOrRefuse(requested.location);
  Json value = requested.unset ? Json::object()
                               : Json{{"type", "file_system"},
                                      {"location", requested.location.string()},
                                      {"alias", requested.alias}};
  store_.Write([&](storage::MetadataTransaction& tx) { tx.PutSetting(kSettingKey, value); });
}

}  // namespace tessera::service::migration
