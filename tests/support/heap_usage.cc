#include "support/heap_usage.h"

#include <malloc.h>

#include <cstddef>

#if defined(__SANITIZE_ADDRESS__)
#define TESSERA_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TESSERA_UNDER_ASAN 1
#endif
#endif

#ifdef TESSERA_UNDER_ASAN
// From <sanitizer/allocator_interface.h>, which GCC does not install; libasan defines it.
extern "C" size_t __sanitizer_get_current_allocated_bytes();
#endif

namespace tessera::testing {

int64_t HeapBytesInUse() {
#ifdef TESSERA_UNDER_ASAN
  return static_cast<int64_t>(__sanitizer_get_current_allocated_bytes());
#else
  // uordblks misses blocks glibc serves with mmap (128 KiB and up by default); hblkhd has them.
  struct mallinfo2 info = mallinfo2();
  return static_cast<int64_t>(info.uordblks + info.hblkhd);
#endif
}

}  // namespace tessera::testing
