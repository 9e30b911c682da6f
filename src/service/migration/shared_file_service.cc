#include "service/migration/shared_file_service.h"

#include <fmt/format.h>

#include "core/base64.h"
#include "core/error.h"
#include "core/ids.h"
#include "core/strings.h"
#include "core/time.h"
#include "model/package/kind.h"
#include "storage/package/format.h"
#include "storage/package/reader.h"

namespace tessera::service::migration {
namespace {

constexpr std::string_view kFileIdPrefix = "migrations.packages:";

std::string NewFileId(const std::string& key) {
  return EncodeBase64(std::string(kFileIdPrefix) + key);
}

Error FileNotFound(std::string_view file_id) {
  return Error(ErrorCode::kNotFound, fmt::format("Shared file '{}' was not found", file_id));
}

void RequireUploader(const session::Principal& principal) {
  if (principal.HasPrivilegeAnywhere(model::Privilege::kApplyPackage)) return;
  session::RequirePrivilege(principal, model::Privilege::kApplyPackage, "");
}

void RequireSharedFileReader(const session::Principal& principal) {
  if (principal.HasPrivilegeAnywhere(model::Privilege::kCreatePackage)) return;
  RequireUploader(principal);
}

Json EnvironmentToJson(const std::optional<NamedRef>& environment) {
  if (!environment) return Json::object();
  return {{"id", environment->id}, {"name", environment->name}};
}

// The metadata of a described file (header comment).
Json MetadataOf(const SharedFileDescription& description, const std::string& id,
                const std::string& key, const session::Principal& principal, int64_t max_file_bytes,
                Timestamp now) {
  if (description.size < 1 || description.size > max_file_bytes) {
    throw Error(ErrorCode::kInvalidInput,
                fmt::format("size: {} is not between 1 and the limit of {} bytes", description.size,
                            max_file_bytes));
  }
  std::string name = description.name;
  if (name.empty()) name = "Uploaded package " + FormatTimestamp(now);
  return {{"id", id},
          {"type", kSharedPackageFileType},
          {"name", name},
          {"path", storage::package::UploadedFileRelativePath(key)},
          {"sha256", ToLower(description.sha256)},
          {"existing", false},
          {"size", description.size},
          {"extension", kSharedPackageFileExtension},
          {"creator", {{"id", principal.user_id}, {"name", principal.username}}},
          {"environment", EnvironmentToJson(description.environment)},
          {"creationDate", FormatTimestamp(now)},
          {"lastUpdatedDate", FormatTimestamp(now)},
          {"extraInfo",
           {{"packageId", ""},
            {"packageType", model::package::PackageKindName(description.package_type)},
            {"packagePurpose", model::package::PackagePurposeName(description.package_purpose)}}}};
}

void CheckUploadedSize(const Json& metadata, uint64_t length) {
  uint64_t expected_size = metadata["size"].get<uint64_t>();
  if (length != expected_size) {
    throw Error(ErrorCode::kInvalidInput,
                fmt::format("The uploaded file has {} bytes; its metadata announced {}", length,
                            expected_size));
  }
}

// The uploaded content must be what Describe() announced. Returns its package id.
std::string CheckUploadedContent(const Json& metadata, const std::filesystem::path& staged,
                                 const std::string& sha256) {
  if (sha256 != metadata["sha256"].get<std::string>()) {
    throw Error(ErrorCode::kInvalidInput,
                "The uploaded file's SHA-256 differs from the one its metadata announced");
  }
  storage::package::PackageManifest manifest =
      storage::package::CheckPackageStructure(staged, metadata["size"].get<int64_t>());
  if (manifest.kind != storage::package::PackageFileKind::kPackage) {
    throw storage::package::PackageCorrupt("the file is an undo package");
  }
  const std::string& type = metadata["extraInfo"]["packageType"].get_ref<const std::string&>();
  if (manifest.type != type) {
    throw Error(ErrorCode::kInvalidInput,
                fmt::format("extraInfo.packageType: the file holds a '{}' package, not '{}'",
                            manifest.type, type));
  }
  return manifest.package_id;
}

Error AlreadyUploaded(std::string_view file_id) {
  return Error(ErrorCode::kInvalidInput,
               fmt::format("Shared file '{}' was already uploaded", file_id));
}

}  // namespace

std::optional<std::string> SharedFileKey(std::string_view file_id) {
  auto decoded = DecodeBase64(file_id);
  if (!decoded || !decoded->starts_with(kFileIdPrefix)) return std::nullopt;
  std::string key = decoded->substr(kFileIdPrefix.size());
  if (CanonicalObjectId(key) != key) return std::nullopt;
  return key;
}

SharedFileService::SharedFileService(storage::MetadataStore& store,
                                     StorageLocationService& location, SharedFileOptions options)
    : store_(store), location_(location), options_(options) {}

storage::SharedFileRecord SharedFileService::Find(const std::string& file_id) {
  if (!SharedFileKey(file_id)) throw FileNotFound(file_id);
  std::optional<storage::SharedFileRecord> found;
  store_.Read([&](storage::MetadataTransaction& tx) { found = tx.FindSharedFile(file_id); });
  if (!found) throw FileNotFound(file_id);
  return *found;
}

void SharedFileService::RequireCanDescribe(const session::Principal& principal) const {
  RequireUploader(principal);
  location_.Require();
}

Json SharedFileService::Describe(const session::Principal& principal,
                                 const SharedFileDescription& description) {
  RequireCanDescribe(principal);
  std::string key = NewObjectId();
  storage::SharedFileRecord record;
  record.id = NewFileId(key);
  record.created = record.updated = Now();
  record.data =
      MetadataOf(description, record.id, key, principal, options_.max_file_bytes, record.created);
  store_.Write([&](storage::MetadataTransaction& tx) {
    if (static_cast<int64_t>(tx.ListSharedFiles().size()) >= options_.max_files) {
      throw Error(ErrorCode::kInvalidInput,
                  fmt::format("At most {} uploaded packages can be stored; delete some first",
                              options_.max_files));
    }
    tx.PutSharedFile(record);
  });
  return record.data;
}

Json SharedFileService::Upload(const session::Principal& principal, const std::string& file_id,
                               const UploadedContent& content) {
  RequireUploader(principal);
  storage::SharedFileRecord record = Find(file_id);
  if (record.data.value("existing", false)) throw AlreadyUploaded(file_id);
  CheckUploadedSize(record.data, content.length);
  storage::package::PackageLocation location = location_.Require();
  std::filesystem::path target = location.Resolve(record.data["path"].get<std::string>());
  std::string package_id;
  storage::package::StoreFileRange(
      content.file, content.offset, content.length, target,
      [&](const std::filesystem::path& staged, const std::string& sha256) {
        package_id = CheckUploadedContent(record.data, staged, sha256);
      },
      location.writer());
  bool uploaded_by_another = false;  // the same verified content: that file stays
  try {
    store_.Write([&](storage::MetadataTransaction& tx) {
      auto current = tx.FindSharedFile(file_id);
      if (!current) throw FileNotFound(file_id);  // deleted meanwhile
      if (current->data.value("existing", false)) {
        uploaded_by_another = true;
        throw AlreadyUploaded(file_id);
      }
      record = *current;
      record.updated = Now();
      record.data["existing"] = true;
      record.data["lastUpdatedDate"] = FormatTimestamp(record.updated);
      record.data["extraInfo"]["packageId"] = package_id;
      tx.PutSharedFile(record);
    });
  } catch (...) {
    if (!uploaded_by_another) storage::package::RemoveFileQuietly(target);
    throw;
  }
  return record.data;
}

Json SharedFileService::Get(const session::Principal& principal, const std::string& file_id) {
  RequireSharedFileReader(principal);
  return Find(file_id).data;
}

SharedFilePage SharedFileService::List(const session::Principal& principal, const std::string& type,
                                       int64_t offset, int64_t limit) {
  RequireSharedFileReader(principal);
  if (!type.empty() && type != kSharedPackageFileType) {
    throw Error(ErrorCode::kInvalidInput, fmt::format("type: '{}' is not supported; expected '{}'",
                                                      type, kSharedPackageFileType));
  }
  std::vector<storage::SharedFileRecord> records;
  store_.Read([&](storage::MetadataTransaction& tx) { records = tx.ListSharedFiles(); });
  SharedFilePage page;
  page.total = static_cast<int64_t>(records.size());
  for (int64_t i = offset; i < page.total && i - offset < limit; ++i) {
    page.files.push_back(std::move(records[static_cast<size_t>(i)].data));
  }
  return page;
}

std::filesystem::path SharedFileService::ContentPath(const session::Principal& principal,
                                                     const std::string& file_id) {
  RequireSharedFileReader(principal);
  storage::SharedFileRecord record = Find(file_id);
  if (!record.data.value("existing", false)) {
    throw Error(ErrorCode::kNotFound,
                fmt::format("Shared file '{}' has no content yet: upload it first", file_id));
  }
  return location_.Require().Resolve(record.data["path"].get<std::string>());
}

void SharedFileService::Delete(const session::Principal& principal, const std::string& file_id) {
  RequireUploader(principal);
  storage::SharedFileRecord record = Find(file_id);
  store_.Write([&](storage::MetadataTransaction& tx) {
    if (!tx.DeleteSharedFile(file_id)) throw FileNotFound(file_id);
  });
  if (!record.data.value("existing", false)) return;
  try {
    storage::package::RemoveFileQuietly(
        location_.Require().Resolve(record.data["path"].get<std::string>()));
  } catch (const Error&) {
    // The location is gone: the metadata is deleted; the file stays where nothing names it.
  }
}

}  // namespace tessera::service::migration
