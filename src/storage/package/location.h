// storage/package/location.h
//
// The package storage location: a directory, typically a shared mount, that every migrating
// environment sees under its own absolute root. Records carry paths relative to the root, in
// exactly these shapes (ids are 32 upper-case hex):
//   mstr/shared/migrations/packages/<yyyy-MM-dd>/<fileId>.mmp     packages
//   mstr/shared/migrations/undo/<packageId>/<importId>.mmp        undo packages
//   mstr/shared/migrations/status/<packageId>/<importId>.json     status sync files
//   mstr/shared/files/<fileId>.mmp                                uploaded packages (file store)
//
// Contract:
//   - An empty root means the location is not configured: constructing a PackageLocation then
//     throws Error(kServiceUnavailable, kLocationNotConfiguredMessage). A relative root is taken
//     relative to the current directory at construction.
//   - Resolve() turns a client-given relative path into an absolute one only when it has one of
//     the shapes above exactly -- so no "..", no absolute path, no backslash, no other file can be
//     named -- and throws Error(kInvalidInput) otherwise. The *RelativePath() builders produce
//     paths Resolve() accepts (they throw Error(kInvalidInput) for malformed ids).
//   - Probe(), the file helpers and WriteFileAtomically() report any I/O failure as
//     Error(kServiceUnavailable, kLocationUnavailableMessage); the reason is logged.
//   - WriteFileAtomically() writes a temporary file in the target's directory, fsyncs it, renames
//     it over the target and fsyncs the directory: readers see the old content or the new, never
//     a part, and a crash leaves at most a stray ".<name>.<writer>.<random>.tmp".
//   - A location has a writer (the node's id; may be empty): the temporary files written through
//     it carry its name, so that RemoveTemporaryFilesOfWriter(), called when that writer starts
//     again, removes what a crash of its left under mstr/shared/ and nothing of another writer.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

#include "core/time.h"

namespace tessera::storage::package {

inline constexpr std::string_view kLocationNotConfiguredMessage =
    "The Storage Service is not configured properly, please contact your administrator to "
    "configure Storage Service";
inline constexpr std::string_view kLocationUnavailableMessage =
    "Cannot create or modify the shared file. It may be temporarily unavailable for accessing the "
    "storage location.";

class PackageLocation {
 public:
  explicit PackageLocation(const std::filesystem::path& root, std::string writer = "");

  const std::filesystem::path& root() const { return root_; }
  const std::string& writer() const { return writer_; }

  std::filesystem::path Resolve(std::string_view relative_path) const;

  // Writes, reads back and deletes a probe file under <root>/mstr/shared/ (creating the
  // directories when missing).
  void Probe() const;

  // Returns how many files it removed; nothing when the writer is empty.
  int RemoveTemporaryFilesOfWriter() const;

 private:
  std::filesystem::path root_;
  std::string writer_;
};

// The date is the UTC day of `created_at`.
std::string PackageRelativePath(Timestamp created_at, std::string_view file_id);
std::string UndoPackageRelativePath(std::string_view package_id, std::string_view import_id);
std::string StatusFileRelativePath(std::string_view package_id, std::string_view import_id);
std::string UploadedFileRelativePath(std::string_view file_id);

void CreateParentDirectories(const std::filesystem::path& file);

// `writer` names the temporary file (PackageLocation::writer()).
void WriteFileAtomically(const std::filesystem::path& file, std::string_view contents,
                         std::string_view writer = {});

// Copies `length` bytes of `source`, starting at `offset`, into a new temporary file next to
// `file` (hashing them on the way), syncs it and hands it to `accept` with its SHA-256 (64
// lower-case hex); `accept` may throw to refuse it. Accepted, the file is renamed to `file`
// (replacing any). Refused or failed, nothing is left behind. A source shorter than
// offset + length is Error(kInvalidInput); a source that cannot be read, Error(kInternal).
using AcceptStagedFile =
    std::function<void(const std::filesystem::path& staged, const std::string& sha256_hex)>;
void StoreFileRange(const std::filesystem::path& source, uint64_t offset, uint64_t length,
                    const std::filesystem::path& file, const AcceptStagedFile& accept,
                    std::string_view writer = {});

// Writes all of `data` to `fd`, retrying short writes and interruptions; false with errno set
// when the file refuses it.
bool WriteToFd(int fd, std::string_view data) noexcept;

// Fsyncs a directory so a rename or creation inside it survives a crash.
void SyncDirectory(const std::filesystem::path& directory);

// Removes `file`; a missing file is not an error. Returns whether a file was removed.
bool RemoveFileIfExists(const std::filesystem::path& file);

// Same, for clean-up paths that must not throw (destructors, error handling): failures are
// logged only.
void RemoveFileQuietly(const std::filesystem::path& file) noexcept;

// Throws Error(kServiceUnavailable, kLocationUnavailableMessage) after logging `what` and the
// system error `errno_value`.
[[noreturn]] void ThrowLocationUnavailable(std::string_view what, int errno_value);

}  // namespace tessera::storage::package
