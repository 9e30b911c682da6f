// storage/package/manifest.h
//
// The manifest: the first entry of every package file (storage/package/format.h), which a target
// reads before accepting an import. JSON shape, keys always present and in this order:
//   {"format": "tessera-mmp", "formatVersion": 2, "kind": "package"|"undo",
//    "platformVersion": "11.6.0200.0001", "packageId": "<32 hex>", "importId": "<32 hex>"|"",
//    "type": "project", "purpose": "object_migration",
//    "sourceEnvironment": {"id", "name"}, "sourceProject": {"id", "name", "schemaId"},
//    "targetProject": {"id", "name"}, "settings": {...}, "contentCount": 3,
//    "createdAt": "2025-06-02T10:00:00.000+0000", "objectCount": 42}
// `importId` and `targetProject` are filled for undo packages only; project fields are empty
// strings for configuration packages. `settings` is carried opaquely here; the migration model
// gives it meaning. The content list itself (contentCount items) follows the manifest in
// entries of its own (storage/package/format.h), so a manifest stays small whatever the package.
//
// Parsing checks the shape, not the meaning: it throws Error(kInvalidInput) naming the key when
// the format, formatVersion or kind is not one this server writes, a key is missing, or a value
// has the wrong type (platformVersion must parse, createdAt must be a timestamp, contentCount
// and objectCount must be >= 0). Readers report that as a corrupt package.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/json.h"

namespace tessera::storage::package {

inline constexpr std::string_view kPackageFormat = "tessera-mmp";
// Version 1 carried the content list inside the manifest.
inline constexpr int kPackageFormatVersion = 2;

enum class PackageFileKind { kPackage, kUndo };

struct ManifestEnvironment {
  std::string id;
  std::string name;
};

struct ManifestProject {
  std::string id;
  std::string name;
  std::string schema_id;  // sourceProject only; not written for targetProject
};

struct PackageManifest {
  PackageFileKind kind = PackageFileKind::kPackage;
  std::string platform_version;
  std::string package_id;
  std::string import_id;  // undo packages
  std::string type;
  std::string purpose;
  ManifestEnvironment source_environment;
  ManifestProject source_project;
  ManifestProject target_project;  // undo packages
  Json settings = Json::object();
  int64_t content_count = 0;
  std::string created_at;
  int64_t object_count = 0;
};

Json ToJson(const PackageManifest& manifest);
PackageManifest ParsePackageManifest(const Json& json);

}  // namespace tessera::storage::package
