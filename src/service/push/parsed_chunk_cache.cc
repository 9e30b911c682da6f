#include "service/push/parsed_chunk_cache.h"

#include <pthread.h>
#include <sched.h>

#include <utility>

namespace tessera::service::push {

namespace {

// The parse ahead runs only on a processor nothing else wants (SCHED_IDLE): it must not slow the
// requests, the upload's own included.
void LowerThisThreadsPriority() {
  sched_param parameters{};
  ::pthread_setschedparam(::pthread_self(), SCHED_IDLE, &parameters);
}

}  // namespace

ParsedChunkCache::ParsedChunkCache(size_t budget_bytes, std::chrono::milliseconds max_age)
    : budget_bytes_(budget_bytes), max_age_(max_age) {
  if (budget_bytes_ > 0) worker_ = std::thread([this] { Work(); });
}

ParsedChunkCache::~ParsedChunkCache() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (worker_.joinable()) worker_.join();
}

void ParsedChunkCache::Offer(const ChunkKey& key, std::string revision, std::string bytes,
                             ChunkShape shape) {
  if (budget_bytes_ == 0) return;
  const auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard lock(mutex_);
    DropOlderThan(now - max_age_);
    if (auto earlier = entries_.find(key); earlier != entries_.end()) Erase(earlier);
    if (held_bytes_ + bytes.size() > budget_bytes_) return;
    held_bytes_ += bytes.size();
    Entry& entry = entries_[key];
    entry.cost = bytes.size();
    entry.revision = std::move(revision);
    entry.bytes = std::make_shared<const std::string>(std::move(bytes));
    entry.shape = std::move(shape);
    entry.offered = now;
    entry.generation = next_generation_++;
    queue_.emplace_back(key, entry.generation);
  }
  wake_.notify_one();
}

std::optional<TakenChunk> ParsedChunkCache::Take(const ChunkKey& key, std::string_view revision,
                                                 const ChunkShape& shape) {
  std::lock_guard lock(mutex_);
  auto found = entries_.find(key);
  if (found == entries_.end()) return std::nullopt;
  std::optional<TakenChunk> taken;
  Entry& entry = found->second;
  if (!revision.empty() && entry.revision == revision) {
    if (entry.state != State::kParsed) {
      taken = TakenChunk{std::nullopt, std::move(entry.bytes)};
    } else if (entry.shape == shape) {
      taken = TakenChunk{std::move(entry.rows), nullptr};
    }
  }
  Erase(found);
  return taken;
}

void ParsedChunkCache::Forget(const std::string& session_id) {
  std::lock_guard lock(mutex_);
  auto entry = entries_.lower_bound(ChunkKey{session_id, "", 0});
  while (entry != entries_.end() && entry->first.session_id == session_id) {
    auto next = std::next(entry);
    Erase(entry);
    entry = next;
  }
}

size_t ParsedChunkCache::held_bytes() const {
  std::lock_guard lock(mutex_);
  return held_bytes_;
}

void ParsedChunkCache::Erase(std::map<ChunkKey, Entry>::iterator entry) {
  held_bytes_ -= entry->second.cost;
  entries_.erase(entry);
}

void ParsedChunkCache::DropOlderThan(std::chrono::steady_clock::time_point cutoff) {
  for (auto entry = entries_.begin(); entry != entries_.end();) {
    auto next = std::next(entry);
    if (entry->second.offered < cutoff) Erase(entry);
    entry = next;
  }
}

void ParsedChunkCache::Work() {
  LowerThisThreadsPriority();
  std::unique_lock lock(mutex_);
  while (true) {
    wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (stopping_) return;
    auto [key, generation] = std::move(queue_.front());
    queue_.pop_front();
    auto found = entries_.find(key);
    if (found == entries_.end() || found->second.generation != generation) continue;  // gone
    // The entry keeps the bytes while they are parsed, for a Take() meanwhile; an entry replaced,
    // taken or forgotten meanwhile is gone or has another generation when the parse ends, and the
    // rows are dropped.
    Entry& entry = found->second;
    entry.state = State::kParsing;
    std::shared_ptr<const std::string> bytes = entry.bytes;
    const ChunkShape shape = entry.shape;
    lock.unlock();
    std::optional<engine::push::PushedRows> rows;
    try {
      rows = engine::push::ParseChunk(shape.table, shape.column_headers, shape.column_orientation,
                                      *bytes);
    } catch (const std::exception&) {
      // Checked when it arrived, so a fault of memory, or a model changed since: the publish
      // parses it itself.
    }
    lock.lock();
    found = entries_.find(key);
    if (found != entries_.end() && found->second.generation == generation) {
      if (rows) {
        found->second.rows = std::move(*rows);
        found->second.bytes.reset();
        found->second.state = State::kParsed;
      } else {
        Erase(found);
      }
    }
    // The bytes are freed, when this was their last holder, without the lock.
    lock.unlock();
    bytes.reset();
    lock.lock();
  }
}

}  // namespace tessera::service::push
