// engine/checked_file.h
//
// Binary files that are written whole and read back distrustfully: cube snapshots
// (engine/dataset_snapshot.h) and pushed rows (engine/push/pushed_rows_file.h). Values are written
// in the machine's byte order, buffered, with a 64-bit checksum of every byte appended on Commit().
//
//   - CheckedOutput creates a new file (never overwrites one) and throws Error(kInternal) naming
//     the file on any I/O failure. Commit() writes the checksum, flushes and fsyncs.
//   - CheckedInput never reads past the body (the file minus its checksum). CheckAvailable()
//     refuses counts the rest of the file cannot hold before anything is allocated for them;
//     Finish() checks that the body was read exactly and that the checksum matches. A missing
//     file is Error(kNotFound); anything corrupt or truncated is Error(kInternal) saying what.
//   - WriteFileAtomically() writes through a temporary file in the same directory, renamed over
//     `path` once committed, so readers see the old file or the new one, never half of one; the
//     temporary file is removed on failure.
//   - Cells are a u8 tag (0 null, 1 integer, 2 real, 3 text) then i64 | f64 | string, where a
//     string is a u32 length and its bytes.
// The description ("the cube snapshot") names the file in every error message.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/private_files.h"
#include "engine/dictionary.h"

namespace tessera::engine {

inline constexpr size_t kMagicBytes = 8;  // every checked file starts with an 8-byte magic
inline constexpr size_t kBufferBytes = size_t{1} << 20;

// A 64-bit checksum of a byte stream, fed in pieces of any size: it detects torn and corrupted
// files, not tampering. Eight bytes at a time, so it keeps up with the disk.
class StreamChecksum {
 public:
  void Update(const void* data, size_t size) {
    if (size == 0) return;  // `data` may be null then
    const auto* bytes = static_cast<const uint8_t*>(data);
    total_ += size;
    if (pending_size_ > 0) {
      const size_t taken = std::min(size, sizeof pending_ - pending_size_);
      std::memcpy(pending_ + pending_size_, bytes, taken);
      pending_size_ += taken;
      bytes += taken;
      size -= taken;
      if (pending_size_ < sizeof pending_) return;  // every byte went to the partial word
      Mix(Load(pending_));
      pending_size_ = 0;
    }
    for (; size >= 8; bytes += 8, size -= 8) Mix(Load(bytes));
    if (size > 0) std::memcpy(pending_, bytes, size);
    pending_size_ = size;
  }

  uint64_t Finish() const {
    uint64_t state = state_;
    if (pending_size_ > 0) {
      uint8_t last[8] = {};
      std::memcpy(last, pending_, pending_size_);
      state = Mixed(state, Load(last));
    }
    state = Mixed(state, total_);
    state ^= state >> 33;
    state *= 0xFF51AFD7ED558CCDull;
    state ^= state >> 33;
    return state;
  }

 private:
  static uint64_t Load(const uint8_t* bytes) {
    uint64_t word;
    std::memcpy(&word, bytes, 8);
    return word;
  }
  static uint64_t Mixed(uint64_t state, uint64_t word) {
    state = (state ^ word) * 0x9E3779B97F4A7C15ull;
    return state ^ (state >> 29);
  }
  void Mix(uint64_t word) { state_ = Mixed(state_, word); }

  uint64_t state_ = 0x243F6A8885A308D3ull;
  uint64_t total_ = 0;
  uint8_t pending_[8] = {};
  size_t pending_size_ = 0;
};

inline std::string ErrnoText() { return std::strerror(errno); }

[[noreturn]] inline void FailIo(const char* what, const std::string& description,
                                const std::filesystem::path& path) {
  throw Error(ErrorCode::kInternal,
              std::string(what) + " " + description + " " + path.string() + ": " + ErrnoText());
}

// Closes the descriptor it holds, also when a constructor throws after opening it.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd() { Close(); }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  int get() const { return fd_; }
  bool is_open() const { return fd_ >= 0; }
  int Close() {
    if (fd_ < 0) return 0;
    const int result = ::close(fd_);
    fd_ = -1;
    return result;
  }

 private:
  int fd_ = -1;
};

// Buffered, checksummed output to a new file; Commit() makes it durable.
class CheckedOutput {
 public:
  CheckedOutput(std::filesystem::path path, std::string description)
      : path_(std::move(path)),
        description_(std::move(description)),
        fd_(::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, kPrivateFileMode)) {
    if (!fd_.is_open()) Fail("cannot create");
    buffer_.reserve(kBufferBytes);
  }

  void Bytes(const void* data, size_t size) {
    checksum_.Update(data, size);
    Append(data, size);
  }
  template <typename T>
  void Value(T value) {
    Bytes(&value, sizeof value);
  }
  void U8(uint8_t value) { Value(value); }
  void U32(uint32_t value) { Value(value); }
  void I32(int32_t value) { Value(value); }
  void U64(uint64_t value) { Value(value); }
  void String(std::string_view text) {
    U32(static_cast<uint32_t>(text.size()));
    Bytes(text.data(), text.size());
  }

  // Writes the checksum, flushes and fsyncs.
  void Commit() {
    const uint64_t checksum = checksum_.Finish();
    Append(&checksum, sizeof checksum);
    Flush();
    if (::fsync(fd_.get()) != 0) Fail("cannot sync");
    if (fd_.Close() != 0) Fail("cannot close");
  }

 private:
  void Append(const void* data, size_t size) {
    const auto* bytes = static_cast<const char*>(data);
    while (size > 0) {
      if (buffer_.size() == kBufferBytes) Flush();
      const size_t take = std::min(size, kBufferBytes - buffer_.size());
      buffer_.insert(buffer_.end(), bytes, bytes + take);
      bytes += take;
      size -= take;
    }
  }

  void Flush() {
    size_t written = 0;
    while (written < buffer_.size()) {
      ssize_t n = ::write(fd_.get(), buffer_.data() + written, buffer_.size() - written);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) Fail("cannot write");
      written += static_cast<size_t>(n);
    }
    buffer_.clear();
  }

  [[noreturn]] void Fail(const char* what) const { FailIo(what, description_, path_); }

  std::filesystem::path path_;
  std::string description_;
  UniqueFd fd_;
  std::vector<char> buffer_;
  StreamChecksum checksum_;
};

// Buffered, checksummed input that never reads past the body (the file minus its checksum).
class CheckedInput {
 public:
  CheckedInput(std::filesystem::path path, std::string description)
      : path_(std::move(path)),
        description_(std::move(description)),
        fd_(::open(path_.c_str(), O_RDONLY | O_CLOEXEC)) {
    if (!fd_.is_open()) {
      const bool missing = errno == ENOENT;
      throw Error(missing ? ErrorCode::kNotFound : ErrorCode::kInternal,
                  "cannot open " + description_ + " " + path_.string() + ": " + ErrnoText());
    }
    struct stat status {};
    if (::fstat(fd_.get(), &status) != 0) Fail("cannot read");
    if (status.st_size < static_cast<off_t>(kMagicBytes + sizeof(uint64_t))) {
      Corrupt("the file is truncated");
    }
    body_left_ = static_cast<uint64_t>(status.st_size) - sizeof(uint64_t);
    buffer_bytes_ = std::min<uint64_t>(kBufferBytes, status.st_size);
  }

  uint64_t remaining() const { return body_left_; }

  void Bytes(void* data, size_t size) {
    if (size > body_left_) Corrupt("the file is truncated");
    body_left_ -= size;
    Take(data, size);
    checksum_.Update(data, size);
  }
  template <typename T>
  T Value() {
    T value;
    Bytes(&value, sizeof value);
    return value;
  }
  uint8_t U8() { return Value<uint8_t>(); }
  uint32_t U32() { return Value<uint32_t>(); }
  int32_t I32() { return Value<int32_t>(); }
  uint64_t U64() { return Value<uint64_t>(); }
  std::string String() {
    const uint32_t size = U32();
    CheckAvailable(size, 1, "a string");
    std::string text(size, '\0');
    Bytes(text.data(), size);
    return text;
  }

  // Refuses a count of `count` items of at least `item_bytes` each that the file cannot hold,
  // before anything is allocated for them.
  void CheckAvailable(uint64_t count, uint64_t item_bytes, const std::string& what) const {
    if (item_bytes > 0 && count > body_left_ / item_bytes) {
      Corrupt(what + " is larger than the rest of the file");
    }
  }

  // Checks that the body is fully read and matches the stored checksum.
  void Finish() {
    if (body_left_ != 0) Corrupt("unexpected bytes at the end");
    uint64_t stored = 0;
    Take(&stored, sizeof stored);
    if (stored != checksum_.Finish()) Corrupt("the checksum does not match");
  }

  [[noreturn]] void Corrupt(const std::string& what) const {
    throw Error(ErrorCode::kInternal,
                description_ + " " + path_.string() + " is corrupt or truncated: " + what);
  }

 private:
  void Take(void* data, size_t size) {
    auto* out = static_cast<char*>(data);
    while (size > 0) {
      if (position_ == buffer_.size()) {
        if (size >= buffer_bytes_) {  // large arrays go straight to their column
          const size_t n = ReadSome(out, size);
          out += n;
          size -= n;
          continue;
        }
        buffer_.resize(buffer_bytes_);
        buffer_.resize(ReadSome(buffer_.data(), buffer_bytes_));
        position_ = 0;
      }
      const size_t take = std::min(size, buffer_.size() - position_);
      std::memcpy(out, buffer_.data() + position_, take);
      position_ += take;
      out += take;
      size -= take;
    }
  }

  size_t ReadSome(char* out, size_t size) {
    for (;;) {
      ssize_t n = ::read(fd_.get(), out, size);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) Fail("cannot read");
      if (n == 0) Corrupt("the file is truncated");  // shrank while being read
      return static_cast<size_t>(n);
    }
  }

  [[noreturn]] void Fail(const char* what) const { FailIo(what, description_, path_); }

  std::filesystem::path path_;
  std::string description_;
  UniqueFd fd_;
  uint64_t body_left_ = 0;
  size_t buffer_bytes_ = kBufferBytes;
  std::vector<char> buffer_;
  size_t position_ = 0;
  StreamChecksum checksum_;
};

Cell ReadCell(CheckedInput& in);
// The bytes of `cell` (the cell format above), appended to `bytes`: a writer of many cells
// encodes them into a batch and hands it over in one Bytes() call.
void AppendCellBytes(std::string& bytes, const Cell& cell);
// The bytes of each cell, in order, handed to `out` in batches.
void WriteCells(CheckedOutput& out, const std::vector<Cell>& cells);

// fsyncs a directory, so a rename in it survives a crash (best effort).
void SyncDirectory(const std::filesystem::path& directory);

void WriteFileAtomically(const std::filesystem::path& path, const std::string& description,
                         const std::function<void(CheckedOutput&)>& write_body);

}  // namespace tessera::engine
