#include "engine/radix_sort.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>

namespace tessera::engine {
namespace {

// 2,048 counters stay in L1 while a pass scatters.
constexpr int kDigitBits = 11;
constexpr size_t kDigits = size_t{1} << kDigitBits;
constexpr size_t kComparisonSortBelow = 1 << 12;

void ScatterByDigit(const std::vector<uint64_t>& from, std::vector<uint64_t>& to, int shift) {
  std::array<size_t, kDigits> offsets{};
  for (uint64_t key : from) ++offsets[(key >> shift) & (kDigits - 1)];
  size_t next = 0;
  for (size_t& offset : offsets) {
    const size_t count = offset;
    offset = next;
    next += count;
  }
  for (uint64_t key : from) to[offsets[(key >> shift) & (kDigits - 1)]++] = key;
}

}  // namespace

void RadixSort(std::vector<uint64_t>& keys) {
  if (keys.size() < kComparisonSortBelow) {
    std::sort(keys.begin(), keys.end());
    return;
  }
  uint64_t used_bits = 0;
  for (uint64_t key : keys) used_bits |= key;
  if (used_bits == 0) return;
  std::vector<uint64_t> buffer(keys.size());
  // A pass starts at the lowest bit still used, so bits no key sets (a pair's gap between its
  // element code and its group in the high word) cost no pass.
  int shift = std::countr_zero(used_bits);
  while (true) {
    ScatterByDigit(keys, buffer, shift);
    keys.swap(buffer);
    shift += kDigitBits;
    if (shift >= 64 || (used_bits >> shift) == 0) break;
    shift += std::countr_zero(used_bits >> shift);
  }
}

}  // namespace tessera::engine
