// storage/scratch_table.h
//
// A temporary table of keys and values kept on disk, for work whose bookkeeping grows with its
// input -- the members of a package, the plan of an import -- while its memory must not.
//
// Contract:
//   - The table lives in a private SQLite file created in `directory` (the system's temporary
//     directory when empty) and removed from the directory as soon as it is open, so it needs no
//     cleanup and a killed process leaves nothing behind. Its page cache is bounded by
//     kScratchCacheBytes; the rest stays in the file. Nothing is synced: the table dies with its
//     object.
//   - Keys are unique byte strings. ForEach visits every entry in bytewise key order, or its
//     reverse; the visitor must not change the table.
//   - Failures (the directory cannot be written, the disk is full) throw
//     Error(kServiceUnavailable) naming the directory.
//   - One thread at a time.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace tessera::storage {

inline constexpr int64_t kScratchCacheBytes = int64_t{1} << 20;

class ScratchTable {
 public:
  explicit ScratchTable(const std::filesystem::path& directory = {});
  ~ScratchTable();
  ScratchTable(const ScratchTable&) = delete;
  ScratchTable& operator=(const ScratchTable&) = delete;

  // Adds `key` unless present; returns whether it was added (a present key keeps its value).
  bool Insert(std::string_view key, std::string_view value = {});
  // Adds `key`, or replaces its value.
  void Put(std::string_view key, std::string_view value);
  std::optional<std::string> Find(std::string_view key) const;
  bool Contains(std::string_view key) const { return Find(key).has_value(); }
  int64_t size() const { return size_; }

  enum class Order { kAscending, kDescending };
  void ForEach(const std::function<void(std::string_view key, std::string_view value)>& visit,
               Order order = Order::kAscending) const;

 private:
  void Open();
  void Close() noexcept;
  sqlite3_stmt* Prepare(const char* sql) const;
  [[noreturn]] void Fail(std::string_view what) const;

  std::filesystem::path directory_;
  sqlite3* db_ = nullptr;
  sqlite3_stmt* insert_ = nullptr;
  sqlite3_stmt* put_ = nullptr;
  sqlite3_stmt* find_ = nullptr;
  int64_t size_ = 0;
};

}  // namespace tessera::storage
