#include "storage/memory_only.h"

namespace tessera::storage {

namespace {
thread_local int memory_only_depth = 0;
}  // namespace

MemoryOnlyScope::MemoryOnlyScope() { ++memory_only_depth; }

MemoryOnlyScope::~MemoryOnlyScope() { --memory_only_depth; }

bool MemoryOnlyScope::Active() { return memory_only_depth > 0; }

void RequireStoreAccess() {
  if (MemoryOnlyScope::Active()) throw StoreNeeded();
}

}  // namespace tessera::storage
