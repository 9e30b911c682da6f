#include "service/push/parsed_chunk_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"

namespace tessera::testing {
namespace {

using namespace std::chrono_literals;
using engine::push::PushedRows;
using model::DataType;
using service::push::ChunkKey;
using service::push::ChunkShape;
using service::push::ParsedChunkCache;

ChunkShape Stores() {
  return {engine::push::PushTable{"Stores",
                                  {{"store_id", DataType::kInteger, "INTEGER"},
                                   {"city", DataType::kText, "STRING"},
                                   {"sales", DataType::kReal, "DOUBLE"}}},
          {"store_id", "city", "sales"},
          false};
}

// `count` rows from `first` on: [id, "city <id>", id * 1.5].
std::string Rows(int first, int count) {
  std::string json = "[";
  for (int id = first; id < first + count; ++id) {
    if (id > first) json += ",";
    json += "[" + std::to_string(id) + ",\"city " + std::to_string(id) + "\"," +
            std::to_string(id * 1.5) + "]";
  }
  return json + "]";
}

// The revision a store gives `bytes` when they are put: others for other bytes.
std::string Revision(const std::string& bytes) {
  return "R" + std::to_string(std::hash<std::string>()(bytes));
}

PushedRows Parsed(const ChunkShape& shape, const std::string& bytes) {
  return engine::push::ParseChunk(shape.table, shape.column_headers, shape.column_orientation,
                                  bytes);
}

// The rows Take() gives, if any.
std::optional<PushedRows> RowsTaken(ParsedChunkCache& cache, const ChunkKey& key,
                                    std::string_view revision, const ChunkShape& shape) {
  std::optional<service::push::TakenChunk> taken = cache.Take(key, revision, shape);
  if (!taken) return std::nullopt;
  return std::move(taken->rows);
}

// Take() withdraws a chunk still queued; a test that wants it parsed lets the worker get there.
void WaitUntilParsed(ParsedChunkCache& cache, const ChunkKey& key, const std::string& bytes,
                     const ChunkShape& shape, std::optional<PushedRows>& rows) {
  for (auto deadline = std::chrono::steady_clock::now() + 20s;
       std::chrono::steady_clock::now() < deadline;) {
    // A probe with other bytes would drop the entry, so the probe is the real take, retried on
    // a fresh offer until the worker has had the time to parse it.
    rows = RowsTaken(cache, key, Revision(bytes), shape);
    if (rows) return;
    cache.Offer(key, Revision(bytes), bytes, shape);
    std::this_thread::sleep_for(5ms);
  }
}

TEST(ParsedChunkCache, AnOfferedChunkIsTakenAsItsParse) {
  ParsedChunkCache cache(1 << 20, 1h);
  const ChunkKey key{"S1", "Stores", 1};
  const std::string bytes = Rows(1, 500);
  cache.Offer(key, Revision(bytes), bytes, Stores());
  std::optional<PushedRows> rows;
  WaitUntilParsed(cache, key, bytes, Stores(), rows);
  ASSERT_TRUE(rows.has_value());
  EXPECT_EQ(*rows, Parsed(Stores(), bytes));
  EXPECT_EQ(cache.held_bytes(), 0u) << "a taken chunk is forgotten";
  EXPECT_FALSE(cache.Take(key, Revision(bytes), Stores()).has_value());
}

// The worker parses in order of offer, so the last of many large chunks is still queued, or being
// parsed, when it is taken at once: its bytes come back instead of a read of the store.
TEST(ParsedChunkCache, AChunkNotYetParsedIsTakenAsItsBytes) {
  ParsedChunkCache cache(size_t{1} << 30, 1h);
  std::vector<std::string> chunks;
  for (int index = 1; index <= 20; ++index) {
    chunks.push_back(Rows(index * 100000, 20000));
    cache.Offer({"S1", "Stores", index}, Revision(chunks.back()), chunks.back(), Stores());
  }
  const size_t held = cache.held_bytes();
  std::optional<service::push::TakenChunk> taken =
      cache.Take({"S1", "Stores", 20}, Revision(chunks.back()), Stores());
  ASSERT_TRUE(taken.has_value());
  ASSERT_FALSE(taken->rows.has_value());
  ASSERT_NE(taken->bytes, nullptr);
  EXPECT_EQ(*taken->bytes, chunks.back());
  EXPECT_EQ(cache.held_bytes(), held - chunks.back().size()) << "a taken chunk is forgotten";
  EXPECT_FALSE(cache.Take({"S1", "Stores", 20}, Revision(chunks.back()), Stores()).has_value());
  // Not the bytes of another revision.
  EXPECT_FALSE(cache.Take({"S1", "Stores", 19}, Revision(chunks[0]), Stores()).has_value());
}

TEST(ParsedChunkCache, AnotherRevisionOrAnotherShapeIsNeverTakenFromTheCache) {
  const ChunkKey key{"S1", "Stores", 1};
  const std::string bytes = Rows(1, 500);
  {
    ParsedChunkCache cache(1 << 20, 1h);
    cache.Offer(key, Revision(bytes), bytes, Stores());
    std::this_thread::sleep_for(50ms);
    std::string other = bytes;
    other[other.size() / 2] = other[other.size() / 2] == '7' ? '8' : '7';
    EXPECT_FALSE(cache.Take(key, Revision(other), Stores()).has_value());
    EXPECT_EQ(cache.held_bytes(), 0u);
  }
  {  // a chunk stored before revisions reads with none, which matches nothing
    ParsedChunkCache cache(1 << 20, 1h);
    cache.Offer(key, "", bytes, Stores());
    for (int attempt = 0; attempt < 20; ++attempt) {
      std::this_thread::sleep_for(10ms);
      EXPECT_FALSE(cache.Take(key, "", Stores()).has_value()) << "neither rows nor bytes";
      cache.Offer(key, "", bytes, Stores());
    }
  }
  for (auto changed : {0, 1, 2}) {
    ParsedChunkCache cache(1 << 20, 1h);
    cache.Offer(key, Revision(bytes), bytes, Stores());
    std::this_thread::sleep_for(50ms);
    ChunkShape shape = Stores();
    if (changed == 0) shape.table.columns[2] = {"sales", DataType::kText, "STRING"};
    if (changed == 1) shape.column_headers = {"store_id", "sales", "city"};
    if (changed == 2) shape.column_orientation = true;
    // The bytes, if the parse has not ended, are the chunk's all the same; rows, never.
    std::optional<service::push::TakenChunk> taken = cache.Take(key, Revision(bytes), shape);
    if (taken) {
      EXPECT_FALSE(taken->rows.has_value()) << "change " << changed;
      ASSERT_NE(taken->bytes, nullptr);
      EXPECT_EQ(*taken->bytes, bytes);
    }
  }
}

TEST(ParsedChunkCache, AChunkOfferedAgainReplacesTheEarlierOne) {
  ParsedChunkCache cache(1 << 20, 1h);
  const ChunkKey key{"S1", "Stores", 1};
  const std::string first = Rows(1, 300);
  const std::string second = Rows(1000, 200);
  cache.Offer(key, Revision(first), first, Stores());
  cache.Offer(key, Revision(second), second, Stores());
  EXPECT_EQ(cache.held_bytes(), second.size());
  std::optional<PushedRows> rows;
  WaitUntilParsed(cache, key, second, Stores(), rows);
  ASSERT_TRUE(rows.has_value());
  EXPECT_EQ(*rows, Parsed(Stores(), second));
}

TEST(ParsedChunkCache, ForgetDropsOneSessionsChunksOnly) {
  ParsedChunkCache cache(1 << 20, 1h);
  const std::string bytes = Rows(1, 100);
  for (int index = 1; index <= 3; ++index) {
    cache.Offer({"S1", "Stores", index}, Revision(bytes), bytes, Stores());
    cache.Offer({"S2", "Stores", index}, Revision(bytes), bytes, Stores());
  }
  cache.Forget("S1");
  EXPECT_EQ(cache.held_bytes(), 3 * bytes.size());
  std::optional<PushedRows> rows;
  WaitUntilParsed(cache, {"S2", "Stores", 3}, bytes, Stores(), rows);
  EXPECT_TRUE(rows.has_value());
  EXPECT_FALSE(cache.Take({"S1", "Stores", 3}, Revision(bytes), Stores()).has_value());
}

TEST(ParsedChunkCache, TheBudgetBoundsTheBytesHeld) {
  const std::string bytes = Rows(1, 100);
  ParsedChunkCache cache(2 * bytes.size() + 10, 1h);
  for (int index = 1; index <= 5; ++index)
    cache.Offer({"S1", "Stores", index}, Revision(bytes), bytes, Stores());
  EXPECT_EQ(cache.held_bytes(), 2 * bytes.size());
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(cache.Take({"S1", "Stores", 3}, Revision(bytes), Stores()).has_value());

  ParsedChunkCache off(0, 1h);
  off.Offer({"S1", "Stores", 1}, Revision(bytes), bytes, Stores());
  EXPECT_EQ(off.held_bytes(), 0u);
  EXPECT_FALSE(off.Take({"S1", "Stores", 1}, Revision(bytes), Stores()).has_value());
}

TEST(ParsedChunkCache, ChunksOlderThanTheirAgeGoAtTheNextOffer) {
  const std::string bytes = Rows(1, 100);
  ParsedChunkCache cache(1 << 20, 20ms);
  cache.Offer({"S1", "Stores", 1}, Revision(bytes), bytes, Stores());
  std::this_thread::sleep_for(60ms);
  cache.Offer({"S2", "Stores", 1}, Revision(bytes), bytes, Stores());
  EXPECT_EQ(cache.held_bytes(), bytes.size());
  EXPECT_FALSE(cache.Take({"S1", "Stores", 1}, Revision(bytes), Stores()).has_value());
}

// Offers, takes and forgets from several threads at once: whatever a take returns is the parse of
// the bytes it was asked for.
TEST(ParsedChunkCache, ConcurrentCallsNeverGiveRowsOfOtherBytes) {
  ParsedChunkCache cache(1 << 20, 1h);
  std::vector<std::string> versions = {Rows(1, 200), Rows(500, 200), Rows(900, 150)};
  std::vector<PushedRows> expected;
  for (const auto& bytes : versions) expected.push_back(Parsed(Stores(), bytes));
  std::atomic<int> taken{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 300; ++i) {
        const ChunkKey key{"S" + std::to_string(i % 2), "Stores", i % 3};
        const size_t version = static_cast<size_t>(t + i) % versions.size();
        if (i % 3 == 0) {
          cache.Offer(key, Revision(versions[version]), versions[version], Stores());
        } else if (i % 17 == 0) {
          cache.Forget(key.session_id);
        } else if (auto chunk = cache.Take(key, Revision(versions[version]), Stores())) {
          if (chunk->rows) {
            EXPECT_EQ(*chunk->rows, expected[version]);
          } else {
            ASSERT_NE(chunk->bytes, nullptr);
            EXPECT_EQ(*chunk->bytes, versions[version]);
          }
          ++taken;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_LE(cache.held_bytes(), size_t{1} << 20);
}

}  // namespace
}  // namespace tessera::testing
