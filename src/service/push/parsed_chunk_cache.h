// service/push/parsed_chunk_cache.h
//
// Chunks of upload sessions parsed between their upload and their publish, on this node. A chunk
// is checked when it arrives and parsed when its session is published; a worker of this cache
// parses it in between, in the time the upload leaves the processor idle, so that the publish
// finds its rows ready.
//
// Contract:
//   - Offer() hands over a chunk just stored: its key, the revision it was stored with
//     (storage/records.h UploadChunk), its bytes, and what parses them (the table, the column
//     headers, the orientation). One worker thread parses the offered chunks in order, only on a
//     processor nothing else wants (SCHED_IDLE), and then lets the bytes go. A chunk offered
//     again under its key replaces the earlier offer, queued or parsed. A chunk that fails to
//     parse is dropped.
//   - Take() gives what it holds of a key, and forgets the key, only when it holds the stored
//     chunk of revision `revision` (never "", a chunk stored without one): the parsed rows, when
//     they were parsed against an equal table, headers and orientation, or else, while the
//     chunk's parse has not ended, its bytes, which spare the caller reading them back from the
//     store. A chunk replaced through another node, or rows of a model changed since, are never
//     taken from here, and the caller need not read the chunk's bytes to know it. Otherwise it
//     returns nullopt at once: the caller reads and parses. It never waits for the worker, which
//     may not run for as long as the processors are busy; a parse it ends is dropped.
//   - Forget() drops a session's chunks, queued, being parsed or parsed.
//   - The bytes of the chunks held (queued, or parsed and counted as their bytes were; their
//     rows take a few times more) never exceed `budget_bytes`, but for a chunk whose parse is
//     running when it is dropped: an offer that would is not kept. An offer first drops the chunks
//     offered more than `max_age` ago (sessions abandoned without a publish). A budget of 0
//     keeps nothing and starts no thread.
//   - Thread-safe. The destructor stops the worker after the chunk it is parsing.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <vector>

#include "engine/push/push_model.h"
#include "engine/push/pushed_table.h"

namespace tessera::service::push {

struct ChunkKey {
  std::string session_id;
  std::string table;
  int64_t index = 0;
  auto operator<=>(const ChunkKey&) const = default;
};

// What parses a chunk: its table as the model had it, and the session's headers and orientation.
struct ChunkShape {
  engine::push::PushTable table;
  std::vector<std::string> column_headers;
  bool column_orientation = false;
  bool operator==(const ChunkShape&) const = default;
};

// A chunk as Take() gives it: its rows, or, when they are not ready, its bytes.
struct TakenChunk {
  std::optional<engine::push::PushedRows> rows;
  std::shared_ptr<const std::string> bytes;  // without rows
};

class ParsedChunkCache {
 public:
  ParsedChunkCache(size_t budget_bytes, std::chrono::milliseconds max_age);
  ~ParsedChunkCache();
  ParsedChunkCache(const ParsedChunkCache&) = delete;
  ParsedChunkCache& operator=(const ParsedChunkCache&) = delete;

  void Offer(const ChunkKey& key, std::string revision, std::string bytes, ChunkShape shape);
  std::optional<TakenChunk> Take(const ChunkKey& key, std::string_view revision,
                                 const ChunkShape& shape);
  void Forget(const std::string& session_id);

  size_t held_bytes() const;  // for tests

 private:
  enum class State { kQueued, kParsing, kParsed };
  struct Entry {
    State state = State::kQueued;
    std::string revision;
    std::shared_ptr<const std::string> bytes;  // until parsed (shared with its parse)
    size_t cost = 0;                           // the bytes' size, counted against the budget
    ChunkShape shape;
    engine::push::PushedRows rows;
    std::chrono::steady_clock::time_point offered;
    uint64_t generation = 0;  // tells a replaced offer from the one being parsed
  };

  void Work();
  void Erase(std::map<ChunkKey, Entry>::iterator entry);
  void DropOlderThan(std::chrono::steady_clock::time_point cutoff);

  const size_t budget_bytes_;
  const std::chrono::milliseconds max_age_;

  mutable std::mutex mutex_;
  std::condition_variable wake_;  // the worker: an offer, or stopping
  std::map<ChunkKey, Entry> entries_;
  std::deque<std::pair<ChunkKey, uint64_t>> queue_;
  size_t held_bytes_ = 0;
  uint64_t next_generation_ = 1;
  bool stopping_ = false;
  std::thread worker_;
};

}  // namespace tessera::service::push
