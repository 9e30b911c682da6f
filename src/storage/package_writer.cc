#include "storage/package_writer.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "core/error.h"
#include "core/hash.h"
#include "core/ids.h"
#include "core/sha256_stream.h"
#include "storage/package_format.h"
#include "storage/package_location.h"

namespace tessera::storage {

namespace fs = std::filesystem;

namespace {

constexpr size_t kBufferBytes = 64 * 1024;

bool WriteAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    ssize_t written = ::write(fd, data, size);
    if (written < 0 && errno == EINTR) continue;
    if (written < 0) return false;
    data += written;
    size -= static_cast<size_t>(written);
  }
  return true;
}

}  // namespace

// Every byte of the archive passes through Accept(), called by libarchive: it is counted against
// the limit, hashed, and buffered to the temporary file. Accept() never throws (libarchive is C)
// and never fails towards libarchive: on the limit or an I/O error it records why and swallows
// everything from then on, and PackageWriter::Check() turns the record into an exception. (A
// failing write callback would leave libarchive in its fatal state, in which it no longer frees
// the compressor of an unfinished entry.)
struct PackageWriter::Output {
  int fd = -1;
  int64_t max_bytes = 0;
  int64_t bytes = 0;
  bool over_limit = false;
  int io_errno = 0;
  bool discarding = false;  // failed or abandoned: swallow whatever libarchive still writes
  Sha256Stream file_hash;
  std::string buffer;

  la_ssize_t Accept(const void* data, size_t length) noexcept {
    if (discarding) return static_cast<la_ssize_t>(length);
    if (bytes + static_cast<int64_t>(length) > max_bytes) {
      over_limit = true;
      discarding = true;
      return static_cast<la_ssize_t>(length);
    }
    try {
      std::string_view piece(static_cast<const char*>(data), length);
      file_hash.Update(piece);
      buffer.append(piece);
    } catch (...) {
      io_errno = ENOMEM;
      discarding = true;
      return static_cast<la_ssize_t>(length);
    }
    bytes += static_cast<int64_t>(length);
    if (buffer.size() >= kBufferBytes) Flush();
    return static_cast<la_ssize_t>(length);
  }

  bool Flush() noexcept {
    if (io_errno != 0) return false;
    if (!WriteAll(fd, buffer.data(), buffer.size())) {
      io_errno = errno;
      discarding = true;
      return false;
    }
    buffer.clear();
    return true;
  }
};

namespace {

fs::path TemporaryPathOf(const fs::path& final_path) {
  return final_path.parent_path() / ("." + final_path.filename().string() + ".tmp");
}

}  // namespace

void RemovePackageFileQuietly(const fs::path& final_path) noexcept {
  RemoveFileQuietly(final_path);
  RemoveFileQuietly(TemporaryPathOf(final_path));
}

PackageWriter::PackageWriter(fs::path final_path, int64_t max_package_bytes)
    : final_path_(std::move(final_path)),
      max_package_bytes_(max_package_bytes),
      entry_time_(std::time(nullptr)),
      output_(std::make_unique<Output>()) {
  temporary_path_ = TemporaryPathOf(final_path_);
  CreateParentDirectories(final_path_);
  output_->max_bytes = max_package_bytes_;
  output_->buffer.reserve(kBufferBytes * 2);

  // A temporary file left by a crashed writer of the same package is overwritten.
  output_->fd = ::open(temporary_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (output_->fd < 0) Fail("cannot create", errno);
  temporary_exists_ = true;

  fs::path checksums_path = final_path_.parent_path() / ("." + final_path_.filename().string() +
                                                         "." + NewTicketId() + ".sums.tmp");
  checksums_fd_ = ::open(checksums_path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (checksums_fd_ < 0) Fail("cannot create the checksum side file of", errno);
  // Unlinked at once: it lives while open and disappears with the process, even on a crash.
  if (::unlink(checksums_path.c_str()) != 0) Fail("cannot unlink the checksum side file of", errno);

  archive_ = archive_write_new();
  if (archive_ == nullptr) Fail("libarchive cannot allocate a writer for", ENOMEM);
  Check(archive_write_set_format_zip(archive_), "set the ZIP format");
  Check(archive_write_zip_set_compression_deflate(archive_), "select deflate");
  // Unblocked: every byte reaches Output::Accept() as soon as it is produced, so the count is
  // exact and the last block is not padded.
  Check(archive_write_set_bytes_per_block(archive_, 0), "set the block size");
  Check(archive_write_open2(
            archive_, output_.get(), nullptr,
            [](archive*, void* output, const void* data, size_t length) -> la_ssize_t {
              return static_cast<Output*>(output)->Accept(data, length);
            },
            nullptr, nullptr),
        "open");
}

PackageWriter::~PackageWriter() {
  if (state_ != State::kCommitted) Abandon();
}

void PackageWriter::WriteManifest(const PackageManifest& manifest) {
  RequireState(State::kNeedsManifest, "WriteManifest");
  object_count_ = manifest.object_count;
  content_entries_ = ContentEntryCount(manifest.content_count);
  WriteEntry(kManifestEntryName, DumpJson(ToJson(manifest)));
  state_ = State::kWritingObjects;
}

void PackageWriter::AddContent(std::string_view json) {
  RequireState(State::kWritingObjects, "AddContent");
  if (objects_written_ > 0 || content_entries_written_ == content_entries_) {
    Abandon();
    throw Error(ErrorCode::kInternal, "package writer: AddContent: the manifest announces " +
                                          std::to_string(content_entries_) +
                                          " content entries, and they come before the objects");
  }
  WriteEntry(ContentEntryName(content_entries_written_ + 1), json);
  ++content_entries_written_;
}

void PackageWriter::AddObject(std::string_view id, std::string_view json) {
  RequireState(State::kWritingObjects, "AddObject");
  RequireContentWritten("AddObject");
  if (!IsValidEntryId(id)) {
    Abandon();
    throw Error(ErrorCode::kInternal,
                "package writer: '" + std::string(id) + "' cannot name a package entry");
  }
  WriteEntry(ObjectEntryName(objects_written_ + 1, id), json);
  ++objects_written_;
}

PackageFileInfo PackageWriter::Commit() {
  RequireState(State::kWritingObjects, "Commit");
  RequireContentWritten("Commit");
  if (objects_written_ != object_count_) {
    Abandon();
    throw Error(ErrorCode::kInternal, "package writer: the manifest announces " +
                                          std::to_string(object_count_) + " objects but " +
                                          std::to_string(objects_written_) + " were added");
  }
  WriteTrailer();
  Check(archive_write_close(archive_), "finish");
  archive_write_free(archive_);
  archive_ = nullptr;

  if (!output_->Flush()) Fail("cannot write", output_->io_errno);
  if (::fsync(output_->fd) != 0) Fail("cannot sync", errno);
  int fd = output_->fd;
  output_->fd = -1;
  if (::close(fd) != 0) Fail("cannot close", errno);
  if (::rename(temporary_path_.c_str(), final_path_.c_str()) != 0) Fail("cannot rename", errno);
  temporary_exists_ = false;
  ::close(checksums_fd_);
  checksums_fd_ = -1;
  state_ = State::kCommitted;
  try {
    SyncDirectory(final_path_.parent_path());
  } catch (...) {
    RemoveFileQuietly(final_path_);  // not durable: report failure and leave nothing
    throw;
  }
  return {output_->bytes, output_->file_hash.FinishHex()};
}

void PackageWriter::RequireState(State expected, std::string_view call) {
  if (state_ == expected) return;
  std::string reason = state_ == State::kFailed          ? "the writer failed before"
                       : state_ == State::kCommitted     ? "the package is committed"
                       : state_ == State::kNeedsManifest ? "the manifest must be written first"
                                                         : "the manifest is already written";
  if (state_ != State::kFailed && state_ != State::kCommitted) Abandon();
  throw Error(ErrorCode::kInternal, "package writer: " + std::string(call) + ": " + reason);
}

void PackageWriter::RequireContentWritten(std::string_view call) {
  if (content_entries_written_ == content_entries_) return;
  Abandon();
  throw Error(ErrorCode::kInternal, "package writer: " + std::string(call) +
                                        ": the manifest announces " +
                                        std::to_string(content_entries_) + " content entries but " +
                                        std::to_string(content_entries_written_) + " were added");
}

void PackageWriter::WriteEntry(std::string_view name, std::string_view data) {
  std::string checksum_line = ChecksumLine(Sha256Hex(data), name);
  std::unique_ptr<archive_entry, void (*)(archive_entry*)> entry(archive_entry_new(),
                                                                 archive_entry_free);
  if (!entry) Fail("libarchive cannot allocate an entry for", ENOMEM);
  archive_entry_set_pathname(entry.get(), std::string(name).c_str());
  archive_entry_set_filetype(entry.get(), AE_IFREG);
  archive_entry_set_perm(entry.get(), 0644);
  archive_entry_set_mtime(entry.get(), entry_time_, 0);
  archive_entry_set_size(entry.get(), static_cast<la_int64_t>(data.size()));
  Check(archive_write_header(archive_, entry.get()), "write the header of an entry");
  entry_open_ = true;
  while (!data.empty()) {
    la_ssize_t written = archive_write_data(archive_, data.data(), data.size());
    Check(written < 0 ? written : ARCHIVE_OK, "write an entry");
    if (written <= 0) Fail("libarchive accepted no data for", EIO);
    data.remove_prefix(static_cast<size_t>(written));
  }
  Check(archive_write_finish_entry(archive_), "finish an entry");
  entry_open_ = false;
  AppendChecksumLine(checksum_line);
}

void PackageWriter::WriteTrailer() {
  AppendChecksumLine(std::string(kObjectCountLinePrefix) + std::to_string(objects_written_) + "\n");
  FlushChecksums();
  if (::lseek(checksums_fd_, 0, SEEK_SET) != 0) Fail("cannot rewind the checksums of", errno);

  std::unique_ptr<archive_entry, void (*)(archive_entry*)> entry(archive_entry_new(),
                                                                 archive_entry_free);
  if (!entry) Fail("libarchive cannot allocate an entry for", ENOMEM);
  archive_entry_set_pathname(entry.get(), std::string(kChecksumsEntryName).c_str());
  archive_entry_set_filetype(entry.get(), AE_IFREG);
  archive_entry_set_perm(entry.get(), 0644);
  archive_entry_set_mtime(entry.get(), entry_time_, 0);
  archive_entry_set_size(entry.get(), static_cast<la_int64_t>(checksums_bytes_));
  Check(archive_write_header(archive_, entry.get()), "write the header of the trailer");
  entry_open_ = true;

  std::string chunk(kBufferBytes, '\0');
  int64_t remaining = checksums_bytes_;
  while (remaining > 0) {
    ssize_t got = ::read(checksums_fd_, chunk.data(), chunk.size());
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) Fail("cannot read back the checksums of", got < 0 ? errno : EIO);
    std::string_view piece(chunk.data(), static_cast<size_t>(got));
    while (!piece.empty()) {
      la_ssize_t written = archive_write_data(archive_, piece.data(), piece.size());
      Check(written < 0 ? written : ARCHIVE_OK, "write the trailer");
      if (written <= 0) Fail("libarchive accepted no data for", EIO);
      piece.remove_prefix(static_cast<size_t>(written));
    }
    remaining -= got;
  }
  Check(archive_write_finish_entry(archive_), "finish the trailer");
  entry_open_ = false;
}

void PackageWriter::AppendChecksumLine(std::string_view line) {
  checksums_buffer_ += line;
  checksums_bytes_ += static_cast<int64_t>(line.size());
  if (checksums_buffer_.size() >= kBufferBytes) FlushChecksums();
}

void PackageWriter::FlushChecksums() {
  if (!WriteAll(checksums_fd_, checksums_buffer_.data(), checksums_buffer_.size())) {
    Fail("cannot write the checksums of", errno);
  }
  checksums_buffer_.clear();
}

void PackageWriter::Check(int64_t libarchive_result, std::string_view what) {
  if (output_->over_limit) {
    Abandon();
    throw PackageTooLarge(max_package_bytes_, objects_written_, object_count_);
  }
  if (output_->io_errno != 0) Fail("cannot write", output_->io_errno);
  // ARCHIVE_WARN is a note about an entry's metadata; our entries' metadata is plain ASCII.
  if (libarchive_result >= ARCHIVE_WARN) return;
  std::string detail = "libarchive cannot " + std::string(what);
  if (archive_ != nullptr && archive_error_string(archive_) != nullptr) {
    detail += " (" + std::string(archive_error_string(archive_)) + ")";
  }
  Fail(detail + " for", 0);
}

void PackageWriter::Fail(std::string_view what, int errno_value) {
  Abandon();
  ThrowLocationUnavailable(std::string(what) + " the package file " + temporary_path_.string(),
                           errno_value);
}

void PackageWriter::Abandon() noexcept {
  if (state_ == State::kFailed) return;
  state_ = State::kFailed;
  if (archive_ != nullptr) {
    // Finishing the open entry and closing the archive (in archive_write_free()) release what
    // libarchive holds; what they still write is swallowed.
    output_->discarding = true;
    if (entry_open_) archive_write_finish_entry(archive_);
    archive_write_free(archive_);
    archive_ = nullptr;
  }
  if (output_->fd >= 0) {
    ::close(output_->fd);
    output_->fd = -1;
  }
  if (temporary_exists_) {
    RemoveFileQuietly(temporary_path_);
    temporary_exists_ = false;
  }
  if (checksums_fd_ >= 0) {
    ::close(checksums_fd_);
    checksums_fd_ = -1;
  }
}

}  // namespace tessera::storage
