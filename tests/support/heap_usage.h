// tests/support/heap_usage.h
//
// Bytes the program holds on the heap right now, for tests that bound memory. Under
// AddressSanitizer (the Debug build of CI) malloc is ASan's, which glibc's mallinfo2() does not
// see, so ASan's own statistic is used instead; both count live allocations (not freed or
// quarantined ones). A test using it should first check that it sees an allocation.
#pragma once

#include <cstdint>

namespace tessera::testing {

int64_t HeapBytesInUse();

}  // namespace tessera::testing
