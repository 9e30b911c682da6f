
#include "storage/package/reader.h"
#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include "core/error.h"
#include "core/file_descriptor.h"
#include "core/json.h"
#include "core/strings.h"
#include "storage/package/format.h"

namespace tessera::storage::package {

namespace fs = std::filesystem;

namespace {

constexpr size_t kReadBlockBytes = 64 * 1024;
constexpr int64_t kEndRecordBytes = 22;  // ZIP end of central directory record, without comment
constexpr int64_t kMaxCommentBytes = 65535;
constexpr size_t kMaxTrailerLineBytes = 4096;

// Opens `path` for reading, or throws PackageNotAccessible (the reason is logged).
int OpenPackage(const fs::path& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    spdlog::warn("package file {}: {}", path.string(), std::strerror(errno));
    throw PackageNotAccessible();
  }
  struct stat status;
  if (::fstat(fd, &status) != 0 || !S_ISREG(status.st_mode)) {
    spdlog::warn("package file {}: not a regular file", path.string());
    ::close(fd);
    throw PackageNotAccessible();
  }
  return fd;
}

int64_t FileSize(int fd) {
  struct stat status;
  if (::fstat(fd, &status) != 0)
    throw PackageCorrupt(std::string("cannot stat: ") + std::strerror(errno));
  return status.st_size;
}

std::string LibarchiveError(archive* handle) {
  const char* reason = archive_error_string(handle);
  return reason ? reason : "unreadable";
}

uint32_t LittleEndian(const std::string& bytes, int64_t at, int width) {
  uint32_t value = 0;
  for (int i = width - 1; i >= 0; --i) {
    value = (value << 8) | static_cast<unsigned char>(bytes[static_cast<size_t>(at + i)]);
  }
  return value;
}

// Finds the ZIP end of central directory record that ends the file exactly (a truncated file has
// none) and returns how many entries it says the directory holds, or -1 when it defers to a
// Zip64 record. Throws PackageCorrupt.
int64_t ReadEndRecord(int fd, int64_t size) {
  if (size < kEndRecordBytes) {
    throw PackageCorrupt("the file has " + std::to_string(size) + " bytes, too few for a ZIP file");
  }
  const int64_t tail_size = std::min(size, kEndRecordBytes + kMaxCommentBytes);
  std::string tail(static_cast<size_t>(tail_size), '\0');
  int64_t done = 0;
  while (done < tail_size) {
    ssize_t got = ::pread(fd, tail.data() + done, static_cast<size_t>(tail_size - done),
                          size - tail_size + done);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) throw PackageCorrupt("cannot read the end of the file");
    done += got;
  }
  for (int64_t at = tail_size - kEndRecordBytes; at >= 0; --at) {
    if (std::memcmp(tail.data() + at, "PK\x05\x06", 4) != 0) continue;
    if (at + kEndRecordBytes + LittleEndian(tail, at + 20, 2) != tail_size) continue;
    const uint32_t entries = LittleEndian(tail, at + 10, 2);
    const uint32_t directory_size = LittleEndian(tail, at + 12, 4);
    const uint32_t directory_offset = LittleEndian(tail, at + 16, 4);
    if (entries == 0xFFFF || directory_size == 0xFFFFFFFF || directory_offset == 0xFFFFFFFF) {
      return -1;
    }
    if (int64_t{directory_offset} + directory_size != size - tail_size + at) {
      throw PackageCorrupt("the ZIP directory does not end where the ZIP end record starts");
    }
    return entries;
  }
  throw PackageCorrupt("the ZIP end record is missing (the file is truncated)");
}

}  // namespace

PackageReader::PackageReader(const fs::path& path) : path_(path), fd_(OpenPackage(path)) {
  try {
    directory_entries_ = ReadEndRecord(fd_, FileSize(fd_));
    archive_ = archive_read_new();
    if (archive_ == nullptr) throw Error(ErrorCode::kInternal, "libarchive: out of memory");
    archive_read_support_format_zip_streamable(archive_);
    if (archive_read_open_fd(archive_, fd_, kReadBlockBytes) != ARCHIVE_OK) {
      Corrupt(LibarchiveError(archive_));
    }
    std::string text = ReadManifestText();
    try {
      manifest_ = ParsePackageManifest(ParseJson(text));
    } catch (const PackageCorrupt&) {
      throw;
    } catch (const Error& error) {
      Corrupt(error.message());
    }
    content_entries_ = ContentEntryCount(manifest_.content_count);
    if (directory_entries_ >= 0 &&
        manifest_.object_count != directory_entries_ - content_entries_ - 2) {
      Corrupt("the ZIP directory lists " + std::to_string(directory_entries_) +
              " entries, the manifest announces " + std::to_string(manifest_.object_count) +
              " objects and " + std::to_string(manifest_.content_count) + " content items");
    }
  } catch (...) {
    Close();
    throw;
  }
}

PackageReader::~PackageReader() { Close(); }

std::string PackageReader::ReadManifestText() {
  archive_entry* entry = nullptr;
  int result = archive_read_next_header(archive_, &entry);
  if (result == ARCHIVE_EOF) Corrupt("the archive has no entries");
  if (result != ARCHIVE_OK) Corrupt(LibarchiveError(archive_));
  const char* name = archive_entry_pathname(entry);
  if (name == nullptr || name != kManifestEntryName) {
    Corrupt("the first entry is '" + std::string(name ? name : "") + "', not " +
            std::string(kManifestEntryName));
  }
  std::string text;
  ReadEntryData(kManifestEntryName, text);
  return text;
}

bool PackageReader::NextContent(std::string& json) {
  if (state_ == State::kFailed) Corrupt("the package was found damaged before");
  if (state_ == State::kFinished || content_entries_read_ == content_entries_) return false;

  archive_entry* entry = nullptr;
  int result = archive_read_next_header(archive_, &entry);
  if (result == ARCHIVE_EOF) Corrupt("a content entry is missing (the file is truncated)");
  if (result != ARCHIVE_OK) Corrupt(LibarchiveError(archive_));
  const char* name_text = archive_entry_pathname(entry);
  std::string name = name_text ? name_text : "";
  std::string expected = ContentEntryName(content_entries_read_ + 1);
  if (name != expected) {
    Corrupt("entry '" + name + "' is not " + expected + ", the next one expected");
  }
  ReadEntryData(name, json);
  ++content_entries_read_;
  return true;
}

bool PackageReader::Next(PackageEntry& out) {
  if (state_ == State::kFinished) return false;
  if (state_ == State::kFailed) Corrupt("the package was found damaged before");
  while (NextContent(out.json)) {
  }

  archive_entry* entry = nullptr;
  int result = archive_read_next_header(archive_, &entry);
  if (result == ARCHIVE_EOF) Corrupt("checksums.tsv is missing (the file is truncated)");
  if (result != ARCHIVE_OK) Corrupt(LibarchiveError(archive_));
  const char* name_text = archive_entry_pathname(entry);
  std::string name = name_text ? name_text : "";

  if (name == kChecksumsEntryName) {
    VerifyTrailer();
    CheckNothingFollowsTheTrailer();
    state_ = State::kFinished;
    return false;
  }
  std::optional<std::string> id = ObjectIdOfEntry(name, objects_read_ + 1);
  if (!id) {
    Corrupt("entry '" + name + "' is not " + ObjectEntryName(objects_read_ + 1, "<id>") +
            ", the next one expected");
  }
  ReadEntryData(name, out.json);
  out.name = std::move(name);
  out.id = std::move(*id);
  ++objects_read_;
  return true;
}

// Reads the current entry whole into `out`, hashing it and noting its checksum line.
void PackageReader::ReadEntryData(std::string_view name, std::string& out) {
  out.clear();
  buffer_.resize(kReadBlockBytes);
  while (true) {
    la_ssize_t got = archive_read_data(archive_, buffer_.data(), buffer_.size());
    if (got < 0) Corrupt(std::string(name) + ": " + LibarchiveError(archive_));
    if (got == 0) break;
    if (static_cast<int64_t>(out.size()) + got > kMaxPackageEntryBytes) {
      Corrupt(std::string(name) + " is larger than " + std::to_string(kMaxPackageEntryBytes) +
              " bytes");
    }
    std::string_view piece(buffer_.data(), static_cast<size_t>(got));
    entry_hash_.Update(piece);
    out.append(piece);
  }
  expected_trailer_.Update(ChecksumLine(entry_hash_.FinishHex(), name));
  ++entries_read_;
}

// checksums.tsv is read in blocks and compared line by line through a hash of the lines, so it
// never has to be held whole (it has a line per entry).
void PackageReader::VerifyTrailer() {
  Sha256Stream listed;
  int64_t listed_entries = 0;
  std::optional<int64_t> counted_objects;
  std::string line;
  auto take_line = [&] {
    if (counted_objects) Corrupt("checksums.tsv has lines after the object count");
    if (line.starts_with(kObjectCountLinePrefix)) {
      counted_objects = ParseInt(std::string_view(line).substr(kObjectCountLinePrefix.size()));
      if (!counted_objects) Corrupt("checksums.tsv: malformed line '" + line + "'");
    } else {
      listed.Update(line);
      listed.Update("\n");
      ++listed_entries;
    }
    line.clear();
  };

  buffer_.resize(kReadBlockBytes);
  while (true) {
    la_ssize_t got = archive_read_data(archive_, buffer_.data(), buffer_.size());
    if (got < 0) Corrupt(std::string(kChecksumsEntryName) + ": " + LibarchiveError(archive_));
    if (got == 0) break;
    for (char c : std::string_view(buffer_.data(), static_cast<size_t>(got))) {
      if (c == '\n') {
        take_line();
      } else if (line.size() == kMaxTrailerLineBytes) {
        Corrupt("checksums.tsv has a line longer than " + std::to_string(kMaxTrailerLineBytes) +
                " bytes");
      } else {
        line.push_back(c);
      }
    }
  }
  if (!line.empty()) Corrupt("checksums.tsv does not end with a newline");
  if (!counted_objects) Corrupt("checksums.tsv has no object count");
  if (listed_entries != entries_read_) {
    Corrupt("checksums.tsv lists " + std::to_string(listed_entries) + " entries, the file has " +
            std::to_string(entries_read_));
  }
  if (listed.FinishHex() != expected_trailer_.FinishHex()) {
    Corrupt("an entry's SHA-256 or name differs from checksums.tsv");
  }
  if (*counted_objects != objects_read_) {
    Corrupt("checksums.tsv counts " + std::to_string(*counted_objects) + " objects, the file has " +
            std::to_string(objects_read_));
  }
  if (manifest_.object_count != objects_read_) {
    Corrupt("the manifest announces " + std::to_string(manifest_.object_count) +
            " objects, the file has " + std::to_string(objects_read_));
  }
}

void PackageReader::CheckNothingFollowsTheTrailer() {
  archive_entry* entry = nullptr;
  int result = archive_read_next_header(archive_, &entry);
  if (result == ARCHIVE_OK) {
    const char* name = archive_entry_pathname(entry);
    Corrupt("entry '" + std::string(name ? name : "") + "' follows checksums.tsv");
  }
  if (result != ARCHIVE_EOF) Corrupt(LibarchiveError(archive_));
  // The streamed entries end where the ZIP directory starts; it must list exactly them.
  if (directory_entries_ >= 0 && directory_entries_ != entries_read_ + 1) {
    Corrupt("the ZIP directory lists " + std::to_string(directory_entries_) +
            " entries, the file has " + std::to_string(entries_read_ + 1));
  }
}

void PackageReader::Corrupt(std::string_view detail) {
  state_ = State::kFailed;
  throw PackageCorrupt(detail.empty() ? std::string_view("unreadable") : detail);
}

void PackageReader::Close() noexcept {
  if (archive_ != nullptr) {
    archive_read_free(archive_);
    archive_ = nullptr;
  }
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
}

void ForEachContentEntry(PackageReader& reader, const std::function<void(Json entry)>& visit) {
  std::string text;
  for (int64_t sequence = 1; reader.NextContent(text); ++sequence) {
    Json entry;
    try {
      entry = ParseJson(text);
    } catch (const Error& error) {
      throw PackageCorrupt(ContentEntryName(sequence) + ": " + std::string(error.message()));
    }
    if (!entry.is_array()) throw PackageCorrupt(ContentEntryName(sequence) + " is not an array");
    visit(std::move(entry));
  }
}

Json ReadContentList(PackageReader& reader) {
  Json list = Json::array();
  ForEachContentEntry(reader, [&](Json entry) {
    for (auto& item : entry) list.push_back(std::move(item));
  });
  return list;
}

PackageManifest CheckPackageStructure(const fs::path& path, int64_t expected_size) {
  {
    FileDescriptor fd(OpenPackage(path));
    int64_t size = FileSize(fd.get());
    if (expected_size >= 0 && size != expected_size) {
      throw PackageCorrupt("the file has " + std::to_string(size) + " bytes, expected " +
                           std::to_string(expected_size));
    }
  }
  return PackageReader(path).ReleaseManifest();
}

PackageManifest VerifyPackage(const fs::path& path) {
  PackageReader reader(path);
  PackageEntry entry;
  while (reader.Next(entry)) {
  }
  return reader.manifest();
}

}  // namespace tessera::storage::package
