#include "engine/warehouse/postgres_warehouse.h"

#include <libpq-fe.h>
#include <poll.h>
#include <spdlog/spdlog.h>

#include <cerrno>
#include <exception>
#include <optional>

#include "db/connect_error.h"
#include "db/postgres.h"
#include "engine/warehouse/ddl.h"

namespace tessera::engine::warehouse {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::chrono::milliseconds kPollInterval{25};
// How long a cancelled statement may take to wind down before the connection is given up.
constexpr std::chrono::seconds kCancelGrace{10};
constexpr size_t kCopyChunkBytes = 1 << 20;
constexpr int kRowsPerDeadlineCheck = 64;

constexpr std::string_view kQueryCanceledState = "57014";

// A COPY text-format field: backslash, tab, newline and carriage return escaped; null as \N.
void AppendCopyField(std::string& out, const SqlValue& value) {
  if (std::holds_alternative<std::monostate>(value)) {
    out += "\\N";
    return;
  }
  const auto* text = std::get_if<std::string>(&value);
  if (text == nullptr) {
    out += db::FormatNumber(value);
    return;
  }
  for (char c : *text) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        out += c;
    }
  }
}

class Watch {
 public:
  enum class Stop { kNone, kTimedOut, kCancelled, kAbandoned };

  explicit Watch(const QueryOptions& options)
      : timeout_(options.timeout),
        deadline_(Clock::now() + options.timeout),
        cancel_(options.cancel) {}

  // Whether the query should stop now; `check_clock` false looks at the flag only.
  Stop Due(bool check_clock) const {
    if (cancel_ != nullptr && cancel_->load(std::memory_order_relaxed)) return Stop::kCancelled;
    if (check_clock && Clock::now() >= deadline_) return Stop::kTimedOut;
    return Stop::kNone;
  }
  std::chrono::milliseconds timeout() const { return timeout_; }

 private:
  std::chrono::milliseconds timeout_;
  Clock::time_point deadline_;
  const std::atomic<bool>* cancel_;
};

class PostgresWarehouseConnection : public WarehouseConnection {
 public:
  PostgresWarehouseConnection(std::string warehouse_name, PGconn* conn)
      : name_(std::move(warehouse_name)), conn_(conn) {
    db::IgnoreNotices(conn_);
  }
  ~PostgresWarehouseConnection() override { PQfinish(conn_); }

  void Query(const SqlStatement& statement, RowSink& sink, const QueryOptions& options) override {
    try {
      Send(statement);
      Stream(sink, options);
    } catch (...) {
      RollbackIfOpen();
      throw;
    }
    RollbackIfOpen();
  }

  void BulkLoad(const TableSchema& schema, const RowSource& source,
                const std::vector<std::string>& indexed_columns) override {
    try {
      Execute("BEGIN");
      Execute(DropTableSql(schema));
      Execute(CreateTableSql(schema, Dialect::kPostgres));
      Copy(schema, source);
      if (std::string sql = AddPrimaryKeySql(schema); !sql.empty()) Execute(sql);
      for (const std::string& sql : CreateIndexSql(schema, indexed_columns)) Execute(sql);
      Execute("COMMIT");
    } catch (...) {
      RollbackIfOpen();
      throw;
    }
    Execute("ANALYZE " + QuotedIdentifier(schema.name));
  }

  bool is_healthy() const override { return healthy_ && PQstatus(conn_) == CONNECTION_OK; }

 private:
  struct StreamState {
    Watch::Stop stop = Watch::Stop::kNone;
    Clock::time_point give_up_at = Clock::time_point::max();
    std::optional<Error> failure;
    std::exception_ptr sink_failure;
    bool columns_sent = false;
    std::vector<db::ColumnKind> kinds;
    std::vector<SqlValue> row;
    int rows_since_clock_check = 0;
  };

  void Send(const SqlStatement& statement) {
    const std::string numbered = NumberPostgresPlaceholders(statement.text);
    const db::PostgresParameters parameters(statement.parameters);
    if (PQsendQueryParams(conn_, numbered.c_str(), parameters.count(), parameters.types(),
                          parameters.values(), nullptr, nullptr, 0) == 0) {
      throw ConnectionFailure(PQerrorMessage(conn_));
    }
    PQsetSingleRowMode(conn_);
  }

  void Stream(RowSink& sink, const QueryOptions& options) {
    Watch watch(options);
    StreamState state;
    for (;;) {
      WaitForResult(watch, state);
      db::PostgresResult result(PQgetResult(conn_));
      if (result == nullptr) break;
      Consume(result.get(), sink, watch, state);
    }
    if (state.stop != Watch::Stop::kNone) ThrowStopped(watch, state);
    if (state.failure) throw *state.failure;
  }

  void Consume(const PGresult* result, RowSink& sink, const Watch& watch, StreamState& state) {
    switch (PQresultStatus(result)) {
      case PGRES_SINGLE_TUPLE:
        if (state.stop == Watch::Stop::kNone) Deliver(result, sink, state);
        if (state.stop == Watch::Stop::kNone) {
          bool check_clock = ++state.rows_since_clock_check % kRowsPerDeadlineCheck == 0;
          if (Watch::Stop due = watch.Due(check_clock); due != Watch::Stop::kNone) {
            StopQuery(due, state);
          }
        }
        return;
      case PGRES_TUPLES_OK:
      case PGRES_COMMAND_OK:
        if (state.stop == Watch::Stop::kNone && !state.columns_sent) {
          SendColumns(result, sink, state);
        }
        return;
      default:
        if (!state.failure) state.failure = Classify(result);
        return;
    }
  }

  void Deliver(const PGresult* result, RowSink& sink, StreamState& state) {
    try {
      if (!state.columns_sent) SendColumns(result, sink, state);
      for (size_t c = 0; c < state.row.size(); ++c) {
        db::ReadPostgresCell(result, 0, static_cast<int>(c), state.kinds[c], state.row[c]);
      }
      sink.OnRow(state.row);
    } catch (...) {
      state.sink_failure = std::current_exception();
      StopQuery(Watch::Stop::kAbandoned, state);
    }
  }

  void SendColumns(const PGresult* result, RowSink& sink, StreamState& state) {
    int columns = PQnfields(result);
    std::vector<std::string> names;
    for (int c = 0; c < columns; ++c) {
      names.emplace_back(PQfname(result, c));
      state.kinds.push_back(db::ColumnKindOf(PQftype(result, c), db::NumericColumns::kAsReal));
    }
    state.row.resize(static_cast<size_t>(columns));
    state.columns_sent = true;
    sink.OnColumns(names);
  }

  // Returns once PQgetResult will not block; sends a cancel request when the query is due.
  void WaitForResult(const Watch& watch, StreamState& state) {
    while (PQisBusy(conn_) != 0) {
      if (state.stop == Watch::Stop::kNone) {
        if (Watch::Stop due = watch.Due(true); due != Watch::Stop::kNone) StopQuery(due, state);
      }
      if (Clock::now() >= state.give_up_at) {
        healthy_ = false;  // the server ignores the cancel; closing the connection ends the query
        ThrowStopped(watch, state);
      }
      pollfd descriptor{PQsocket(conn_), POLLIN, 0};
      if (poll(&descriptor, 1, static_cast<int>(kPollInterval.count())) < 0 && errno != EINTR) {
        throw ConnectionFailure("poll failed");
      }
      if (PQconsumeInput(conn_) == 0) throw ConnectionFailure(PQerrorMessage(conn_));
    }
  }

  [[noreturn]] void ThrowStopped(const Watch& watch, const StreamState& state) {
    if (state.sink_failure) std::rethrow_exception(state.sink_failure);
    if (state.stop == Watch::Stop::kCancelled) throw CancelledError(name_);
    throw TimedOutError(name_, watch.timeout());
  }

  void StopQuery(Watch::Stop why, StreamState& state) {
    state.stop = why;
    state.give_up_at = Clock::now() + kCancelGrace;
    PGcancel* cancel = PQgetCancel(conn_);
    if (cancel == nullptr) return;
    char message[256];
    if (PQcancel(cancel, message, sizeof message) == 0) {
      spdlog::warn("warehouse '{}': the cancel request failed: {}", name_, message);
    }
    PQfreeCancel(cancel);
  }

  void Copy(const TableSchema& schema, const RowSource& source) {
    Execute("COPY " + QuotedIdentifier(schema.name) + " (" + ColumnListSql(schema) + ") FROM STDIN",
            PGRES_COPY_IN);
    try {
      SendCopyRows(schema, source);
    } catch (...) {
      if (PQstatus(conn_) == CONNECTION_OK) {
        PQputCopyEnd(conn_, "the row source failed");
        DrainResults();
      }
      throw;
    }
    if (PQputCopyEnd(conn_, nullptr) != 1) throw ConnectionFailure(PQerrorMessage(conn_));
    db::PostgresResult result(PQgetResult(conn_));
    DrainResults();
    if (PQresultStatus(result.get()) != PGRES_COMMAND_OK) throw Classify(result.get());
  }

  void SendCopyRows(const TableSchema& schema, const RowSource& source) {
    const size_t width = schema.columns.size();
    std::vector<SqlValue> row(width);
    std::string buffer;
    buffer.reserve(kCopyChunkBytes + 4096);
    while (source(row)) {
      if (row.size() != width) {
        throw Error(ErrorCode::kInternal,
                    "loading table '" + schema.name + "': a row has " + std::to_string(row.size()) +
                        " values, the table has " + std::to_string(width) + " columns");
      }
      for (size_t i = 0; i < width; ++i) {
        if (i > 0) buffer += '\t';
        AppendCopyField(buffer, row[i]);
      }
      buffer += '\n';
      if (buffer.size() >= kCopyChunkBytes) PutCopyData(buffer);
    }
    PutCopyData(buffer);
  }

  void PutCopyData(std::string& buffer) {
    if (buffer.empty()) return;
    if (PQputCopyData(conn_, buffer.data(), static_cast<int>(buffer.size())) != 1) {
      throw ConnectionFailure(PQerrorMessage(conn_));
    }
    buffer.clear();
  }

  void Execute(const std::string& sql, ExecStatusType expected = PGRES_COMMAND_OK) {
    db::PostgresResult result(PQexec(conn_, sql.c_str()));
    ExecStatusType status = result ? PQresultStatus(result.get()) : PGRES_FATAL_ERROR;
    if (status == expected || status == PGRES_TUPLES_OK) return;
    if (result == nullptr) throw ConnectionFailure(PQerrorMessage(conn_));
    throw Classify(result.get());
  }

  void DrainResults() {
    while (db::PostgresResult result{PQgetResult(conn_)}) {
    }
  }

  Error Classify(const PGresult* result) {
    const std::string_view sqlstate = db::SqlStateOf(result);
    std::string message = db::OneLine(PQresultErrorMessage(result));
    if (db::IsConnectionLost(conn_, sqlstate)) {
      return ConnectionFailure(message);
    }
    if (sqlstate == kQueryCanceledState) {
      return Error(ErrorCode::kTimeout, "The query on warehouse '" + name_ +
                                            "' was cancelled by the server: " + message);
    }
    return RefusedError(name_, "postgresql: " + message);
  }

  Error ConnectionFailure(std::string_view reason) {
    healthy_ = false;
    spdlog::warn("warehouse '{}' cannot be reached: postgresql: {}", name_,
                 db::OneLine(std::string(reason)));
    return UnreachableError(name_);
  }

  void RollbackIfOpen() {
    if (!is_healthy() || PQtransactionStatus(conn_) == PQTRANS_IDLE) return;
    db::PostgresResult result(PQexec(conn_, "ROLLBACK"));
  }

  std::string name_;
  PGconn* conn_;
  bool healthy_ = true;
};

}  // namespace

std::unique_ptr<WarehouseConnection> OpenPostgresWarehouseConnection(
    const std::string& warehouse_name, const std::string& url) {
  // UTF-8 and ISO dates, so a `date` column reads as "yyyy-MM-dd".
  const db::PostgresSession session{
      "tessera-warehouse", {{"client_encoding", "UTF8"}, {"options", "-c DateStyle=ISO,YMD"}}};
  try {
    return std::make_unique<PostgresWarehouseConnection>(warehouse_name,
                                                         db::ConnectPostgres(url, session));
  } catch (const db::ConnectError& error) {
    spdlog::warn("warehouse '{}' cannot be reached: postgresql: {}", warehouse_name, error.what());
    throw UnreachableError(warehouse_name);
  }
}

}  // namespace tessera::engine::warehouse
