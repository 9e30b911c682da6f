// storage/memory_only.h
//
// Answering from memory. While a MemoryOnlyScope lives on a thread, every MetadataStore Read or
// Write made on that thread throws StoreNeeded before it touches the database. A caller that must
// not wait -- an I/O thread -- runs work under the scope and, when StoreNeeded comes out, hands the
// same work to a thread that may wait.
//
// Contract for work run this way: before it reads the store it changes nothing that running it
// again would not change the same way, so running it twice (once cut short by StoreNeeded) is the
// same as running it once. StoreNeeded is not a std::exception, so a `catch (const
// std::exception&)` on the way out does not swallow it. Scopes nest.
#pragma once

namespace tessera::storage {

struct StoreNeeded {};

class MemoryOnlyScope {
 public:
  MemoryOnlyScope();
  ~MemoryOnlyScope();
  MemoryOnlyScope(const MemoryOnlyScope&) = delete;
  MemoryOnlyScope& operator=(const MemoryOnlyScope&) = delete;

  // Whether a scope lives on the calling thread.
  static bool Active();
};

// Throws StoreNeeded when a MemoryOnlyScope lives on the calling thread.
void RequireStoreAccess();

}  // namespace tessera::storage
