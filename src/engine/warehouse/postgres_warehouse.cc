#include "engine/warehouse/postgres_warehouse.h"

#include <libpq-fe.h>
#include <poll.h>
#include <spdlog/spdlog.h>

#include <cerrno>
#include <charconv>
#include <exception>
#include <optional>

#include "engine/warehouse/ddl.h"

namespace tessera::engine::warehouse {
namespace {

using Clock = std::chrono::steady_clock;

// pg_type OIDs of the result and parameter types read as numbers.
constexpr Oid kBoolOid = 16;
constexpr Oid kInt8Oid = 20;
constexpr Oid kInt2Oid = 21;
constexpr Oid kInt4Oid = 23;
constexpr Oid kFloat4Oid = 700;
constexpr Oid kFloat8Oid = 701;
constexpr Oid kNumericOid = 1700;

constexpr std::chrono::milliseconds kPollInterval{25};
// How long a cancelled statement may take to wind down before the connection is given up.
constexpr std::chrono::seconds kCancelGrace{10};
constexpr size_t kCopyChunkBytes = 1 << 20;
constexpr int kRowsPerDeadlineCheck = 64;

struct ResultDeleter {
  void operator()(PGresult* result) const { PQclear(result); }
};
using Result = std::unique_ptr<PGresult, ResultDeleter>;

// libpq messages end in a newline and may span lines; errors and logs want one line.
std::string OneLine(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\t') c = ' ';
  }
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

bool IsConnectionState(std::string_view sqlstate) {
  return sqlstate.starts_with("08") || sqlstate == "57P01" || sqlstate == "57P02" ||
         sqlstate == "57P03";
}

constexpr std::string_view kQueryCanceledState = "57014";

enum class CellKind { kInteger, kReal, kBoolean, kText };

CellKind KindOf(Oid type) {
  switch (type) {
    case kInt2Oid:
    case kInt4Oid:
    case kInt8Oid:
      return CellKind::kInteger;
    case kFloat4Oid:
    case kFloat8Oid:
    case kNumericOid:
      return CellKind::kReal;
    case kBoolOid:
      return CellKind::kBoolean;
    default:
      return CellKind::kText;
  }
}

void SetText(SqlValue& cell, std::string_view text) {
  if (auto* existing = std::get_if<std::string>(&cell)) {
    existing->assign(text);
  } else {
    cell = std::string(text);
  }
}

void ReadCell(const PGresult* result, int row, int column, CellKind kind, SqlValue& cell) {
  if (PQgetisnull(result, row, column)) {
    cell = std::monostate{};
    return;
  }
  std::string_view text(PQgetvalue(result, row, column),
                        static_cast<size_t>(PQgetlength(result, row, column)));
  const char* end = text.data() + text.size();
  switch (kind) {
    case CellKind::kInteger: {
      int64_t number = 0;
      if (std::from_chars(text.data(), end, number).ec == std::errc()) {
        cell = number;
        return;
      }
      break;
    }
    case CellKind::kReal: {
      double number = 0;
      if (std::from_chars(text.data(), end, number).ec == std::errc()) {
        cell = number;
        return;
      }
      break;
    }
    case CellKind::kBoolean:
      cell = static_cast<int64_t>(text == "t" ? 1 : 0);
      return;
    case CellKind::kText:
      break;
  }
  SetText(cell, text);
}

std::string FormatNumber(const SqlValue& value) {
  char buffer[64];
  char* end = buffer;
  if (const auto* number = std::get_if<int64_t>(&value)) {
    end = std::to_chars(buffer, buffer + sizeof buffer, *number).ptr;
  } else {
    end = std::to_chars(buffer, buffer + sizeof buffer, std::get<double>(value)).ptr;
  }
  return std::string(buffer, end);
}

Oid ParameterType(const SqlValue& value) {
  if (std::holds_alternative<int64_t>(value)) return kInt8Oid;
  if (std::holds_alternative<double>(value)) return kFloat8Oid;
  return 0;  // the server infers it from where the value is used
}

// A COPY text-format field: backslash, tab, newline and carriage return escaped; null as \N.
void AppendCopyField(std::string& out, const SqlValue& value) {
  if (std::holds_alternative<std::monostate>(value)) {
    out += "\\N";
    return;
  }
  const auto* text = std::get_if<std::string>(&value);
  if (text == nullptr) {
    out += FormatNumber(value);
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
    PQsetNoticeProcessor(
        conn_, [](void*, const char*) {}, nullptr);
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
    std::vector<CellKind> kinds;
    std::vector<SqlValue> row;
    int rows_since_clock_check = 0;
  };

  void Send(const SqlStatement& statement) {
    std::string numbered = NumberPostgresPlaceholders(statement.text);
    size_t count = statement.parameters.size();
    std::vector<std::string> texts(count);
    std::vector<const char*> values(count, nullptr);
    std::vector<Oid> types(count, 0);
    for (size_t i = 0; i < count; ++i) {
      const SqlValue& parameter = statement.parameters[i];
      types[i] = ParameterType(parameter);
      if (std::holds_alternative<std::monostate>(parameter)) continue;
      const auto* text = std::get_if<std::string>(&parameter);
      texts[i] = text != nullptr ? *text : FormatNumber(parameter);
      values[i] = texts[i].c_str();
    }
    if (PQsendQueryParams(conn_, numbered.c_str(), static_cast<int>(count), types.data(),
                          values.data(), nullptr, nullptr, 0) == 0) {
      throw ConnectionFailure(PQerrorMessage(conn_));
    }
    PQsetSingleRowMode(conn_);
  }

  void Stream(RowSink& sink, const QueryOptions& options) {
    Watch watch(options);
    StreamState state;
    for (;;) {
      WaitForResult(watch, state);
      Result result(PQgetResult(conn_));
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
        ReadCell(result, 0, static_cast<int>(c), state.kinds[c], state.row[c]);
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
      state.kinds.push_back(KindOf(PQftype(result, c)));
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
    Result result(PQgetResult(conn_));
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
    Result result(PQexec(conn_, sql.c_str()));
    ExecStatusType status = result ? PQresultStatus(result.get()) : PGRES_FATAL_ERROR;
    if (status == expected || status == PGRES_TUPLES_OK) return;
    if (result == nullptr) throw ConnectionFailure(PQerrorMessage(conn_));
    throw Classify(result.get());
  }

  void DrainResults() {
    while (Result result{PQgetResult(conn_)}) {
    }
  }

  Error Classify(const PGresult* result) {
    const char* field = PQresultErrorField(result, PG_DIAG_SQLSTATE);
    std::string_view sqlstate = field != nullptr ? field : "";
    std::string message = OneLine(PQresultErrorMessage(result));
    if (PQstatus(conn_) != CONNECTION_OK || IsConnectionState(sqlstate) || sqlstate.empty()) {
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
                 OneLine(std::string(reason)));
    return UnreachableError(name_);
  }

  void RollbackIfOpen() {
    if (!is_healthy() || PQtransactionStatus(conn_) == PQTRANS_IDLE) return;
    Result result(PQexec(conn_, "ROLLBACK"));
  }

  std::string name_;
  PGconn* conn_;
  bool healthy_ = true;
};

}  // namespace

std::unique_ptr<WarehouseConnection> OpenPostgresWarehouseConnection(
    const std::string& warehouse_name, const std::string& url) {
  // Keywords before "dbname" are defaults that the expanded URL overrides.
  const char* keywords[] = {"connect_timeout",
                            "keepalives_idle",
                            "keepalives_interval",
                            "keepalives_count",
                            "tcp_user_timeout",
                            "application_name",
                            "client_encoding",
                            "options",
                            "dbname",
                            nullptr};
  const char* values[] = {
      "3",         "10",   "5", "3", "30000", "tessera-warehouse", "UTF8", "-c DateStyle=ISO,YMD",
      url.c_str(), nullptr};
  PGconn* conn = PQconnectdbParams(keywords, values, /*expand_dbname=*/1);
  if (conn == nullptr || PQstatus(conn) != CONNECTION_OK) {
    spdlog::warn("warehouse '{}' cannot be reached: postgresql: {}", warehouse_name,
                 OneLine(conn != nullptr ? PQerrorMessage(conn) : "out of memory"));
    PQfinish(conn);
    throw UnreachableError(warehouse_name);
  }
  return std::make_unique<PostgresWarehouseConnection>(warehouse_name, conn);
}

}  // namespace tessera::engine::warehouse
