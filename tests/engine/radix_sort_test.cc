#include "engine/radix_sort.h"

#include <algorithm>
#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace tessera::engine {
namespace {

std::vector<uint64_t> RandomKeys(size_t count, uint64_t mask, uint32_t seed) {
  std::mt19937_64 random(seed);
  std::vector<uint64_t> keys(count);
  for (uint64_t& key : keys) key = random() & mask;
  return keys;
}

void ExpectSortedLikeStdSort(std::vector<uint64_t> keys) {
  std::vector<uint64_t> expected = keys;
  std::sort(expected.begin(), expected.end());
  RadixSort(keys);
  EXPECT_EQ(keys, expected);
}

TEST(RadixSortTest, SortsLikeStdSortForEveryKeyWidth) {
  for (uint64_t mask : {uint64_t{0}, uint64_t{1}, uint64_t{0x7ff}, uint64_t{0x800},
                        (uint64_t{1} << 37) - 1, ~uint64_t{0},
                        // a group in the high word, an element code in the low one
                        uint64_t{0xfffff} << 32 | 0x1ffff, uint64_t{0xff} << 40 | 0xf0}) {
    SCOPED_TRACE(mask);
    ExpectSortedLikeStdSort(RandomKeys(100000, mask, 7));
  }
}

TEST(RadixSortTest, SortsSmallAndEmptyInputs) {
  ExpectSortedLikeStdSort({});
  ExpectSortedLikeStdSort({5});
  ExpectSortedLikeStdSort(RandomKeys(100, ~uint64_t{0}, 3));
}

TEST(RadixSortTest, KeepsDuplicatesAndSortedRuns) {
  std::vector<uint64_t> keys = RandomKeys(50000, 0xff, 11);
  std::vector<uint64_t> ascending(50000);
  for (size_t i = 0; i < ascending.size(); ++i) ascending[i] = uint64_t{i} << 32 | 9;
  keys.insert(keys.end(), ascending.rbegin(), ascending.rend());
  ExpectSortedLikeStdSort(keys);
}

}  // namespace
}  // namespace tessera::engine
