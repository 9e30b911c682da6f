// ZipStreamWriter's archives read back, entry for entry, through libarchive's two ZIP readers: the
// streaming one (which walks the local headers, as PackageReader does) and the seekable one
// (which trusts the central directory and the end records, as unzip and other tools do).
#include "storage/package/zip_stream_writer.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "support/temp_dir.h"

namespace tessera::storage {
namespace {

struct Entry {
  std::string name;
  std::string data;
  bool operator==(const Entry&) const = default;
};

constexpr std::time_t kEntryTime = 1700000000;  // 2023-11-14

// Writes `entries` to `path`; returns the bytes the sink received.
int64_t WriteArchive(const std::filesystem::path& path, const std::vector<Entry>& entries,
                     size_t write_piece_bytes = 1 << 20) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  std::FILE* directory = std::tmpfile();
  int64_t written = 0;
  {
    package::ZipStreamWriter writer(
        [&](std::string_view bytes) {
          std::fwrite(bytes.data(), 1, bytes.size(), file);
          written += static_cast<int64_t>(bytes.size());
        },
        fileno(directory), kEntryTime);
    for (const auto& entry : entries) {
      writer.BeginEntry(entry.name);
      std::string_view data = entry.data;
      while (!data.empty()) {
        writer.Write(data.substr(0, write_piece_bytes));
        data.remove_prefix(std::min(data.size(), write_piece_bytes));
      }
      writer.EndEntry();
    }
    writer.Finish();
  }
  std::fclose(directory);
  std::fclose(file);
  return written;
}

std::vector<Entry> ReadArchive(const std::filesystem::path& path, bool seekable) {
  archive* reader = archive_read_new();
  if (seekable) {
    archive_read_support_format_zip_seekable(reader);
  } else {
    archive_read_support_format_zip_streamable(reader);
  }
  EXPECT_EQ(archive_read_open_filename(reader, path.c_str(), 1 << 16), ARCHIVE_OK)
      << archive_error_string(reader);
  std::vector<Entry> entries;
  archive_entry* header = nullptr;
  int result;
  while ((result = archive_read_next_header(reader, &header)) == ARCHIVE_OK) {
    Entry entry{archive_entry_pathname(header), ""};
    EXPECT_EQ(archive_entry_mtime(header) / 2, kEntryTime / 2) << entry.name;  // DOS: 2 s steps
    // Only the central directory carries the mode; streaming, libarchive assumes one.
    if (seekable) {
      EXPECT_EQ(archive_entry_perm(header), 0644) << entry.name;
    }
    char buffer[1 << 16];
    la_ssize_t got;
    while ((got = archive_read_data(reader, buffer, sizeof buffer)) > 0) {
      entry.data.append(buffer, static_cast<size_t>(got));
    }
    EXPECT_EQ(got, 0) << entry.name << ": " << archive_error_string(reader);
    entries.push_back(std::move(entry));
  }
  EXPECT_EQ(result, ARCHIVE_EOF) << archive_error_string(reader);
  archive_read_free(reader);
  return entries;
}

std::string RandomBytes(size_t size, uint32_t seed) {
  std::mt19937 random(seed);
  std::string bytes(size, '\0');
  for (char& c : bytes) c = static_cast<char>(random());
  return bytes;
}

TEST(ZipStreamWriter, EntriesOfEverySizeReadBackThroughBothReaders) {
  testing::TempDir dir;
  std::vector<Entry> entries = {
      {"empty.json", ""},
      {"manifest.json", R"({"formatVersion":2})"},
      {"objects/000001-A.json", std::string(3 << 20, 'x') + "end"},  // compresses to little
      {"objects/000002-B.json", RandomBytes(300000, 1)},             // does not compress
      {"checksums.tsv", "line\n"},
  };
  const std::filesystem::path path = dir.path() / "a.zip";
  int64_t written = WriteArchive(path, entries, 100000);
  EXPECT_EQ(written, static_cast<int64_t>(std::filesystem::file_size(path)));
  EXPECT_LT(written, 400000) << "the compressible entry is deflated";
  EXPECT_EQ(ReadArchive(path, /*seekable=*/false), entries);
  EXPECT_EQ(ReadArchive(path, /*seekable=*/true), entries);
}

// More entries than the 16-bit count of the classic end record holds: ZIP64 end records.
TEST(ZipStreamWriter, SeventyThousandEntriesNeedAndGetZip64EndRecords) {
  testing::TempDir dir;
  std::vector<Entry> entries;
  for (int i = 0; i < 70000; ++i) {
    entries.push_back({"objects/" + std::to_string(i) + ".json", std::to_string(i * 7)});
  }
  const std::filesystem::path path = dir.path() / "many.zip";
  WriteArchive(path, entries);
  EXPECT_EQ(ReadArchive(path, /*seekable=*/true), entries);
  EXPECT_EQ(ReadArchive(path, /*seekable=*/false), entries);

  // The classic end record defers to the ZIP64 one, whose locator precedes it.
  std::string tail(22 + 20, '\0');
  std::FILE* file = std::fopen(path.c_str(), "rb");
  std::fseek(file, -static_cast<long>(tail.size()), SEEK_END);
  ASSERT_EQ(std::fread(tail.data(), 1, tail.size(), file), tail.size());
  std::fclose(file);
  EXPECT_EQ(tail.substr(0, 4), std::string("PK\x06\x07", 4)) << "ZIP64 end locator";
  EXPECT_EQ(tail.substr(20, 4), std::string("PK\x05\x06", 4)) << "end record";
  EXPECT_EQ(tail.substr(20 + 10, 2), std::string("\xff\xff", 2)) << "entry count deferred";
}

TEST(ZipStreamWriter, FewerEntriesKeepTheClassicEndRecordOnly) {
  testing::TempDir dir;
  std::vector<Entry> entries = {{"a", "1"}, {"b", "2"}};
  const std::filesystem::path path = dir.path() / "few.zip";
  WriteArchive(path, entries);
  std::string tail(22, '\0');
  std::FILE* file = std::fopen(path.c_str(), "rb");
  std::fseek(file, -22, SEEK_END);
  ASSERT_EQ(std::fread(tail.data(), 1, tail.size(), file), tail.size());
  std::fclose(file);
  EXPECT_EQ(tail.substr(0, 4), std::string("PK\x05\x06", 4));
  EXPECT_EQ(tail.substr(10, 2), std::string("\x02\x00", 2)) << "two entries";
  EXPECT_EQ(ReadArchive(path, /*seekable=*/true), entries);
}

TEST(ZipStreamWriter, ADirectorySideFileThatCannotBeWrittenIsAnError) {
  int read_only = ::open("/dev/null", O_RDONLY);
  package::ZipStreamWriter writer([](std::string_view) {}, read_only, kEntryTime);
  writer.BeginEntry("a");
  writer.Write("data");
  writer.EndEntry();
  try {
    writer.Finish();
    ADD_FAILURE() << "the directory was written to a read-only file";
  } catch (const package::ZipStreamError& error) {
    EXPECT_EQ(error.errno_value(), EBADF) << error.what();
  }
  ::close(read_only);
}

}  // namespace
}  // namespace tessera::storage
