
#include "storage/package/location.h"
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <regex>
#include "core/error.h"
#include "core/file_descriptor.h"
#include "core/ids.h"
#include "core/private_files.h"
#include "core/sha256_stream.h"

namespace tessera::storage::package {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kSharedDirectory = "mstr/shared";

// The four layout shapes, and nothing else (header comment).
const std::regex& LayoutShapes() {
  static const std::regex shapes(
      "mstr/shared/migrations/packages/[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])/"
      "[0-9A-F]{32}\\.mmp"
      "|mstr/shared/migrations/undo/[0-9A-F]{32}/[0-9A-F]{32}\\.mmp"
      "|mstr/shared/migrations/status/[0-9A-F]{32}/[0-9A-F]{32}\\.json"
      "|mstr/shared/files/[0-9A-F]{32}\\.mmp",
      std::regex::ECMAScript | std::regex::optimize);
  return shapes;
}

void RequireId(std::string_view id, std::string_view what) {
  if (CanonicalObjectId(id) != id) {
    throw Error(ErrorCode::kInvalidInput,
                std::string(what) + ": '" + std::string(id) + "' is not 32 upper-case hex digits");
  }
}

std::string Quoted(std::string_view text) {
  constexpr size_t kShown = 200;
  std::string shown(text.substr(0, kShown));
  if (text.size() > kShown) shown += "...";
  return "'" + shown + "'";
}

void WriteAll(int fd, std::string_view data, const fs::path& file) {
  if (!WriteToFd(fd, data)) ThrowLocationUnavailable("cannot write " + file.string(), errno);
}

std::string ReadAll(int fd, const fs::path& file) {
  std::string contents;
  char buffer[4096];
  while (true) {
    ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) ThrowLocationUnavailable("cannot read " + file.string(), errno);
    if (got == 0) return contents;
    contents.append(buffer, static_cast<size_t>(got));
  }
}

fs::path TemporaryNextTo(const fs::path& file, std::string_view writer) {
  // A random part keeps two writers of the same file (two nodes) from sharing a temporary file;
  // the writer's name lets it find its own after a crash.
  std::string name = "." + file.filename().string() + ".";
  if (!writer.empty()) name += std::string(writer) + ".";
  return file.parent_path() / (name + NewTicketId() + ".tmp");
}

// Appends `length` bytes of `in` from `offset` to `out`, returning their SHA-256.
std::string CopyRange(int in, uint64_t offset, uint64_t length, int out, const fs::path& source,
                      const fs::path& target) {
  constexpr size_t kChunkBytes = 1 << 20;
  std::string buffer(kChunkBytes, '\0');
  Sha256Stream hash;
  while (length > 0) {
    size_t wanted = static_cast<size_t>(std::min<uint64_t>(length, kChunkBytes));
    ssize_t got = ::pread(in, buffer.data(), wanted, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      throw Error(ErrorCode::kInternal,
                  "cannot read " + source.string() + ": " + std::strerror(errno));
    }
    if (got == 0) throw Error(ErrorCode::kInvalidInput, "The uploaded content is truncated");
    std::string_view piece(buffer.data(), static_cast<size_t>(got));
    hash.Update(piece);
    WriteAll(out, piece, target);
    offset += static_cast<uint64_t>(got);
    length -= static_cast<uint64_t>(got);
  }
  return hash.FinishHex();
}

// Writes a new temporary file next to `file` with `write`, syncs and closes it, lets `accept`
// (if any) refuse it by throwing, then renames it over `file` and syncs the directory. Whatever
// throws removes the temporary file.
void ReplaceAtomically(const fs::path& file, std::string_view writer,
                       const std::function<void(int fd, const fs::path& temporary)>& write,
                       const std::function<void(const fs::path& temporary)>& accept) {
  CreateParentDirectories(file);
  fs::path temporary = TemporaryNextTo(file, writer);
  try {
    FileDescriptor out(
        ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, kPrivateFileMode));
    if (out.get() < 0) ThrowLocationUnavailable("cannot create " + temporary.string(), errno);
    write(out.get(), temporary);
    if (::fsync(out.get()) != 0)
      ThrowLocationUnavailable("cannot sync " + temporary.string(), errno);
    if (out.Close() != 0) ThrowLocationUnavailable("cannot close " + temporary.string(), errno);
    if (accept) accept(temporary);
    if (::rename(temporary.c_str(), file.c_str()) != 0) {
      ThrowLocationUnavailable("cannot rename " + temporary.string() + " to " + file.string(),
                               errno);
    }
  } catch (...) {
    RemoveFileQuietly(temporary);
    throw;
  }
  SyncDirectory(file.parent_path());
}

}  // namespace

PackageLocation::PackageLocation(const fs::path& root, std::string writer)
    : writer_(std::move(writer)) {
  if (root.empty()) {
    throw Error(ErrorCode::kServiceUnavailable, std::string(kLocationNotConfiguredMessage));
  }
  root_ = fs::absolute(root).lexically_normal();
}

int PackageLocation::RemoveTemporaryFilesOfWriter() const {
  if (writer_.empty()) return 0;
  const std::string mark = "." + writer_ + ".";
  int removed = 0;
  std::error_code error;
  for (auto it = fs::recursive_directory_iterator(root_ / kSharedDirectory, error);
       it != fs::recursive_directory_iterator(); it.increment(error)) {
    if (error) break;
    const std::string name = it->path().filename().string();
    if (!name.starts_with(".") || !name.ends_with(".tmp") || name.find(mark) == std::string::npos ||
        !it->is_regular_file()) {
      continue;
    }
    if (RemoveFileIfExists(it->path())) ++removed;
  }
  return removed;
}

fs::path PackageLocation::Resolve(std::string_view relative_path) const {
  std::string path(relative_path);
  if (!std::regex_match(path, LayoutShapes())) {
    throw Error(ErrorCode::kInvalidInput,
                "storage.path: " + Quoted(relative_path) +
                    " is not a path in the storage location; expected "
                    "mstr/shared/migrations/packages/<yyyy-MM-dd>/<32 hex>.mmp, "
                    "mstr/shared/migrations/undo/<packageId>/<importId>.mmp, "
                    "mstr/shared/migrations/status/<packageId>/<importId>.json or "
                    "mstr/shared/files/<fileId>.mmp (ids upper case)");
  }
  return root_ / path;
}

void PackageLocation::Probe() const {
  fs::path directory = root_ / kSharedDirectory;
  std::error_code error;
  CreatePrivateDirectories(directory, error);
  if (error) ThrowLocationUnavailable("cannot create " + directory.string(), error.value());

  fs::path probe = TemporaryNextTo(directory / "probe", writer_);
  std::string expected = "tessera storage location probe " + probe.filename().string();
  try {
    {
      FileDescriptor out(
          ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, kPrivateFileMode));
      if (out.get() < 0) ThrowLocationUnavailable("cannot create " + probe.string(), errno);
      WriteAll(out.get(), expected, probe);
      if (::fsync(out.get()) != 0) ThrowLocationUnavailable("cannot sync " + probe.string(), errno);
      if (out.Close() != 0) ThrowLocationUnavailable("cannot close " + probe.string(), errno);
    }
    FileDescriptor in(::open(probe.c_str(), O_RDONLY | O_CLOEXEC));
    if (in.get() < 0) ThrowLocationUnavailable("cannot open " + probe.string(), errno);
    if (ReadAll(in.get(), probe) != expected) {
      ThrowLocationUnavailable("read back other bytes than written to " + probe.string(), 0);
    }
    if (!RemoveFileIfExists(probe)) {
      ThrowLocationUnavailable("the probe file vanished: " + probe.string(), ENOENT);
    }
  } catch (...) {
    RemoveFileQuietly(probe);
    throw;
  }
}

std::string PackageRelativePath(Timestamp created_at, std::string_view file_id) {
  RequireId(file_id, "file id");
  std::chrono::year_month_day day{std::chrono::floor<std::chrono::days>(created_at)};
  char date[16];
  std::snprintf(date, sizeof date, "%04d-%02u-%02u", static_cast<int>(day.year()),
                static_cast<unsigned>(day.month()), static_cast<unsigned>(day.day()));
  return "mstr/shared/migrations/packages/" + std::string(date) + "/" + std::string(file_id) +
         ".mmp";
}

std::string UndoPackageRelativePath(std::string_view package_id, std::string_view import_id) {
  RequireId(package_id, "package id");
  RequireId(import_id, "import id");
  return "mstr/shared/migrations/undo/" + std::string(package_id) + "/" + std::string(import_id) +
         ".mmp";
}

std::string StatusFileRelativePath(std::string_view package_id, std::string_view import_id) {
  RequireId(package_id, "package id");
  RequireId(import_id, "import id");
  return "mstr/shared/migrations/status/" + std::string(package_id) + "/" + std::string(import_id) +
         ".json";
}

std::string UploadedFileRelativePath(std::string_view file_id) {
  RequireId(file_id, "file id");
  return "mstr/shared/files/" + std::string(file_id) + ".mmp";
}

void CreateParentDirectories(const fs::path& file) {
  std::error_code error;
  CreatePrivateDirectories(file.parent_path(), error);
  if (error) {
    ThrowLocationUnavailable("cannot create " + file.parent_path().string(), error.value());
  }
}

void WriteFileAtomically(const fs::path& file, std::string_view contents, std::string_view writer) {
  ReplaceAtomically(
      file, writer, [&](int fd, const fs::path& temporary) { WriteAll(fd, contents, temporary); },
      nullptr);
}

void StoreFileRange(const fs::path& source, uint64_t offset, uint64_t length, const fs::path& file,
                    const AcceptStagedFile& accept, std::string_view writer) {
  FileDescriptor in(::open(source.c_str(), O_RDONLY | O_CLOEXEC));
  if (in.get() < 0) {
    throw Error(ErrorCode::kInternal,
                "cannot open " + source.string() + ": " + std::strerror(errno));
  }
  std::string sha256;
  ReplaceAtomically(
      file, writer,
      [&](int fd, const fs::path& temporary) {
        sha256 = CopyRange(in.get(), offset, length, fd, source, temporary);
      },
      [&](const fs::path& temporary) { accept(temporary, sha256); });
}

void SyncDirectory(const fs::path& directory) {
  FileDescriptor fd(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0) ThrowLocationUnavailable("cannot open " + directory.string(), errno);
  // Some file systems cannot sync a directory (EINVAL); their renames are as durable as they get.
  if (::fsync(fd.get()) != 0 && errno != EINVAL) {
    ThrowLocationUnavailable("cannot sync " + directory.string(), errno);
  }
}

bool RemoveFileIfExists(const fs::path& file) {
  if (::unlink(file.c_str()) == 0) return true;
  if (errno == ENOENT) return false;
  ThrowLocationUnavailable("cannot remove " + file.string(), errno);
}

bool WriteToFd(int fd, std::string_view data) noexcept {
  while (!data.empty()) {
    ssize_t written = ::write(fd, data.data(), data.size());
    if (written < 0 && errno == EINTR) continue;
    if (written < 0) return false;
    data.remove_prefix(static_cast<size_t>(written));
  }
  return true;
}

void RemoveFileQuietly(const fs::path& file) noexcept {
  if (::unlink(file.c_str()) != 0 && errno != ENOENT) {
    spdlog::warn("storage location: cannot remove {}: {}", file.string(), std::strerror(errno));
  }
}

void ThrowLocationUnavailable(std::string_view what, int errno_value) {
  if (errno_value != 0) {
    spdlog::warn("storage location: {}: {}", what, std::strerror(errno_value));
  } else {
    spdlog::warn("storage location: {}", what);
  }
  throw Error(ErrorCode::kServiceUnavailable, std::string(kLocationUnavailableMessage));
}

}  // namespace tessera::storage::package
