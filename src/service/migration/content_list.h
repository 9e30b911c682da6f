// service/migration/content_list.h
//
// The items of a package's content list (tocView.content) in the order given, each id once, in
// memory that does not grow with the list: past kContentListItemsInMemory items the list moves to
// disk (storage::ScratchTable in `scratch_dir`; empty: the system's temporary directory).
//
// Contract:
//   - Add() appends an item unless an item with the same id (case-insensitive) is listed already,
//     and says which. A list made from a vector keeps the vector's items as they are (a list read
//     whole was checked for duplicates when it was read).
//   - ForEachChunk() gives the items in order, `chunk_items` at a time (the last chunk may be
//     shorter).
//   - Disk failures throw Error(kServiceUnavailable) (storage/scratch_table.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "model/package/settings.h"

namespace tessera::storage {
class ScratchTable;
}

namespace tessera::service::migration {

inline constexpr size_t kContentListItemsInMemory = 1000;

// The ids of a list, each once, kept as a ContentList keeps them.
class ContentIds {
 public:
  explicit ContentIds(std::filesystem::path scratch_dir = {});
  ContentIds(ContentIds&&) noexcept;
  ContentIds& operator=(ContentIds&&) noexcept;
  ~ContentIds();

  // False when `id` (any case) is in the set already.
  bool Insert(const std::string& id);

 private:
  std::filesystem::path scratch_dir_;
  std::unordered_set<std::string> in_memory_;  // upper case
  std::unique_ptr<storage::ScratchTable> on_disk_;
};

class ContentList {
 public:
  explicit ContentList(std::filesystem::path scratch_dir = {});
  ContentList(
      std::vector<model::package::ContentItem> items);  // NOLINT: a list read whole is a list
  ContentList(ContentList&&) noexcept;
  ContentList& operator=(ContentList&&) noexcept;
  ~ContentList();

  bool Add(const model::package::ContentItem& item);

  int64_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  void ForEachChunk(
      size_t chunk_items,
      const std::function<void(const std::vector<model::package::ContentItem>&)>& visit) const;

 private:
  void MoveToDisk();
  void Store(const model::package::ContentItem& item);

  std::filesystem::path scratch_dir_;
  ContentIds ids_;
  std::vector<model::package::ContentItem> in_memory_;
  std::unique_ptr<storage::ScratchTable> on_disk_;  // 16-digit position -> item JSON
  int64_t size_ = 0;
};

}  // namespace tessera::service::migration
