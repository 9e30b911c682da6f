// service/migration/package_builder.h
//
// Package creation: which objects a package holds, and the package file that holds them
// (storage/package/format.h).
//
// Contract:
//   - DescribeContent checks the content of a new package against the source before the package is
//     accepted: every listed id must name an object of the package's level -- an object of the
//     project for project packages, a user or user group for project_security packages, another
//     configuration object for configuration packages -- else Error(kInvalidInput) listing the ids.
//     It gives `store_chunk` the content as a package stores it, in chunks of
//     storage::package::kContentItemsPerEntry items as JSON array text: each item with the object's
//     version, owner and dates now, explicitIncluded and level.
//   - BuildPackage writes the file from one consistent snapshot of the source: the listed
//     objects; with includeDependents, everything they use, recursively, at the same level (owners
//     and ACL trustees never); for a project merge, every object of the project; and, as implicit
//     folders, the ancestor folders of each object the package does not hold already. Objects come
//     in import order (model/package/import_order.h), then by id. The content list
//     (manifest.content_count items) is read and written as `content_entry` gives it, entry by
//     entry. Memory does not grow with the package: objects are read and written in batches, and
//     the package's ids wait on disk in `scratch_dir` (storage::ScratchTable).
//   - Throws storage::package::PackageTooLarge at the byte limit, Error(kStorageUnavailable) when
//   the
//     storage service fails, Error(kServiceUnavailable) when the storage location cannot be
//     written, and whatever `check_cancelled` throws. A failed build leaves no file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "model/package/kind.h"
#include "model/package/settings.h"
#include "service/migration/content_list.h"
#include "storage/metadata_store.h"
#include "storage/package/manifest.h"
#include "storage/package/writer.h"

namespace tessera::service::migration {

struct PackageScope {
  std::string project_id;  // the source project; "" for configuration packages
  model::package::PackageKind kind = model::package::PackageKind::kProject;
  model::package::PackagePurpose purpose = model::package::PackagePurpose::kObjectMigration;
};

void DescribeContent(storage::MetadataTransaction& tx, const PackageScope& scope,
                     const ContentList& content,
                     const std::function<void(int64_t sequence, std::string chunk)>& store_chunk);

struct BuildOptions {
  std::filesystem::path path;
  int64_t max_package_bytes = int64_t{1} << 31;
  storage::package::PackageManifest manifest;  // object_count is set by BuildPackage
  // Content entry `sequence` (1 .. ContentEntryCount(manifest.content_count)), read in the
  // build's snapshot.
  std::function<std::string(storage::MetadataTransaction& tx, int64_t sequence)> content_entry;
  std::function<void(int percent)> on_progress;
  std::function<void()> check_cancelled;
  std::filesystem::path scratch_dir;  // empty: the system's temporary directory
};

struct BuiltPackage {
  storage::package::PackageFileInfo file;
  int64_t object_count = 0;
};

BuiltPackage BuildPackage(storage::MetadataStore& store, const PackageScope& scope,
                          const BuildOptions& options);

}  // namespace tessera::service::migration
