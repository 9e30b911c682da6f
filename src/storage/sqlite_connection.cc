#include "storage/sqlite_connection.h"

#include <sqlite3.h>

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>

#include "core/private_files.h"
#include "db/connect_error.h"
#include "db/sqlite.h"

namespace tessera::storage {
namespace {

bool IsFatal(int result_code) {
  switch (result_code & 0xff) {
    case SQLITE_CANTOPEN:
    case SQLITE_IOERR:
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
    case SQLITE_FULL:
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_NOMEM:
      return true;
    default:
      return false;
  }
}

SqlError::Kind Classify(int result_code) {
  if (IsFatal(result_code)) return SqlError::Kind::kConnectionLost;
  switch (result_code & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return SqlError::Kind::kBusy;
    default:
      break;
  }
  if (result_code == SQLITE_CONSTRAINT_UNIQUE || result_code == SQLITE_CONSTRAINT_PRIMARYKEY) {
    return SqlError::Kind::kUniqueViolation;
  }
  return SqlError::Kind::kOther;
}

// Lets the statement cache be looked up by string_view.
struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view text) const { return std::hash<std::string_view>{}(text); }
};

class SqliteConnection : public SqlConnection {
 public:
  explicit SqliteConnection(db::SqliteHandle db) : db_(std::move(db)) {}

  // After the chunk database is attached: the hook reports the log of either file in bytes.
  void LeaveCheckpointsTo(WalCheckpointer& checkpointer) {
    checkpointer_ = &checkpointer;
    main_page_size_ = AsInt(Query("PRAGMA main.page_size", {}).at(0).at(0));
    chunk_page_size_ = AsInt(Query("PRAGMA chunks.page_size", {}).at(0).at(0));
    sqlite3_wal_hook(db_.get(), &ReportLogLength, this);
  }

  int64_t Execute(std::string_view sql, const SqlParams& params) override {
    Run(sql, params, nullptr);
    return sqlite3_changes64(db_.get());
  }

  std::vector<SqlRow> Query(std::string_view sql, const SqlParams& params) override {
    std::vector<SqlRow> rows;
    Run(sql, params, &rows);
    return rows;
  }

  void Begin(TransactionMode mode) override {
    Execute(mode == TransactionMode::kRead ? "BEGIN" : "BEGIN IMMEDIATE", {});
  }

  bool HasTable(std::string_view name) override {
    return !Query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                  {std::string(name)})
                .empty();
  }

  bool is_healthy() const override { return healthy_; }
  std::string_view backend_name() const override { return "sqlite"; }

 private:
  // A statement prepared once per connection and SQL text, reset after each run.
  db::SqliteStatement& Prepared(std::string_view sql) {
    auto found = statements_.find(sql);
    if (found != statements_.end()) return *found->second;
    auto statement = std::make_unique<db::SqliteStatement>(db_.get(), sql);
    Check(statement->prepare_result());
    // SQL built with a varying number of parameters would grow the cache without end.
    if (statements_.size() >= kMaxPreparedStatements) statements_.clear();
    return *statements_.emplace(std::string(sql), std::move(statement)).first->second;
  }

  void Run(std::string_view sql, const SqlParams& params, std::vector<SqlRow>* rows) {
    db::SqliteStatement& statement = Prepared(sql);
    struct ResetAfterRun {
      db::SqliteStatement& statement;
      ~ResetAfterRun() { statement.Reset(); }
    } reset_after_run{statement};
    for (size_t i = 0; i < params.size(); ++i) {
      Check(statement.Bind(static_cast<int>(i + 1), params[i],
                           db::SqliteStatement::Binding::kReferenced));
    }
    for (;;) {
      int result = sqlite3_step(statement.get());
      if (result == SQLITE_DONE) return;
      if (result != SQLITE_ROW) Check(sqlite3_extended_errcode(db_.get()));
      if (rows == nullptr) continue;
      SqlRow& row = rows->emplace_back(static_cast<size_t>(statement.column_count()));
      for (size_t c = 0; c < row.size(); ++c) statement.ReadColumn(static_cast<int>(c), row[c]);
    }
  }

  void Check(int result) {
    if (result == SQLITE_OK || result == SQLITE_ROW || result == SQLITE_DONE) return;
    const db::SqliteFailure failure = db::DescribeSqliteFailure(db_.get(), result);
    SqlError::Kind kind = Classify(failure.code);
    if (kind == SqlError::Kind::kConnectionLost) healthy_ = false;
    throw SqlError(kind, "sqlite: " + failure.message);
  }

  static int ReportLogLength(void* connection, sqlite3*, const char* schema, int pages) {
    auto* self = static_cast<SqliteConnection*>(connection);
    const int64_t page_size =
        std::string_view(schema) == "chunks" ? self->chunk_page_size_ : self->main_page_size_;
    self->checkpointer_->LogGrew(pages * page_size);
    return SQLITE_OK;
  }

  static constexpr size_t kMaxPreparedStatements = 256;

  db::SqliteHandle db_;
  bool healthy_ = true;
  WalCheckpointer* checkpointer_ = nullptr;
  int64_t main_page_size_ = 0;
  int64_t chunk_page_size_ = 0;
  // Declared after db_: finalized before the handle closes.
  std::unordered_map<std::string, std::unique_ptr<db::SqliteStatement>, StringHash, std::equal_to<>>
      statements_;
};

// Puts the file of `schema` in WAL mode. Switching a file to WAL takes an exclusive lock, and
// SQLite refuses at once, without its busy handler, while another connection is writing the file
// -- as when several connections open a new file at the same moment and one of them is switching
// it already. So this waits as the busy handler would: until the switch is made (a file already
// in WAL mode needs none), or `busy_timeout` has passed.
void UseWriteAheadLog(SqlConnection& connection, std::string_view schema,
                      std::chrono::milliseconds busy_timeout) {
  constexpr std::chrono::milliseconds kRetryInterval{5};
  const std::string pragma = "PRAGMA " + std::string(schema) + ".journal_mode = WAL";
  const auto deadline = std::chrono::steady_clock::now() + busy_timeout;
  for (;;) {
    try {
      connection.Query(pragma, {});
      return;
    } catch (const SqlError& error) {
      if (error.kind() != SqlError::Kind::kBusy || std::chrono::steady_clock::now() >= deadline) {
        throw;
      }
    }
    std::this_thread::sleep_for(kRetryInterval);
  }
}

// Attached after the main file's pragmas, so it inherits secure_delete. The page size takes
// effect only while the file is still empty.
void AttachChunkDatabase(SqlConnection& connection, const std::string& path,
                         std::chrono::milliseconds busy_timeout) {
  const std::string chunk_path = ChunkDatabasePath(path);
  if (chunk_path != path) CreatePrivateFile(chunk_path);
  connection.Execute("ATTACH DATABASE ? AS chunks", {chunk_path});
  connection.Execute("PRAGMA chunks.page_size = 65536", {});
  UseWriteAheadLog(connection, "chunks", busy_timeout);
  connection.Execute("PRAGMA chunks.synchronous = NORMAL", {});
}

}  // namespace

std::string ChunkDatabasePath(const std::string& path) {
  if (path.empty() || path == ":memory:") return path;
  return path + "-chunks";
}

std::unique_ptr<SqlConnection> OpenSqliteConnection(const std::string& path,
                                                    std::chrono::milliseconds busy_timeout,
                                                    WalCheckpointer* checkpointer) {
  std::unique_ptr<SqliteConnection> connection;
  try {
    connection = std::make_unique<SqliteConnection>(db::OpenSqlite(path, busy_timeout));
  } catch (const db::ConnectError& error) {
    throw SqlError(SqlError::Kind::kConnectionLost, std::string("sqlite: ") + error.what());
  }
  try {
    UseWriteAheadLog(*connection, "main", busy_timeout);
    connection->Execute("PRAGMA synchronous = NORMAL", {});
    // Some builds zero every freed page, so dropping an upload session's chunks would write them
    // all again; FAST still zeroes what lies in table pages, at no extra write.
    connection->Execute("PRAGMA secure_delete = FAST", {});
    AttachChunkDatabase(*connection, path, busy_timeout);
    if (checkpointer) connection->LeaveCheckpointsTo(*checkpointer);
  } catch (const SqlError& error) {
    // A file that is not a database, or a directory we may not write, is not usable at all.
    throw SqlError(SqlError::Kind::kConnectionLost, error.what());
  }
  return connection;
}

}  // namespace tessera::storage
