// service/migration/streamed_content.h
//
// A packageInfo.tocView.content list read item by item while its request body is parsed
// (ParseJsonStreamingArray at Path()), so that a long list is never held whole. Each item is
// checked as the list of the same body is when read whole -- request items (kRequest: the
// creation body, model::package::ParseContentItem), or items of a stored record (kStored: the
// import and validation bodies, ContentEntryFromJson) -- with errors naming
// packageInfo.tocView.content[i]. Finish() refuses ids listed more than once, naming the first
// kMaxDuplicatesShown. Kept: the request items (kRequest) and the digest, in memory that does not
// grow with the list (ContentList, in `scratch_dir`).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "service/migration/content_list.h"

namespace tessera::service::migration {

// What a content list read item by item held, in place of the list.
struct ContentDigest {
  int64_t items = 0;
  bool keeps_both = false;  // an item's action is keep_both
};

class StreamedContent {
 public:
  enum class Form { kRequest, kStored };

  static const std::vector<std::string>& Path();  // packageInfo, tocView, content
  static constexpr std::string_view kFieldPath = "packageInfo.tocView.content";

  static constexpr size_t kMaxDuplicatesShown = 20;

  StreamedContent(Form form, const std::filesystem::path& scratch_dir)
      : form_(form), ids_(scratch_dir), items_(scratch_dir) {}

  void Add(const Json& item);
  void Finish() const;

  const ContentDigest& digest() const { return digest_; }
  ContentList TakeItems() { return std::move(items_); }

 private:
  void NoteDuplicate(const std::string& id);

  Form form_;
  ContentDigest digest_;
  ContentIds ids_;                       // kStored: the ids seen
  ContentList items_;                    // kRequest
  int64_t duplicates_found_ = 0;         // listings of an id after its first
  std::vector<std::string> duplicates_;  // in the order found, up to kMaxDuplicatesShown
};

}  // namespace tessera::service::migration
