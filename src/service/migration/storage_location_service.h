// service/migration/storage_location_service.h
//
// Where this server keeps packages (spec 04 §3.1, §3.5): the `packages.dir` of its configuration,
// which an administrator may replace through the storage configuration endpoints (the choice is
// kept in the storage service's settings, so every node and every restart sees it).
//
// Contract:
//   - Require() is the location to use now. Not configured, or a directory that does not exist
//     or cannot be written: Error(kServiceUnavailable, kLocationNotConfiguredMessage) (spec 04
//     §2.3 row 9). The storage service down: Error(kStorageUnavailable).
//   - Describe() is the GET body: {"sharedFileStore": {type, alias, location, s3Region,
//     awsAccessId, awsSecretKey, azureStorageAccountName, azureSecretKey, gcsServiceAccountKey,
//     configured}}; `type` is "file_system" when a location is set, else "unset"; secrets are
//     never shown (this server stores none).
//   - Validate() probes the location a body names (write, read back, delete a file under
//     mstr/shared/); Configure() validates, then stores it. Bodies are {"sharedFileStore": {"type":
//     "file_system", "location": "<absolute directory>", "alias"?}}, or type "unset" to go back to
//     the configured directory. Other types (S3, Azure, GCS) are not supported here; a bad body or
//     a location that cannot be used is Error(kInvalidInput) saying why, and changes nothing.
//   - All three require Administer environment.
#pragma once

#include <filesystem>

#include "service/principal.h"
#include "storage/metadata_store.h"
#include "storage/package_location.h"

namespace tessera::service::migration {

class StorageLocationService {
 public:
  // `writer` names this node in the temporary files it writes there (storage::PackageLocation).
  StorageLocationService(storage::MetadataStore& store, std::filesystem::path configured_dir,
                         std::string writer = "");

  storage::PackageLocation Require() const;
  // Whether a location is configured at all (it may still be unusable: Require() says).
  bool IsConfigured() const;

  Json Describe(const Principal& principal) const;
  void Validate(const Principal& principal, const Json& body) const;
  void Configure(const Principal& principal, const Json& body);

 private:
  struct Choice {
    std::filesystem::path location;  // empty: not configured
    std::string alias;
  };
  Choice Current() const;

  storage::MetadataStore& store_;
  std::filesystem::path configured_dir_;
  std::string writer_;
};

}  // namespace tessera::service::migration
