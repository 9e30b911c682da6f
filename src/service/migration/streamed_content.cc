#include "service/migration/streamed_content.h"

#include <algorithm>

#include "service/migration/migration_record.h"

namespace tessera::service::migration {

const std::vector<std::string>& StreamedContent::Path() {
  static const std::vector<std::string> path{"packageInfo", "tocView", "content"};
  return path;
}

void StreamedContent::Add(const Json& item) {
  std::string item_path = ElementPath(kFieldPath, static_cast<size_t>(digest_.items));
  model::package::ContentItem parsed = model::package::ParseContentItem(item, item_path);
  ++digest_.items;
  digest_.keeps_both |= parsed.action == model::package::ConflictRule::kKeepBoth;
  if (form_ == Form::kStored) {
    if (!ids_.Insert(parsed.id)) NoteDuplicate(parsed.id);
    ContentEntryFromJson(std::move(parsed), item, item_path);  // checked, not kept
  } else if (!items_.Add(parsed)) {
    NoteDuplicate(parsed.id);
  }
}

void StreamedContent::NoteDuplicate(const std::string& id) {
  ++duplicates_found_;
  if (duplicates_.size() < kMaxDuplicatesShown &&
      std::find(duplicates_.begin(), duplicates_.end(), id) == duplicates_.end()) {
    duplicates_.push_back(id);
  }
}

void StreamedContent::Finish() const {
  if (duplicates_found_ == 0) return;
  std::vector<std::string> shown = duplicates_;
  if (duplicates_found_ > static_cast<int64_t>(shown.size())) shown.push_back("...");
  model::package::RefuseDuplicateIds(shown, kFieldPath);
}

}  // namespace tessera::service::migration
