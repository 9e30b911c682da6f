// ScratchTable: a key-value table on disk that answers like a std::map and whose memory does not
// grow with its entries.
#include "storage/scratch_table.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "core/error.h"
#include "support/heap_usage.h"
#include "support/temp_dir.h"

namespace tessera::storage {
namespace {

std::vector<std::pair<std::string, std::string>> Entries(const ScratchTable& table,
                                                         ScratchTable::Order order) {
  std::vector<std::pair<std::string, std::string>> entries;
  table.ForEach(
      [&](std::string_view key, std::string_view value) {
        entries.emplace_back(std::string(key), std::string(value));
      },
      order);
  return entries;
}

TEST(ScratchTable, InsertKeepsTheFirstValueAndPutReplacesIt) {
  testing::TempDir dir;
  ScratchTable table(dir.path());
  EXPECT_TRUE(table.Insert("a", "1"));
  EXPECT_FALSE(table.Insert("a", "2"));
  EXPECT_EQ(table.Find("a"), "1");
  table.Put("a", "3");
  table.Put("b", "");
  EXPECT_EQ(table.Find("a"), "3");
  EXPECT_EQ(table.Find("b"), "");
  EXPECT_TRUE(table.Contains("b"));
  EXPECT_FALSE(table.Contains("c"));
  EXPECT_EQ(table.Find("c"), std::nullopt);
  EXPECT_EQ(table.size(), 2);
}

TEST(ScratchTable, KeysAndValuesAreBytes) {
  testing::TempDir dir;
  ScratchTable table(dir.path());
  const std::string with_nul("k\0ey", 4);
  const std::string value("\0v\xff", 3);
  table.Insert(with_nul, value);
  table.Insert("k");
  EXPECT_EQ(table.Find(with_nul), value);
  EXPECT_EQ(table.Find("k"), "");
  EXPECT_FALSE(table.Contains(std::string("k\0", 2)));
}

// A random workload larger than the page cache, answered as a std::map answers it.
TEST(ScratchTable, AnswersLikeAnOrderedMapBeyondItsCache) {
  testing::TempDir dir;
  ScratchTable table(dir.path());
  std::map<std::string, std::string> expected;
  std::mt19937 random(7);
  for (int i = 0; i < 60000; ++i) {
    std::string key = std::to_string(random() % 40000) + "-key-" + std::to_string(random() % 7);
    std::string value(random() % 80, static_cast<char>('a' + i % 26));
    if (i % 3 == 0) {
      table.Put(key, value);
      expected[key] = value;
    } else {
      EXPECT_EQ(table.Insert(key, value), expected.emplace(key, value).second) << key;
    }
  }
  EXPECT_EQ(table.size(), static_cast<int64_t>(expected.size()));
  std::vector<std::pair<std::string, std::string>> ascending(expected.begin(), expected.end());
  EXPECT_EQ(Entries(table, ScratchTable::Order::kAscending), ascending);
  std::vector<std::pair<std::string, std::string>> descending(expected.rbegin(), expected.rend());
  EXPECT_EQ(Entries(table, ScratchTable::Order::kDescending), descending);
  for (int i = 0; i < 2000; ++i) {
    std::string key = std::to_string(random() % 40000) + "-key-" + std::to_string(random() % 7);
    auto found = expected.find(key);
    EXPECT_EQ(table.Find(key),
              found == expected.end() ? std::nullopt : std::optional<std::string>(found->second));
  }
}

TEST(ScratchTable, LeavesNoFileInItsDirectory) {
  testing::TempDir dir;
  {
    ScratchTable table(dir.path());
    for (int i = 0; i < 20000; ++i) table.Insert(std::to_string(i), std::string(100, 'x'));
    EXPECT_TRUE(std::filesystem::is_empty(dir.path())) << "the open table is not listed";
    EXPECT_EQ(table.Find("19999"), std::string(100, 'x'));
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(ScratchTable, ADirectoryThatIsAFileIsAServiceError) {
  testing::TempDir dir;
  std::filesystem::path file = dir.path() / "file";
  {
    std::FILE* f = std::fopen(file.c_str(), "w");
    std::fclose(f);
  }
  try {
    ScratchTable table(file);
    FAIL() << "opened a table under a file";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kServiceUnavailable);
    EXPECT_NE(std::string(error.what()).find(file.string()), std::string::npos) << error.what();
  }
}

// 300,000 entries of about 60 bytes (18 MB) while the heap stays within the page cache's bound.
TEST(ScratchTable, MemoryDoesNotGrowWithTheEntries) {
  testing::TempDir dir;
  constexpr int64_t kMiB = 1 << 20;
  {  // the measure sees small allocations, or the bound below could never fail
    int64_t before = testing::HeapBytesInUse();
    std::vector<std::string> small;
    for (int i = 0; i < 4000; ++i) small.emplace_back(1000, 'y');
    ASSERT_GE(testing::HeapBytesInUse() - before, 4000 * 1000);
  }
  const int64_t before = testing::HeapBytesInUse();
  int64_t peak = 0;
  {
    ScratchTable table(dir.path());
    for (int64_t i = 0; i < 300000; ++i) {
      table.Insert(std::to_string(i * 7919 % 300000) + std::string(32, 'k'), std::string(24, 'v'));
      if (i % 5000 == 0) peak = std::max(peak, testing::HeapBytesInUse() - before);
    }
    EXPECT_EQ(table.size(), 300000);
  }
  EXPECT_LT(peak, kScratchCacheBytes + 2 * kMiB) << "heap growth while filling";
  EXPECT_LT(testing::HeapBytesInUse() - before, 256 * 1024) << "memory not given back";
}

}  // namespace
}  // namespace tessera::storage
