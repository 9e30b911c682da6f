// service/migration/storage_location_service.h
//
// Where this server keeps packages: the `packages.dir` of its configuration, which an
// administrator may replace through the storage configuration endpoints (the choice is kept in
// the storage service's settings, so every node and every restart sees it). Source and target
// environments are configured with the same location (a shared folder): the target reads a
// package where the source wrote it.
//
// Contract:
//   - Require() is the location to use now. Not configured, or a directory that does not exist
//     or cannot be written: Error(kServiceUnavailable, kLocationNotConfiguredMessage). The
//     storage service down: Error(kStorageUnavailable).
//   - Describe() is the GET body: {"sharedFileStore": {type, alias, location, s3Region,
//     awsAccessId, awsSecretKey, azureStorageAccountName, azureSecretKey, gcsServiceAccountKey,
//     configured}}; `type` is "file_system" when a location is set, else "unset"; secrets are
//     never shown (this server stores none).
//   - Validate() probes the location a request names (write, read back, delete a file under
//     mstr/shared/); Configure() validates, then stores it. api/migration/migration_requests.h
//     reads the request from {"sharedFileStore": {"type": "file_system", "location": "<absolute
//     directory>", "alias"?}}, or type "unset" to go back to the configured directory (other
//     types -- S3, Azure, GCS -- are not supported here). A location that cannot be used is
//     Error(kInvalidInput) saying why, and changes nothing.
//   - All three require Administer environment.
#pragma once

#include <filesystem>

#include "service/session/principal.h"
#include "storage/metadata_store.h"
#include "storage/package/location.h"

namespace tessera::service::migration {

// A location an administrator asks for.
struct StorageLocationRequest {
  bool unset = false;              // back to the configured directory
  std::filesystem::path location;  // absolute; empty when `unset`
  std::string alias;
};

class StorageLocationService {
 public:
  // `writer` names this node in the temporary files it writes there
  // (storage::package::PackageLocation).
  StorageLocationService(storage::MetadataStore& store, std::filesystem::path configured_dir,
                         std::string writer = "");

  storage::package::PackageLocation Require() const;
  // Whether a location is configured at all (it may still be unusable: Require() says).
  bool IsConfigured() const;

  // Administer environment, else Error(kInsufficientPrivileges): what Describe, Validate and
  // Configure check first.
  void RequireAdministrator(const session::Principal& principal) const;
  Json Describe(const session::Principal& principal) const;
  void Validate(const session::Principal& principal, const StorageLocationRequest& request) const;
  void Configure(const session::Principal& principal, const StorageLocationRequest& request);

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
