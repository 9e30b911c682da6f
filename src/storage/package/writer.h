// storage/package/writer.h
//
// Writes one package file (storage/package/format.h) as a stream: a ZIP archive
// (storage/package/zip_stream_writer.h, deflate) whose bytes go straight to disk, so memory grows
// with neither the objects' sizes nor their number: the ZIP central directory and the checksum
// lines wait in unlinked side files until Commit().
//
// Contract:
//   - The file is written as ".<final name>.tmp" in the final file's directory (created when
//     missing) and appears under its final name only when Commit() renames it, after an fsync;
//     the directory is fsynced after the rename. Readers never see a partial package.
//   - Calls come in this order: WriteManifest() once, AddContent() once per content entry (as
//     many as ContentEntryCount() of the manifest's contentCount), AddObject() once per object
//     (as many as the manifest's objectCount), Commit() once. Each entry's size is set in its
//     header.
//   - max_package_bytes bounds the whole file (entries, trailer, central directory), counted as
//     bytes leave the compressor: once the file would exceed it, the call throws PackageTooLarge
//     carrying the number of objects completely written.
//   - Any exception from a call removes the temporary file and leaves the writer unusable: the
//     byte limit (PackageTooLarge), an I/O failure (Error(kServiceUnavailable) with the storage
//     location's message, see storage/package/location.h), a misuse (Error(kInternal)).
//   - The side files have no name where the file system allows it (O_TMPFILE); elsewhere each is
//     named ".<final name>.<random>.{sums,dir}.tmp" for the moment between its creation and its
//     unlink.
//   - Commit() either returns with the package under its final name or throws with nothing left
//     under either name. A writer destroyed without a successful Commit() removes its temporary
//     file.
#pragma once

#include <cstdint>
#include <ctime>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "storage/package/manifest.h"

namespace tessera::storage::package {

class ZipStreamWriter;

struct PackageFileInfo {
  int64_t size_bytes = 0;
  std::string sha256;  // of the whole file, lower-case hex
};

// Removes the package file at `final_path` and the temporary files a writer of it may have left
// (a process killed before Commit(): the temporary file, and a side file killed before it lost
// its name); a missing file is not an error.
void RemovePackageFileQuietly(const std::filesystem::path& final_path) noexcept;

class PackageWriter {
 public:
  PackageWriter(std::filesystem::path final_path, int64_t max_package_bytes);
  ~PackageWriter();
  PackageWriter(const PackageWriter&) = delete;
  PackageWriter& operator=(const PackageWriter&) = delete;

  void WriteManifest(const PackageManifest& manifest);

  // `json`: a JSON array of up to kContentItemsPerEntry items of the content list.
  void AddContent(std::string_view json);

  // `id` names the entry (storage/package/format.h IsValidEntryId); `json` is its whole content.
  void AddObject(std::string_view id, std::string_view json);

  PackageFileInfo Commit();

  int64_t objects_written() const { return objects_written_; }
  const std::filesystem::path& temporary_path() const { return temporary_path_; }

 private:
  struct Output;  // the byte sink the ZIP writer writes through: counts, hashes, buffers, limits
  enum class State { kNeedsManifest, kWritingObjects, kCommitted, kFailed };

  void RequireState(State expected, std::string_view call);
  void RequireContentWritten(std::string_view call);
  void WriteEntry(std::string_view name, std::string_view data);
  void WriteTrailer();
  void AppendChecksumLine(std::string_view line);
  void FlushChecksums();
  // Runs a call of the ZIP writer, then turns a failure of it or of the output into an exception.
  void ZipCall(const std::function<void()>& call);
  void CheckOutput();
  void CloseSideFiles() noexcept;
  [[noreturn]] void Fail(std::string_view what, int errno_value);
  void Abandon() noexcept;

  std::filesystem::path final_path_;
  std::filesystem::path temporary_path_;
  int64_t max_package_bytes_;
  std::time_t entry_time_;
  State state_ = State::kNeedsManifest;
  int64_t objects_written_ = 0;
  int64_t object_count_ = 0;     // announced by the manifest
  int64_t content_entries_ = 0;  // announced by the manifest
  int64_t content_entries_written_ = 0;
  std::unique_ptr<Output> output_;
  bool temporary_exists_ = false;
  std::unique_ptr<ZipStreamWriter> zip_;
  int checksums_fd_ = -1;  // unlinked side file holding checksums.tsv until Commit()
  int directory_fd_ = -1;  // unlinked side file holding the ZIP central directory until Commit()
  int64_t checksums_bytes_ = 0;
  std::string checksums_buffer_;
};

}  // namespace tessera::storage::package
