#include "service/migration/content_list.h"

#include <fmt/format.h>

#include "core/json.h"
#include "core/strings.h"
#include "storage/scratch_table.h"

namespace tessera::service::migration {

ContentIds::ContentIds(std::filesystem::path scratch_dir) : scratch_dir_(std::move(scratch_dir)) {}
ContentIds::ContentIds(ContentIds&&) noexcept = default;
ContentIds& ContentIds::operator=(ContentIds&&) noexcept = default;
ContentIds::~ContentIds() = default;

bool ContentIds::Insert(const std::string& id) {
  std::string upper = ToUpper(id);
  if (on_disk_) return on_disk_->Insert(upper);
  if (!in_memory_.insert(upper).second) return false;
  if (in_memory_.size() > kContentListItemsInMemory) {
    on_disk_ = std::make_unique<storage::ScratchTable>(scratch_dir_);
    for (const auto& kept : in_memory_) on_disk_->Insert(kept);
    std::unordered_set<std::string>().swap(in_memory_);
  }
  return true;
}

ContentList::ContentList(std::filesystem::path scratch_dir)
    : scratch_dir_(std::move(scratch_dir)), ids_(scratch_dir_) {}

ContentList::ContentList(std::vector<model::package::ContentItem> items)
    : in_memory_(std::move(items)), size_(static_cast<int64_t>(in_memory_.size())) {}

ContentList::ContentList(ContentList&&) noexcept = default;
ContentList& ContentList::operator=(ContentList&&) noexcept = default;
ContentList::~ContentList() = default;

bool ContentList::Add(const model::package::ContentItem& item) {
  if (!ids_.Insert(item.id)) return false;
  if (on_disk_) {
    Store(item);
  } else {
    in_memory_.push_back(item);
    if (in_memory_.size() > kContentListItemsInMemory) MoveToDisk();
  }
  ++size_;
  return true;
}

void ContentList::MoveToDisk() {
  on_disk_ = std::make_unique<storage::ScratchTable>(scratch_dir_);
  for (const auto& item : in_memory_) Store(item);
  std::vector<model::package::ContentItem>().swap(in_memory_);
}

void ContentList::Store(const model::package::ContentItem& item) {
  on_disk_->Insert(fmt::format("{:016}", on_disk_->size()), DumpJson(model::package::ToJson(item)));
}

void ContentList::ForEachChunk(
    size_t chunk_items,
    const std::function<void(const std::vector<model::package::ContentItem>&)>& visit) const {
  std::vector<model::package::ContentItem> chunk;
  auto add = [&](model::package::ContentItem item) {
    chunk.push_back(std::move(item));
    if (chunk.size() < chunk_items) return;
    visit(chunk);
    chunk.clear();
  };
  if (on_disk_) {
    on_disk_->ForEach([&](std::string_view, std::string_view json) {
      add(model::package::ParseContentItem(ParseJson(json), "content[]"));
    });
  } else {
    for (const auto& item : in_memory_) add(item);
  }
  if (!chunk.empty()) visit(chunk);
}

}  // namespace tessera::service::migration
