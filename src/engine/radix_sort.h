// engine/radix_sort.h
//
// Sorting of unsigned 64-bit keys in ascending order by least-significant-digit radix, passing
// only over the digits the largest key uses: for the millions of (group, element) pairs behind a
// count distinct, a few linear passes instead of a comparison sort. Small inputs fall back to
// std::sort. The result equals std::sort's; the call needs a buffer as large as the input.
#pragma once

#include <cstdint>
#include <vector>

namespace tessera::engine {

void RadixSort(std::vector<uint64_t>& keys);

}  // namespace tessera::engine
