#include "storage/scratch_table.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <memory>
#include <system_error>

#include "core/error.h"
#include "core/private_files.h"
#include "core/random.h"

namespace tessera::storage {
namespace {

// Resets a statement whatever way the call leaves.
class Reset {
 public:
  explicit Reset(sqlite3_stmt* stmt) : stmt_(stmt) {}
  ~Reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
  Reset(const Reset&) = delete;
  Reset& operator=(const Reset&) = delete;

 private:
  sqlite3_stmt* stmt_;
};

std::filesystem::path DirectoryOrTemporary(const std::filesystem::path& directory) {
  return directory.empty() ? std::filesystem::temp_directory_path() : directory;
}

void BindBlob(sqlite3_stmt* stmt, int index, std::string_view bytes) {
  // A zero-length blob with a null pointer would bind NULL; keys and values are never NULL.
  static const char kEmpty = 0;
  sqlite3_bind_blob64(stmt, index, bytes.empty() ? &kEmpty : bytes.data(), bytes.size(),
                      SQLITE_STATIC);
}

std::string_view ColumnBytes(sqlite3_stmt* stmt, int column) {
  const void* data = sqlite3_column_blob(stmt, column);
  int size = sqlite3_column_bytes(stmt, column);
  return data ? std::string_view(static_cast<const char*>(data), static_cast<size_t>(size))
              : std::string_view();
}

}  // namespace

ScratchTable::ScratchTable(const std::filesystem::path& directory)
    : directory_(DirectoryOrTemporary(directory)) {
  try {
    Open();
  } catch (...) {
    Close();
    throw;
  }
}

ScratchTable::~ScratchTable() { Close(); }

void ScratchTable::Open() {
  std::error_code error;
  CreatePrivateDirectories(directory_, error);
  std::filesystem::path path =
      directory_ / ("scratch-" + RandomString(16, "0123456789abcdef") + ".db");
  int opened =
      sqlite3_open_v2(path.c_str(), &db_,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (opened != SQLITE_OK) {
    std::filesystem::remove(path, error);
    Fail(db_ ? sqlite3_errmsg(db_) : "cannot open a file");
  }
  // An exclusive lock taken now and held keeps every later access off the (removed) path.
  std::string setup = fmt::format(
      "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA locking_mode=EXCLUSIVE;"
      "PRAGMA temp_store=FILE; PRAGMA cache_size=-{};"
      "CREATE TABLE entries(k BLOB PRIMARY KEY, v BLOB NOT NULL) WITHOUT ROWID; BEGIN;",
      kScratchCacheBytes / 1024);
  int result = sqlite3_exec(db_, setup.c_str(), nullptr, nullptr, nullptr);
  std::filesystem::remove(path, error);
  if (result != SQLITE_OK) Fail(sqlite3_errmsg(db_));
  insert_ = Prepare("INSERT OR IGNORE INTO entries(k, v) VALUES(?, ?)");
  put_ = Prepare("UPDATE entries SET v = ? WHERE k = ?");
  find_ = Prepare("SELECT v FROM entries WHERE k = ?");
}

void ScratchTable::Close() noexcept {
  for (sqlite3_stmt* stmt : {insert_, put_, find_}) sqlite3_finalize(stmt);
  insert_ = put_ = find_ = nullptr;
  sqlite3_close_v2(db_);
  db_ = nullptr;
}

sqlite3_stmt* ScratchTable::Prepare(const char* sql) const {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db_, sql, -1, &stmt, nullptr) != SQLITE_OK) Fail(sqlite3_errmsg(db_));
  return stmt;
}

void ScratchTable::Fail(std::string_view what) const {
  throw Error(ErrorCode::kServiceUnavailable,
              fmt::format("The working space in {} cannot be used: {}", directory_.string(), what));
}

bool ScratchTable::Insert(std::string_view key, std::string_view value) {
  Reset reset(insert_);
  BindBlob(insert_, 1, key);
  BindBlob(insert_, 2, value);
  if (sqlite3_step(insert_) != SQLITE_DONE) Fail(sqlite3_errmsg(db_));
  bool added = sqlite3_changes(db_) > 0;
  size_ += added ? 1 : 0;
  return added;
}

void ScratchTable::Put(std::string_view key, std::string_view value) {
  if (Insert(key, value)) return;
  Reset reset(put_);
  BindBlob(put_, 1, value);
  BindBlob(put_, 2, key);
  if (sqlite3_step(put_) != SQLITE_DONE) Fail(sqlite3_errmsg(db_));
}

std::optional<std::string> ScratchTable::Find(std::string_view key) const {
  Reset reset(find_);
  BindBlob(find_, 1, key);
  int result = sqlite3_step(find_);
  if (result == SQLITE_DONE) return std::nullopt;
  if (result != SQLITE_ROW) Fail(sqlite3_errmsg(db_));
  return std::string(ColumnBytes(find_, 0));
}

void ScratchTable::ForEach(
    const std::function<void(std::string_view key, std::string_view value)>& visit,
    Order order) const {
  sqlite3_stmt* scan =
      Prepare(order == Order::kAscending ? "SELECT k, v FROM entries ORDER BY k"
                                         : "SELECT k, v FROM entries ORDER BY k DESC");
  std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> owned(scan, sqlite3_finalize);
  int result;
  while ((result = sqlite3_step(scan)) == SQLITE_ROW) {
    visit(ColumnBytes(scan, 0), ColumnBytes(scan, 1));
  }
  if (result != SQLITE_DONE) Fail(sqlite3_errmsg(db_));
}

}  // namespace tessera::storage
