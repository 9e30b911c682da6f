// storage/package/format.h
//
// The layout of a package file (.mmp, docs/migrations.md "Package files"), shared by
// PackageWriter and PackageReader, and the errors that report a package file that cannot be
// used. A package is a ZIP archive (deflate) whose entries come in this order:
//   1. manifest.json                        the PackageManifest (storage/package/manifest.h)
//   2. content/<sequence>.json              the package's content list (tocView.content), a JSON
//                                           array of up to kContentItemsPerEntry items per
//                                           entry, as many entries as ContentEntryCount() of the
//                                           manifest's contentCount; sequence 000001, ...
//   3. objects/<sequence>-<id>.json         one object's JSON per entry; sequence 000001, 000002,
//                                           ... (at least 6 digits), in import order
//   4. checksums.tsv                        one line "<sha256 hex>  <entry name>" per entry above,
//                                           in order, then the line "# objects <n>"
// Nothing follows the trailer but the ZIP central directory.
//
// Errors (all Error(kInvalidInput), i.e. 400 ERR006 when they reach api/):
//   - PackageNotAccessible: the file does not exist or cannot be opened.
//   - PackageCorrupt: the file exists but is not an intact package: wrong size, truncated, bad
//     CRC or SHA-256, entries out of order, manifest unreadable. Message
//     "Package file is corrupt: <what is wrong>".
//   - PackageTooLarge: the writer stopped because the file would exceed its byte limit; carries
//     how many objects were written before it stopped.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/error.h"

namespace tessera::storage::package {

inline constexpr std::string_view kManifestEntryName = "manifest.json";
inline constexpr std::string_view kChecksumsEntryName = "checksums.tsv";
inline constexpr std::string_view kObjectCountLinePrefix = "# objects ";

// The reader refuses an entry whose JSON is larger than this (a package cannot make it allocate
// more for one entry). Object definitions are kilobytes; so are content entries.
inline constexpr int64_t kMaxPackageEntryBytes = 64 << 20;

// The content list is cut into entries of this many items, so that neither a writer nor a
// reader ever holds more of it.
inline constexpr int64_t kContentItemsPerEntry = 1000;

// How many content entries a package whose content list has `content_count` items holds.
int64_t ContentEntryCount(int64_t content_count);

// "content/000001.json"; `sequence` counts from 1.
std::string ContentEntryName(int64_t sequence);

// "objects/000042-<id>.json"; `sequence` counts from 1.
std::string ObjectEntryName(int64_t sequence, std::string_view id);

// The id of an object entry name whose sequence is `sequence`, or nullopt when `name` is not
// exactly ObjectEntryName(sequence, id) for a valid id.
std::optional<std::string> ObjectIdOfEntry(std::string_view name, int64_t sequence);

// Ids usable in an entry name: 1 to 64 ASCII letters and digits (object ids are 32 hex).
bool IsValidEntryId(std::string_view id);

// One line of checksums.tsv, with its newline.
std::string ChecksumLine(std::string_view sha256_hex, std::string_view entry_name);

inline constexpr std::string_view kPackageNotAccessibleMessage =
    "The shared file cannot be accessed. It may be deleted or the storage location cannot be "
    "accessed.";
inline constexpr std::string_view kPackageCorruptMessage = "Package file is corrupt";

class PackageNotAccessible : public Error {
 public:
  PackageNotAccessible()
      : Error(ErrorCode::kInvalidInput, std::string(kPackageNotAccessibleMessage)) {}
};

class PackageCorrupt : public Error {
 public:
  explicit PackageCorrupt(std::string_view detail)
      : Error(ErrorCode::kInvalidInput,
              std::string(kPackageCorruptMessage) + ": " + std::string(detail)) {}
};

class PackageTooLarge : public Error {
 public:
  PackageTooLarge(int64_t max_package_bytes, int64_t objects_written, int64_t object_count);

  int64_t objects_written() const { return objects_written_; }

 private:
  int64_t objects_written_;
};

}  // namespace tessera::storage::package
