#include "storage/package/zip_stream_writer.h"

#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>

#include "storage/package/location.h"

namespace tessera::storage::package {
namespace {

constexpr size_t kPieceBytes = 64 * 1024;
constexpr uint32_t kLocalHeaderSignature = 0x04034b50;
constexpr uint32_t kDescriptorSignature = 0x08074b50;
constexpr uint32_t kDirectorySignature = 0x02014b50;
constexpr uint32_t kZip64EndSignature = 0x06064b50;
constexpr uint32_t kZip64LocatorSignature = 0x07064b50;
constexpr uint32_t kEndSignature = 0x06054b50;
constexpr uint16_t kVersionNeeded = 20;           // 2.0: deflate
constexpr uint16_t kVersionNeededZip64 = 45;      // 4.5: ZIP64
constexpr uint16_t kVersionMadeBy = 0x0300 | 45;  // Unix, 4.5
constexpr uint16_t kFlagDataDescriptor = 0x0008;
constexpr uint16_t kMethodDeflate = 8;
constexpr uint16_t kZip64ExtraId = 0x0001;
constexpr uint32_t kRegularFile0644 = (0100644u) << 16;
constexpr int64_t kMax32 = 0xFFFFFFFF;
constexpr int64_t kMax16 = 0xFFFF;

void Put16(std::string& out, uint16_t value) {
  out += static_cast<char>(value & 0xFF);
  out += static_cast<char>(value >> 8);
}

void Put32(std::string& out, uint32_t value) {
  for (int shift = 0; shift < 32; shift += 8) out += static_cast<char>((value >> shift) & 0xFF);
}

void Put64(std::string& out, uint64_t value) {
  for (int shift = 0; shift < 64; shift += 8) out += static_cast<char>((value >> shift) & 0xFF);
}

}  // namespace

struct ZipStreamWriter::Deflater {
  z_stream stream{};
  bool initialised = false;
  std::string out = std::string(kPieceBytes, '\0');

  Deflater() {
    if (deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8,
                     Z_DEFAULT_STRATEGY) != Z_OK) {
      throw ZipStreamError("zlib cannot start a deflate stream", ENOMEM);
    }
    initialised = true;
  }
  ~Deflater() {
    if (initialised) deflateEnd(&stream);
  }

  // Compresses `data` (flush Z_NO_FLUSH) or ends the stream (Z_FINISH); gives `emit` the output.
  template <typename Emit>
  void Run(std::string_view data, int flush, const Emit& emit) {
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    stream.avail_in = static_cast<uInt>(data.size());
    for (;;) {
      stream.next_out = reinterpret_cast<Bytef*>(out.data());
      stream.avail_out = static_cast<uInt>(out.size());
      int result = deflate(&stream, flush);
      if (result == Z_STREAM_ERROR) throw ZipStreamError("zlib cannot deflate", ENOMEM);
      size_t produced = out.size() - stream.avail_out;
      if (produced > 0) emit(std::string_view(out.data(), produced));
      if (flush == Z_FINISH ? result == Z_STREAM_END
                            : stream.avail_in == 0 && stream.avail_out != 0) {
        return;
      }
    }
  }
};

ZipStreamWriter::ZipStreamWriter(Sink sink, int directory_fd, std::time_t entry_time)
    : sink_(std::move(sink)), directory_fd_(directory_fd), deflater_(std::make_unique<Deflater>()) {
  std::tm local{};
  localtime_r(&entry_time, &local);
  int year = std::max(local.tm_year + 1900, 1980);
  dos_date_ =
      static_cast<uint16_t>(((year - 1980) << 9) | ((local.tm_mon + 1) << 5) | local.tm_mday);
  dos_time_ =
      static_cast<uint16_t>((local.tm_hour << 11) | (local.tm_min << 5) | (local.tm_sec / 2));
}

ZipStreamWriter::~ZipStreamWriter() = default;

void ZipStreamWriter::Emit(std::string_view bytes) {
  while (!bytes.empty()) {
    std::string_view piece = bytes.substr(0, kPieceBytes);
    sink_(piece);
    offset_ += static_cast<int64_t>(piece.size());
    bytes.remove_prefix(piece.size());
  }
}

void ZipStreamWriter::BeginEntry(std::string_view name) {
  name_ = std::string(name);
  local_header_offset_ = offset_;
  crc_ = static_cast<uint32_t>(crc32(0, Z_NULL, 0));
  uncompressed_bytes_ = compressed_bytes_ = 0;
  if (deflateReset(&deflater_->stream) != Z_OK) {
    throw ZipStreamError("zlib cannot reset its deflate stream", ENOMEM);
  }
  std::string header;
  Put32(header, kLocalHeaderSignature);
  Put16(header, kVersionNeeded);
  Put16(header, kFlagDataDescriptor);
  Put16(header, kMethodDeflate);
  Put16(header, dos_time_);
  Put16(header, dos_date_);
  Put32(header, 0);  // CRC-32 and sizes: in the data descriptor
  Put32(header, 0);
  Put32(header, 0);
  Put16(header, static_cast<uint16_t>(name_.size()));
  Put16(header, 0);  // no extra field
  header += name_;
  Emit(header);
  entry_open_ = true;
}

void ZipStreamWriter::Write(std::string_view data) {
  while (!data.empty()) {
    std::string_view piece = data.substr(0, kPieceBytes);
    crc_ = static_cast<uint32_t>(
        crc32(crc_, reinterpret_cast<const Bytef*>(piece.data()), static_cast<uInt>(piece.size())));
    uncompressed_bytes_ += static_cast<int64_t>(piece.size());
    deflater_->Run(piece, Z_NO_FLUSH, [&](std::string_view out) {
      compressed_bytes_ += static_cast<int64_t>(out.size());
      Emit(out);
    });
    if (uncompressed_bytes_ >= kMax32 || compressed_bytes_ >= kMax32) {
      throw ZipStreamError("a package entry reached 4 GiB", EFBIG);
    }
    data.remove_prefix(piece.size());
  }
}

void ZipStreamWriter::EndEntry() {
  deflater_->Run({}, Z_FINISH, [&](std::string_view out) {
    compressed_bytes_ += static_cast<int64_t>(out.size());
    Emit(out);
  });
  if (compressed_bytes_ >= kMax32) throw ZipStreamError("a package entry reached 4 GiB", EFBIG);
  std::string descriptor;
  Put32(descriptor, kDescriptorSignature);
  Put32(descriptor, crc_);
  Put32(descriptor, static_cast<uint32_t>(compressed_bytes_));
  Put32(descriptor, static_cast<uint32_t>(uncompressed_bytes_));
  Emit(descriptor);
  AppendDirectoryRecord();
  ++entries_;
  entry_open_ = false;
}

void ZipStreamWriter::AppendDirectoryRecord() {
  const bool far = local_header_offset_ >= kMax32;
  std::string extra;
  if (far) {
    Put16(extra, kZip64ExtraId);
    Put16(extra, 8);
    Put64(extra, static_cast<uint64_t>(local_header_offset_));
  }
  std::string& out = directory_buffer_;
  size_t start = out.size();
  Put32(out, kDirectorySignature);
  Put16(out, kVersionMadeBy);
  Put16(out, far ? kVersionNeededZip64 : kVersionNeeded);
  Put16(out, kFlagDataDescriptor);
  Put16(out, kMethodDeflate);
  Put16(out, dos_time_);
  Put16(out, dos_date_);
  Put32(out, crc_);
  Put32(out, static_cast<uint32_t>(compressed_bytes_));
  Put32(out, static_cast<uint32_t>(uncompressed_bytes_));
  Put16(out, static_cast<uint16_t>(name_.size()));
  Put16(out, static_cast<uint16_t>(extra.size()));
  Put16(out, 0);  // comment
  Put16(out, 0);  // disk
  Put16(out, 0);  // internal attributes
  Put32(out, kRegularFile0644);
  Put32(out, far ? static_cast<uint32_t>(kMax32) : static_cast<uint32_t>(local_header_offset_));
  out += name_;
  out += extra;
  directory_bytes_ += static_cast<int64_t>(out.size() - start);
  if (out.size() >= kPieceBytes) FlushDirectory();
}

void ZipStreamWriter::FlushDirectory() {
  if (!WriteToFd(directory_fd_, directory_buffer_)) {
    throw ZipStreamError("cannot write the ZIP directory side file", errno);
  }
  directory_buffer_.clear();
}

void ZipStreamWriter::CopyDirectory() {
  FlushDirectory();
  if (::lseek(directory_fd_, 0, SEEK_SET) != 0) {
    throw ZipStreamError("cannot rewind the ZIP directory side file", errno);
  }
  std::string piece(kPieceBytes, '\0');
  for (int64_t remaining = directory_bytes_; remaining > 0;) {
    ssize_t got = ::read(directory_fd_, piece.data(), piece.size());
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      throw ZipStreamError("cannot read back the ZIP directory side file", got < 0 ? errno : EIO);
    }
    Emit(std::string_view(piece.data(), static_cast<size_t>(got)));
    remaining -= got;
  }
}

void ZipStreamWriter::Finish() {
  const int64_t directory_offset = offset_;
  CopyDirectory();
  WriteEndRecords(directory_offset, directory_bytes_);
}

void ZipStreamWriter::WriteEndRecords(int64_t directory_offset, int64_t directory_size) {
  const bool zip64 = entries_ >= kMax16 || directory_offset >= kMax32 || directory_size >= kMax32;
  std::string out;
  if (zip64) {
    const int64_t zip64_end_offset = offset_;
    Put32(out, kZip64EndSignature);
    Put64(out, 44);  // the record's size after this field
    Put16(out, kVersionMadeBy);
    Put16(out, kVersionNeededZip64);
    Put32(out, 0);  // this disk
    Put32(out, 0);  // the directory's disk
    Put64(out, static_cast<uint64_t>(entries_));
    Put64(out, static_cast<uint64_t>(entries_));
    Put64(out, static_cast<uint64_t>(directory_size));
    Put64(out, static_cast<uint64_t>(directory_offset));
    Put32(out, kZip64LocatorSignature);
    Put32(out, 0);  // the disk of the ZIP64 end record
    Put64(out, static_cast<uint64_t>(zip64_end_offset));
    Put32(out, 1);  // disks
  }
  auto narrow16 = [&](int64_t value) { return static_cast<uint16_t>(zip64 ? kMax16 : value); };
  auto narrow32 = [&](int64_t value) { return static_cast<uint32_t>(zip64 ? kMax32 : value); };
  Put32(out, kEndSignature);
  Put16(out, 0);  // this disk
  Put16(out, 0);  // the directory's disk
  Put16(out, narrow16(entries_));
  Put16(out, narrow16(entries_));
  Put32(out, narrow32(directory_size));
  Put32(out, narrow32(directory_offset));
  Put16(out, 0);  // comment
  Emit(out);
}

}  // namespace tessera::storage::package
