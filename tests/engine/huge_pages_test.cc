// Column buffers: the same contents whatever their size, and a large one advised for huge pages
// where the kernel has them (the VMA's "hg" flag in /proc/self/smaps).
#include "engine/huge_pages.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

namespace tessera::engine {
namespace {

// The VmFlags of the mapping holding `address`, empty when none is found.
std::string FlagsOfMappingAt(const void* address) {
  const auto at = reinterpret_cast<uintptr_t>(address);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    uintptr_t begin = 0;
    uintptr_t end = 0;
    char dash = 0;
    std::istringstream range(line);
    if (range >> std::hex >> begin >> dash >> end && dash == '-' && line.find(':') > 8) {
      inside = begin <= at && at < end;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0) return line;
  }
  return "";
}

TEST(HugePages, ColumnBuffersHoldWhatTheyAreGivenAtAnySize) {
  for (size_t count : {size_t{0}, size_t{1000}, kHugePageBufferBytes / sizeof(double) + 3}) {
    const std::vector<double> zeros = NewColumnBuffer<double>(count);
    ASSERT_EQ(zeros.size(), count);
    EXPECT_TRUE(std::all_of(zeros.begin(), zeros.end(), [](double v) { return v == 0; }));
    std::vector<double> values(count);
    std::iota(values.begin(), values.end(), 0.5);
    const std::vector<double> expected = values;
    const std::vector<double> moved = IntoColumnBuffer(std::move(values));
    EXPECT_EQ(moved, expected) << count;
    EXPECT_EQ(moved.capacity(), moved.size()) << count;
  }
}

TEST(HugePages, ALargeColumnBufferIsAdvisedWhereTheKernelOffersHugePages) {
  if (!std::filesystem::exists("/sys/kernel/mm/transparent_hugepage/enabled")) {
    GTEST_SKIP() << "this kernel has no transparent huge pages";
  }
  const std::vector<double> large = NewColumnBuffer<double>(4 * kHugePageBufferBytes / 8);
  const std::vector<uint8_t> small = NewColumnBuffer<uint8_t>(kHugePageBufferBytes / 4);
  EXPECT_NE(FlagsOfMappingAt(large.data() + large.size() / 2).find(" hg"), std::string::npos);
  EXPECT_EQ(FlagsOfMappingAt(small.data() + small.size() / 2).find(" hg"), std::string::npos);
}

}  // namespace
}  // namespace tessera::engine
