// Package files stream: writing and reading 50,000 objects of about 1 KiB (50 MB of JSON) keeps
// the heap within a bound that depends on neither the objects' sizes nor their number.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "storage/package/package_samples.h"
#include "storage/package/reader.h"
#include "storage/package/writer.h"
#include "support/heap_usage.h"
#include "support/temp_dir.h"

namespace tessera::storage {
namespace {

using testing::HeapBytesInUse;

constexpr int64_t kObjects = 50000;
constexpr size_t kObjectBytes = 1000;
constexpr int64_t kMiB = 1 << 20;

// The measure must see what it is meant to bound, or the assertions below could never fail.
TEST(PackageMemory, TheHeapMeasureSeesAnAllocation) {
  int64_t before = HeapBytesInUse();
  std::vector<char> block(8 * kMiB, 'x');
  int64_t during = HeapBytesInUse();
  EXPECT_GE(during - before, 8 * kMiB - 64 * 1024) << block[12345];

  std::vector<std::string> small;  // the writer's per-entry memory comes in small pieces
  for (int i = 0; i < 4000; ++i) small.emplace_back(1000, 'y');
  EXPECT_GE(HeapBytesInUse() - during, 4000 * 1000);
}

// Writes and reads a one-object package, so that what the libraries set up once per process
// (OpenSSL's digests, zlib's tables) is not counted as memory a package keeps.
void WarmUp(const std::filesystem::path& path) {
  {
    package::PackageWriter writer(path, int64_t{1} << 31);
    writer.WriteManifest(testing::SampleManifest(1));
    writer.AddObject(testing::SampleObjectId(1), testing::SampleObjectJson(1, kObjectBytes, true));
    writer.Commit();
  }
  package::PackageReader reader(path);
  package::PackageEntry entry;
  while (reader.Next(entry)) {
  }
}

TEST(PackageMemory, FiftyThousandObjectsStreamInBoundedMemory) {
  testing::TempDir dir;
  const std::filesystem::path path = dir.path() / "big.mmp";
  WarmUp(dir.path() / "warm-up.mmp");

  const int64_t before_writing = HeapBytesInUse();
  int64_t writer_peak = 0;
  {
    package::PackageWriter writer(path, int64_t{1} << 31);
    writer.WriteManifest(testing::SampleManifest(kObjects));
    for (int64_t i = 1; i <= kObjects; ++i) {
      writer.AddObject(testing::SampleObjectId(i),
                       testing::SampleObjectJson(i, kObjectBytes, true));
      if (i % 1000 == 0) writer_peak = std::max(writer_peak, HeapBytesInUse() - before_writing);
    }
    writer.Commit();
  }
  const int64_t after_writing = HeapBytesInUse() - before_writing;

  const int64_t before_reading = HeapBytesInUse();
  int64_t reader_peak = 0;
  int64_t read = 0;
  {
    package::PackageReader reader(path);
    package::PackageEntry entry;
    while (reader.Next(entry)) {
      ++read;
      if (read % 1000 == 0) reader_peak = std::max(reader_peak, HeapBytesInUse() - before_reading);
    }
  }
  const int64_t after_reading = HeapBytesInUse() - before_reading;

  EXPECT_EQ(read, kObjects);
  EXPECT_GT(std::filesystem::file_size(path), uint64_t{35} * kMiB) << "the data is not tiny";
  // The writer keeps nothing per entry: the ZIP central directory and the checksum lines wait in
  // side files. Neither 50,000 entries nor 50 MB of objects may show.
  EXPECT_LT(writer_peak, 2 * kMiB) << "writer peak growth";
  // The reader keeps nothing per entry.
  EXPECT_LT(reader_peak, 2 * kMiB) << "reader peak growth";
  EXPECT_LT(after_writing, 256 * 1024) << "memory the writer did not give back";
  EXPECT_LT(after_reading, 256 * 1024) << "memory the reader did not give back";
  std::printf("heap growth: writer peak %.2f MiB, reader peak %.2f MiB, package %.1f MiB\n",
              static_cast<double>(writer_peak) / kMiB, static_cast<double>(reader_peak) / kMiB,
              static_cast<double>(std::filesystem::file_size(path)) / kMiB);
}

}  // namespace
}  // namespace tessera::storage
