// storage/package/reader.h
//
// Reads a package file (storage/package/format.h) as a stream: one entry in memory at a time,
// the ZIP central directory never loaded (libarchive's streamable ZIP reader), so memory does
// not grow with the package.
//
// Contract:
//   - The constructor opens the file and reads manifest.json, which must be the first entry.
//     A file that cannot be opened throws PackageNotAccessible; a file that is not an intact
//     package -- no ZIP end record at its end (truncated), first entry not the manifest,
//     manifest unreadable -- throws PackageCorrupt.
//   - NextContent() yields the content list's entries (storage/package/format.h), one JSON array
//     text per call, and returns false once all of them are read; it is for use before the first
//     Next(), which passes over those not read.
//   - Next() yields the objects in file order, one per call, and returns false once it has read
//     the checksums.tsv trailer and found it consistent: every entry's SHA-256 and name (manifest
//     included), the object count of the trailer and of the manifest, nothing after the trailer.
//     Any mismatch, a libarchive read error (bad CRC, truncated or damaged data), a missing
//     trailer, an unexpected or out-of-order entry, or an entry above kMaxPackageEntryBytes
//     throws PackageCorrupt; so does every later call.
//   - Entries are verified as a whole only when Next() returns false: a consumer that must not
//     act on a damaged package reads it through VerifyPackage() first (the verify pass), or
//     commits nothing before Next() has returned false.
//   - CheckPackageStructure() is the quick check of an import request: the file can be opened, its
//     size is `expected_size` (when >= 0), it ends with a ZIP end record, its manifest parses and
//     the ZIP directory holds as many entries as the manifest announces.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "core/sha256_stream.h"
#include "storage/package/manifest.h"

struct archive;  // libarchive's handle

namespace tessera::storage::package {

struct PackageEntry {
  std::string name;  // "objects/000001-<id>.json"
  std::string id;
  std::string json;  // the entry's whole text
};

class PackageReader {
 public:
  explicit PackageReader(const std::filesystem::path& path);
  ~PackageReader();
  PackageReader(const PackageReader&) = delete;
  PackageReader& operator=(const PackageReader&) = delete;

  const PackageManifest& manifest() const { return manifest_; }
  PackageManifest ReleaseManifest() { return std::move(manifest_); }  // manifest() is then empty

  bool NextContent(std::string& json);
  bool Next(PackageEntry& out);

  int64_t objects_read() const { return objects_read_; }

 private:
  enum class State { kReadingObjects, kFinished, kFailed };

  std::string ReadManifestText();
  void ReadEntryData(std::string_view name, std::string& out);
  void VerifyTrailer();
  void CheckNothingFollowsTheTrailer();
  [[noreturn]] void Corrupt(std::string_view detail);
  void Close() noexcept;

  std::filesystem::path path_;
  int fd_ = -1;
  archive* archive_ = nullptr;
  int64_t directory_entries_ = -1;  // from the ZIP end record; -1 when it does not say (Zip64)
  PackageManifest manifest_;
  State state_ = State::kReadingObjects;
  int64_t entries_read_ = 0;     // manifest, content and objects
  int64_t content_entries_ = 0;  // announced by the manifest
  int64_t content_entries_read_ = 0;
  int64_t objects_read_ = 0;
  Sha256Stream entry_hash_;
  Sha256Stream expected_trailer_;  // the checksum lines the entries read so far call for
  std::string buffer_;
};

// Gives `visit` each content entry of the package `reader` reads, parsed (a JSON array), in
// order; for use before the reader's first Next(). An entry that is not a JSON array throws
// PackageCorrupt. ReadContentList joins them into the whole content list.
void ForEachContentEntry(PackageReader& reader, const std::function<void(Json entry)>& visit);
Json ReadContentList(PackageReader& reader);

// Returns the manifest. Throws PackageNotAccessible or PackageCorrupt.
PackageManifest CheckPackageStructure(const std::filesystem::path& path, int64_t expected_size);

// Reads every entry through a PackageReader; returns the manifest of an intact package, throws
// PackageNotAccessible or PackageCorrupt otherwise.
PackageManifest VerifyPackage(const std::filesystem::path& path);

}  // namespace tessera::storage::package
