// ContentList and StreamedContent: a content list of any length, in order, each id once, in
// memory that does not grow with it.
#include "service/migration/content_list.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.h"
#include "core/json.h"
#include "core/strings.h"
#include "service/migration/streamed_content.h"
#include "support/heap_usage.h"
#include "support/temp_dir.h"

namespace tessera::service::migration {
namespace {

model::package::ContentItem ItemNumber(int i) {
  model::package::ContentItem item;
  item.id = fmt::format("{:032X}", i + 1);
  item.name = "Object " + std::to_string(i);
  if (i % 2 == 0) item.type = 4;
  item.action =
      i % 3 == 0 ? model::package::ConflictRule::kReplace : model::package::ConflictRule::kUseNewer;
  item.include_dependents = i % 5 == 0;
  return item;
}

bool SameItem(const model::package::ContentItem& a, const model::package::ContentItem& b) {
  return a.id == b.id && a.name == b.name && a.type == b.type && a.action == b.action &&
         a.include_dependents == b.include_dependents;
}

std::vector<std::vector<model::package::ContentItem>> Chunks(const migration::ContentList& list,
                                                             size_t size) {
  std::vector<std::vector<model::package::ContentItem>> chunks;
  list.ForEachChunk(size, [&](const std::vector<model::package::ContentItem>& chunk) {
    chunks.push_back(chunk);
  });
  return chunks;
}

TEST(ContentList, ItemsComeBackInOrderAndInChunksOnEitherSideOfTheMemoryLimit) {
  testing::TempDir dir;
  for (int count : {3, static_cast<int>(migration::kContentListItemsInMemory) + 1, 2500}) {
    migration::ContentList list(dir.path());
    for (int i = 0; i < count; ++i) EXPECT_TRUE(list.Add(ItemNumber(i)));
    EXPECT_EQ(list.size(), count);
    auto chunks = Chunks(list, 1000);
    ASSERT_EQ(chunks.size(), static_cast<size_t>((count + 999) / 1000)) << count;
    int next = 0;
    for (const auto& chunk : chunks) {
      EXPECT_EQ(chunk.size(), static_cast<size_t>(std::min(1000, count - next)));
      for (const auto& item : chunk) EXPECT_TRUE(SameItem(item, ItemNumber(next++))) << next;
    }
    EXPECT_EQ(next, count);
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(ContentList, AnIdListedAgainInAnyCaseIsNotAdded) {
  testing::TempDir dir;
  migration::ContentList list(dir.path());
  for (int i = 0; i < 1500; ++i) list.Add(ItemNumber(i));
  model::package::ContentItem again = ItemNumber(7);
  again.id = ToLower(again.id);
  EXPECT_FALSE(list.Add(again)) << "an id from before the list moved to disk";
  EXPECT_FALSE(list.Add(ItemNumber(1400)));
  EXPECT_TRUE(list.Add(ItemNumber(1500)));
  EXPECT_EQ(list.size(), 1501);

  migration::ContentIds ids(dir.path());
  for (int i = 0; i < 1500; ++i) EXPECT_TRUE(ids.Insert(ItemNumber(i).id));
  EXPECT_FALSE(ids.Insert(ItemNumber(3).id));
  EXPECT_FALSE(ids.Insert(ItemNumber(1499).id));
}

TEST(ContentList, MemoryDoesNotGrowWithTheList) {
  testing::TempDir dir;
  const int64_t before = testing::HeapBytesInUse();
  int64_t peak = 0;
  {
    migration::ContentList list(dir.path());
    for (int i = 0; i < 60000; ++i) {
      list.Add(ItemNumber(i));
      if (i % 2000 == 0) peak = std::max(peak, testing::HeapBytesInUse() - before);
    }
    int64_t read = 0;
    list.ForEachChunk(1000, [&](const std::vector<model::package::ContentItem>& chunk) {
      read += static_cast<int64_t>(chunk.size());
      peak = std::max(peak, testing::HeapBytesInUse() - before);
    });
    EXPECT_EQ(read, 60000);
  }
  // Held in memory, 60,000 items and their id set would take about 14 MB.
  EXPECT_LT(peak, 6 << 20) << "heap growth";
}

Json ContentBody(const std::vector<std::string>& ids) {
  Json content = Json::array();
  for (const auto& id : ids) content.push_back({{"id", id}, {"action", "replace"}});
  return content;
}

TEST(StreamedContent, DuplicatesAreNamedUpToALimit) {
  testing::TempDir dir;
  migration::StreamedContent streamed(migration::StreamedContent::Form::kRequest, dir.path());
  for (int i = 0; i < 1200; ++i) streamed.Add(ContentBody({ItemNumber(i).id})[0]);
  for (int i = 0; i < 30; ++i) streamed.Add(ContentBody({ItemNumber(i).id})[0]);
  try {
    streamed.Finish();
    FAIL() << "duplicates were accepted";
  } catch (const Error& error) {
    std::string message = error.what();
    EXPECT_NE(message.find(ItemNumber(0).id), std::string::npos) << message;
    EXPECT_NE(message.find(ItemNumber(19).id), std::string::npos) << message;
    EXPECT_EQ(message.find(ItemNumber(20).id), std::string::npos) << message;
    EXPECT_NE(message.find("..."), std::string::npos) << message;
  }
  EXPECT_EQ(streamed.digest().items, 1230);
}

}  // namespace
}  // namespace tessera::service::migration
