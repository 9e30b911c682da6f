// core/parallel.h
//
// ParallelFor runs task(worker, chunk) once for every chunk in [0, chunks), spread over the calling
// thread and up to pool->size() tasks posted to `pool`, and returns when every chunk is done.
// Chunks are claimed one at a time, so uneven chunks balance themselves. `worker` is in
// [0, ParallelWorkers(pool)) and no two concurrent calls of `task` share one, so per-worker state
// needs no locking. The calling thread works too and never waits for a posted task that has not
// started, so ParallelFor may be called from a task of the same pool without deadlock.
// An exception thrown by `task` stops the claiming of new chunks and is rethrown by ParallelFor.
#pragma once

#include <cstddef>
#include <functional>

#include "core/thread_pool.h"

namespace tessera {

size_t ParallelWorkers(const ThreadPool* pool);

void ParallelFor(ThreadPool* pool, size_t chunks,
                 const std::function<void(size_t worker, size_t chunk)>& task);

}  // namespace tessera
