// storage/package/zip_stream_writer.h
//
// A ZIP archive (PKWARE APPNOTE 6.3) written front to back, deflate-compressed, through a byte
// sink, in memory that does not grow with its entries: the central directory waits in a side
// file until Finish() appends it.
//
// Contract:
//   - Calls come as BeginEntry(), Write() any number of times, EndEntry(), for each entry; then
//     Finish() once. Entries are regular files (mode 0644) dated `entry_time`; their CRC-32 and
//     sizes follow the data in a data descriptor (general purpose flag bit 3), so nothing is
//     buffered per entry.
//   - An entry's compressed and uncompressed sizes stay below 4 GiB; the archive itself may be
//     larger and hold more than 65,534 entries: the ZIP64 end records are written when the entry
//     count or an offset needs them, and an entry's directory record carries a ZIP64 offset when
//     its local header starts beyond 4 GiB.
//   - `directory_fd` is an empty file open for reading and writing (the caller's, typically
//     unlinked) that the writer fills with the central directory and reads back in Finish().
//   - Every byte of the archive goes to `sink`, in order, in pieces of at most 64 KiB.
//   - Failures throw ZipStreamError: the side file cannot be written or read (its errno), zlib
//     fails (ENOMEM), an entry reaches 4 GiB (EFBIG). The writer is unusable after a failure.
#pragma once

#include <cstdint>
#include <ctime>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace tessera::storage::package {

class ZipStreamError : public std::runtime_error {
 public:
  ZipStreamError(const std::string& what, int errno_value)
      : std::runtime_error(what), errno_value_(errno_value) {}
  int errno_value() const { return errno_value_; }

 private:
  int errno_value_;
};

class ZipStreamWriter {
 public:
  using Sink = std::function<void(std::string_view bytes)>;

  ZipStreamWriter(Sink sink, int directory_fd, std::time_t entry_time);
  ~ZipStreamWriter();
  ZipStreamWriter(const ZipStreamWriter&) = delete;
  ZipStreamWriter& operator=(const ZipStreamWriter&) = delete;

  void BeginEntry(std::string_view name);
  void Write(std::string_view data);
  void EndEntry();
  void Finish();

  int64_t entries() const { return entries_; }

 private:
  struct Deflater;  // zlib's raw deflate stream, reset for each entry

  void Emit(std::string_view bytes);
  void AppendDirectoryRecord();
  void FlushDirectory();
  void CopyDirectory();
  void WriteEndRecords(int64_t directory_offset, int64_t directory_size);

  Sink sink_;
  int directory_fd_;
  uint16_t dos_time_;
  uint16_t dos_date_;
  std::unique_ptr<Deflater> deflater_;
  int64_t offset_ = 0;  // bytes emitted so far
  int64_t entries_ = 0;
  bool entry_open_ = false;
  // The open entry.
  std::string name_;
  int64_t local_header_offset_ = 0;
  uint32_t crc_ = 0;
  int64_t uncompressed_bytes_ = 0;
  int64_t compressed_bytes_ = 0;
  std::string directory_buffer_;
  int64_t directory_bytes_ = 0;
};

}  // namespace tessera::storage::package
