// Fuzz harness: package files (storage/package/reader.h, storage/package/manifest.h), the ZIPs a
// migration imports, undoes or validates, read the way an import reads them.
//
// Input, one of:
//   - a ZIP file as is (it starts with "PK"): for damage at the ZIP level;
//   - the package's entries as sections (fuzz/fuzz_support.h), zipped here with deflate in the
//     order given, e.g. "=== manifest.json", "=== content/000001.json",
//     "=== objects/000001-<id>.json", "=== checksums.tsv". A checksums.tsv section whose content
//     is "auto" gets the correct trailer of the entries before it, so that mutations reach the
//     checks behind the checksums.
//
// Contract checked: every step either succeeds or throws tessera::Error(kInvalidInput, or
// kMissingField for a required field left out) -- a corrupt package, a malformed manifest,
// settings, content item or entry; nothing else escapes. An object entry that parses survives
// EntryToJson() and EntryFromJson() unchanged.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/json.h"
#include "fuzz/fuzz_support.h"
#include "model/package/entry.h"
#include "model/package/kind.h"
#include "model/package/settings.h"
#include "storage/package/format.h"
#include "storage/package/package_samples.h"
#include "storage/package/reader.h"

namespace {

namespace fs = std::filesystem;
using Entries = std::vector<std::pair<std::string, std::string>>;

constexpr std::string_view kAutoTrailer = "auto";
constexpr std::string_view kObjectsPrefix = "objects/";

// The sections as ZIP entries; a section's trailing newline is the separator's, not content.
Entries EntriesOf(std::string_view text) {
  Entries entries;
  int64_t objects = 0;
  for (auto& section : tessera::fuzz::SplitSections(text)) {
    // A ZIP entry name is written as a C string: one with a NUL byte cannot be stored.
    if (section.name.empty() || section.name.find('\0') != std::string::npos) continue;
    if (section.content.ends_with('\n')) section.content.pop_back();
    if (section.name == tessera::storage::package::kChecksumsEntryName &&
        section.content == kAutoTrailer) {
      section.content = tessera::testing::ChecksumTrailer(entries, objects);
    }
    if (section.name.starts_with(kObjectsPrefix)) ++objects;
    entries.emplace_back(std::move(section.name), std::move(section.content));
  }
  return entries;
}

// nullopt when libarchive refuses to write the sections as a ZIP (an entry name it cannot
// store): such an input says nothing about reading packages.
std::optional<fs::path> WritePackage(std::string_view input) {
  const fs::path path = tessera::fuzz::ScratchDir() / "package.mmp";
  if (input.starts_with("PK")) {
    tessera::fuzz::WriteBytes(path, input);
    return path;
  }
  try {
    tessera::testing::WriteRawZip(path, EntriesOf(input));
  } catch (const std::runtime_error&) {
    return std::nullopt;
  }
  return path;
}

void ExpectEntryRoundTrip(const tessera::model::package::PackageObject& object) {
  const tessera::Json written = tessera::model::package::EntryToJson(object);
  const tessera::Json again = tessera::model::package::EntryToJson(
      tessera::model::package::EntryFromJson(written, object.record.project_id));
  if (again != written) {
    tessera::fuzz::Finding("a package entry does not round-trip",
                           tessera::DumpJson(written) + "\n" + tessera::DumpJson(again));
  }
}

// What an import reads: the manifest's settings, the content list, then every object.
void ReadLikeAnImport(const fs::path& path) {
  tessera::storage::package::CheckPackageStructure(path, static_cast<int64_t>(fs::file_size(path)));
  tessera::storage::package::PackageReader reader(path);
  const auto& manifest = reader.manifest();
  (void)tessera::storage::package::ToJson(manifest);
  const auto kind = tessera::model::package::ParsePackageKind(manifest.type, "manifest.type");
  tessera::model::package::ParsePackagePurpose(manifest.purpose, "manifest.purpose");
  tessera::model::package::ParsePackageSettings(manifest.settings, kind, "manifest.settings");
  tessera::storage::package::ForEachContentEntry(
      reader, [](tessera::Json entry) { tessera::model::package::ParseContent(entry, "content"); });
  tessera::storage::package::PackageEntry entry;
  while (reader.Next(entry)) {
    const std::string scope = kind == tessera::model::package::PackageKind::kProject ? "P" : "";
    ExpectEntryRoundTrip(
        tessera::model::package::EntryFromJson(tessera::ParseJson(entry.json), scope));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path = WritePackage(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!path) return 0;
  try {
    ReadLikeAnImport(*path);
  } catch (const tessera::Error& error) {
    if (error.code() != tessera::ErrorCode::kInvalidInput &&
        error.code() != tessera::ErrorCode::kMissingField) {
      tessera::fuzz::Finding("reading a package threw another error code", error.what());
    }
  }
  return 0;
}
