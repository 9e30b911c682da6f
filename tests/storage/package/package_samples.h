// tests/storage/package/package_samples.h
//
// Packages for the package file tests: a manifest with every field set, object JSON of a chosen
// size (compressible or not), packages written through PackageWriter, and raw ZIP files written
// with libarchive directly, for packages that PackageWriter would never produce.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "storage/package/manifest.h"
#include "storage/package/writer.h"
#include "support/temp_dir.h"  // FileNames

namespace tessera::testing {

storage::package::PackageManifest SampleManifest(int64_t object_count);

// Object i's id: 32 upper-case hex digits derived from i.
std::string SampleObjectId(int64_t i);

// A JSON object of about `bytes` characters. Incompressible text is random printable characters
// from a fixed seed, so a test can rely on its compressed size being close to its size.
std::string SampleObjectJson(int64_t i, size_t bytes, bool incompressible);

struct SamplePackageObject {
  std::string id;
  std::string json;
};

std::vector<SamplePackageObject> SampleObjects(int64_t count, size_t bytes);

// Writes a package of `objects` (manifest from SampleManifest) and returns what Commit() said.
storage::package::PackageFileInfo WriteSamplePackage(
    const std::filesystem::path& path, const std::vector<SamplePackageObject>& objects);

// A ZIP file whose entries are exactly `entries` (name, content), deflated, in order.
void WriteRawZip(const std::filesystem::path& path,
                 const std::vector<std::pair<std::string, std::string>>& entries);

// The checksums.tsv text a correct package of these entries has, computed here independently.
std::string ChecksumTrailer(const std::vector<std::pair<std::string, std::string>>& entries,
                            int64_t object_count);

std::string ReadWholeFile(const std::filesystem::path& path);
void WriteWholeFile(const std::filesystem::path& path, const std::string& bytes);

}  // namespace tessera::testing
