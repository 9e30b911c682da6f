#include "storage/package/writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "core/error.h"
#include "core/hash.h"
#include "core/ids.h"
#include "core/private_files.h"
#include "core/sha256_stream.h"
#include "storage/package/format.h"
#include "storage/package/location.h"
#include "storage/package/zip_stream_writer.h"

namespace tessera::storage::package {

namespace fs = std::filesystem;

namespace {

constexpr size_t kBufferBytes = 64 * 1024;

}  // namespace

// Every byte of the archive passes through Accept(): it is counted against the limit, hashed, and
// buffered to the temporary file. Accept() never throws: on the limit or an I/O error it records
// why and swallows everything from then on, and PackageWriter::CheckOutput() turns the record
// into an exception once the ZIP writer's call returns.
struct PackageWriter::Output {
  int fd = -1;
  int64_t max_bytes = 0;
  int64_t bytes = 0;
  bool over_limit = false;
  int io_errno = 0;
  bool discarding = false;  // failed or abandoned: swallow whatever the ZIP writer still writes
  Sha256Stream file_hash;
  std::string buffer;

  void Accept(std::string_view piece) noexcept {
    if (discarding) return;
    if (bytes + static_cast<int64_t>(piece.size()) > max_bytes) {
      over_limit = true;
      discarding = true;
      return;
    }
    try {
      file_hash.Update(piece);
      buffer.append(piece);
    } catch (...) {
      io_errno = ENOMEM;
      discarding = true;
      return;
    }
    bytes += static_cast<int64_t>(piece.size());
    if (buffer.size() >= kBufferBytes) Flush();
  }

  bool Flush() noexcept {
    if (io_errno != 0) return false;
    if (!WriteToFd(fd, buffer)) {
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

constexpr std::string_view kSideFileSuffixes[] = {".sums.tmp", ".dir.tmp"};

// The name a side file of `final_path` has for the moment between its creation and its unlink,
// where the file system cannot make a file without a name: ".<final name>.<random><suffix>".
std::string SideFilePrefix(const fs::path& final_path) {
  return "." + final_path.filename().string() + ".";
}

// A side file of the package being written, without a name (O_TMPFILE) where the file system
// allows it, else named and unlinked at once: it lives while open and disappears with the
// process, even on a crash. -1 with errno set when it cannot be made.
int OpenSideFile(const fs::path& final_path, std::string_view suffix) {
  int fd = ::open(final_path.parent_path().c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)) return fd;
  fs::path path =
      final_path.parent_path() / (SideFilePrefix(final_path) + NewTicketId() + std::string(suffix));
  fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return -1;
  if (::unlink(path.c_str()) != 0) {
    int unlink_errno = errno;
    ::close(fd);
    errno = unlink_errno;
    return -1;
  }
  return fd;
}

bool IsSideFileOf(const std::string& name, const std::string& prefix) {
  if (!name.starts_with(prefix)) return false;
  return std::ranges::any_of(kSideFileSuffixes,
                             [&](std::string_view suffix) { return name.ends_with(suffix); });
}

// Side files a process killed between their creation and their unlink left with a name.
void RemoveNamedSideFiles(const fs::path& final_path) noexcept {
  const std::string prefix = SideFilePrefix(final_path);
  std::error_code error;
  for (fs::directory_iterator it(final_path.parent_path(), error), end; !error && it != end;
       it.increment(error)) {
    if (IsSideFileOf(it->path().filename().string(), prefix)) RemoveFileQuietly(it->path());
  }
}

}  // namespace

void RemovePackageFileQuietly(const fs::path& final_path) noexcept {
  RemoveFileQuietly(final_path);
  RemoveFileQuietly(TemporaryPathOf(final_path));
  RemoveNamedSideFiles(final_path);
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
  output_->fd =
      ::open(temporary_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, kPrivateFileMode);
  if (output_->fd < 0) Fail("cannot create", errno);
  temporary_exists_ = true;

  checksums_fd_ = OpenSideFile(final_path_, ".sums.tmp");
  if (checksums_fd_ < 0) Fail("cannot create the checksum side file of", errno);
  directory_fd_ = OpenSideFile(final_path_, ".dir.tmp");
  if (directory_fd_ < 0) Fail("cannot create the ZIP directory side file of", errno);
  ZipCall([&] {
    zip_ = std::make_unique<ZipStreamWriter>(
        [output = output_.get()](std::string_view bytes) { output->Accept(bytes); }, directory_fd_,
        entry_time_);
  });
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
  ZipCall([&] { zip_->Finish(); });
  zip_.reset();

  if (!output_->Flush()) Fail("cannot write", output_->io_errno);
  if (::fsync(output_->fd) != 0) Fail("cannot sync", errno);
  int fd = output_->fd;
  output_->fd = -1;
  if (::close(fd) != 0) Fail("cannot close", errno);
  if (::rename(temporary_path_.c_str(), final_path_.c_str()) != 0) Fail("cannot rename", errno);
  temporary_exists_ = false;
  CloseSideFiles();
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
  ZipCall([&] {
    zip_->BeginEntry(name);
    zip_->Write(data);
    zip_->EndEntry();
  });
  AppendChecksumLine(checksum_line);
}

void PackageWriter::WriteTrailer() {
  AppendChecksumLine(std::string(kObjectCountLinePrefix) + std::to_string(objects_written_) + "\n");
  FlushChecksums();
  if (::lseek(checksums_fd_, 0, SEEK_SET) != 0) Fail("cannot rewind the checksums of", errno);

  ZipCall([&] { zip_->BeginEntry(kChecksumsEntryName); });
  std::string chunk(kBufferBytes, '\0');
  int64_t remaining = checksums_bytes_;
  while (remaining > 0) {
    ssize_t got = ::read(checksums_fd_, chunk.data(), chunk.size());
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) Fail("cannot read back the checksums of", got < 0 ? errno : EIO);
    ZipCall([&] { zip_->Write(std::string_view(chunk.data(), static_cast<size_t>(got))); });
    remaining -= got;
  }
  ZipCall([&] { zip_->EndEntry(); });
}

void PackageWriter::AppendChecksumLine(std::string_view line) {
  checksums_buffer_ += line;
  checksums_bytes_ += static_cast<int64_t>(line.size());
  if (checksums_buffer_.size() >= kBufferBytes) FlushChecksums();
}

void PackageWriter::FlushChecksums() {
  if (!WriteToFd(checksums_fd_, checksums_buffer_)) {
    Fail("cannot write the checksums of", errno);
  }
  checksums_buffer_.clear();
}

void PackageWriter::ZipCall(const std::function<void()>& call) {
  try {
    call();
  } catch (const ZipStreamError& error) {
    CheckOutput();  // the limit or the file first: they are why the ZIP writer stopped, if any
    Fail(std::string(error.what()) + " for", error.errno_value());
  }
  CheckOutput();
}

void PackageWriter::CheckOutput() {
  if (output_->over_limit) {
    Abandon();
    throw PackageTooLarge(max_package_bytes_, objects_written_, object_count_);
  }
  if (output_->io_errno != 0) Fail("cannot write", output_->io_errno);
}

void PackageWriter::CloseSideFiles() noexcept {
  for (int* fd : {&checksums_fd_, &directory_fd_}) {
    if (*fd >= 0) ::close(*fd);
    *fd = -1;
  }
}

void PackageWriter::Fail(std::string_view what, int errno_value) {
  Abandon();
  ThrowLocationUnavailable(std::string(what) + " the package file " + temporary_path_.string(),
                           errno_value);
}

void PackageWriter::Abandon() noexcept {
  if (state_ == State::kFailed) return;
  state_ = State::kFailed;
  output_->discarding = true;
  zip_.reset();
  if (output_->fd >= 0) {
    ::close(output_->fd);
    output_->fd = -1;
  }
  if (temporary_exists_) {
    RemoveFileQuietly(temporary_path_);
    temporary_exists_ = false;
  }
  CloseSideFiles();
}

}  // namespace tessera::storage::package
