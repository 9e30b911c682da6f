// service/migration/shared_file_service.h
//
// The shared file store: package files uploaded to a target environment that cannot see the
// source's storage location (the source's package is downloaded, then uploaded here). A file is
// first described (its metadata: name, size, SHA-256, package type and purpose), then its content
// is uploaded once; a migration then imports it (MigrationService::ImportSharedFile). Metadata
// lives in the storage service; the content in the storage location, at
// mstr/shared/files/<32 hex>.mmp.
//
// Contract:
//   - File ids are opaque text: base64 of "migrations.packages:<32 hex>", as the public reference
//     shows; they never contain '/' or '+'.
//   - Describe() takes a description whose fields api/migration/migration_requests.h checked (type
//     "migrations.packages", extension "mmp", sha256 of 64 hex digits, a package type and
//     purpose); it refuses a size outside 1..max_file_bytes and refuses once max_files are
//     stored (Error(kInvalidInput)); it answers the metadata: {id, type, name, path, sha256,
//     existing:false, size, extension, creator, environment, creationDate, lastUpdatedDate,
//     extraInfo{packageId:"", packageType, packagePurpose}}.
//   - Upload() takes the content from a range of a local file. It must have the described size and
//     SHA-256 and be a package of the described type; then it is stored atomically and the
//     metadata shows existing:true and extraInfo.packageId (from the package's manifest). A file
//     is uploaded once. Anything refused changes nothing and leaves no file.
//   - ContentPath() is where an uploaded file's content is (for download and import).
//   - Delete() removes the metadata and the content.
//   - Describing, uploading and deleting need Apply package in some project; reading needs
//     Create or Apply package. Unknown ids are Error(kNotFound).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "core/json.h"
#include "model/package/kind.h"
#include "service/migration/migration_record.h"
#include "service/migration/storage_location_service.h"
#include "service/session/principal.h"
#include "storage/metadata_store.h"

namespace tessera::service::migration {

inline constexpr std::string_view kSharedPackageFileType = "migrations.packages";
inline constexpr std::string_view kSharedPackageFileExtension = "mmp";

struct SharedFileOptions {
  int64_t max_file_bytes = int64_t{1} << 31;
  int64_t max_files = 1000;  // storage.sharedFileStore.migrations.packages.maxNumber
};

// POST .../sharedFileStore/files: the metadata of a package file about to be uploaded (its type
// is "migrations.packages" and its extension "mmp").
struct SharedFileDescription {
  std::string name;    // "" when not sent: the service names the file
  int64_t size = 0;    // bytes, as sent
  std::string sha256;  // 64 hexadecimal digits, either case
  // {id, name} as sent, each "" when absent; nullopt when no environment was sent (shown as {}).
  std::optional<NamedRef> environment;
  model::package::PackageKind package_type = model::package::PackageKind::kProject;
  model::package::PackagePurpose package_purpose =
      model::package::PackagePurpose::kMigrationFromSharedFileStore;
};

// A byte range of a local file: where an upload's content arrived.
struct UploadedContent {
  std::filesystem::path file;
  uint64_t offset = 0;
  uint64_t length = 0;
};

struct SharedFilePage {
  int64_t total = 0;
  std::vector<Json> files;
};

class SharedFileService {
 public:
  SharedFileService(storage::MetadataStore& store, StorageLocationService& location,
                    SharedFileOptions options);

  // What Describe() checks before the description: the caller may upload (Apply package in some
  // project, else Error(kInsufficientPrivileges)) and the storage location is usable (else
  // Require()'s Error(kServiceUnavailable)).
  void RequireCanDescribe(const session::Principal& principal) const;
  Json Describe(const session::Principal& principal, const SharedFileDescription& description);
  Json Upload(const session::Principal& principal, const std::string& file_id,
              const UploadedContent& content);
  Json Get(const session::Principal& principal, const std::string& file_id);
  // Oldest first. `type` "" or "migrations.packages"; anything else is Error(kInvalidInput).
  SharedFilePage List(const session::Principal& principal, const std::string& type, int64_t offset,
                      int64_t limit);
  // Throws Error(kNotFound) while the file has no content.
  std::filesystem::path ContentPath(const session::Principal& principal,
                                    const std::string& file_id);
  void Delete(const session::Principal& principal, const std::string& file_id);

 private:
  storage::SharedFileRecord Find(const std::string& file_id);

  storage::MetadataStore& store_;
  StorageLocationService& location_;
  SharedFileOptions options_;
};

// The 32-hex key inside a file id, or nullopt when `file_id` is not one this server made.
std::optional<std::string> SharedFileKey(std::string_view file_id);

}  // namespace tessera::service::migration
