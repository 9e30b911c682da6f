#include "db/postgres.h"

#include <charconv>

#include "db/connect_error.h"

namespace tessera::db {
namespace {

void IgnoreNotice(void*, const char*) {}

Oid ParameterType(const Value& value) {
  if (std::holds_alternative<int64_t>(value)) return kInt8Oid;
  if (std::holds_alternative<double>(value)) return kFloat8Oid;
  return 0;  // the server infers it from where the value is used
}

// `text` as a whole number of type T, or false.
template <typename T>
bool ParseWhole(std::string_view text, T& number) {
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, number);
  return error == std::errc() && stop == end;
}

}  // namespace

PGconn* ConnectPostgres(const std::string& url, const PostgresSession& session) {
  // Keywords before "dbname" are defaults that the expanded URL overrides.
  std::vector<const char*> keywords = {"connect_timeout",     "keepalives_idle",
                                       "keepalives_interval", "keepalives_count",
                                       "tcp_user_timeout",    "application_name"};
  std::vector<const char*> values = {"3", "10",    "5",
                                     "3", "30000", session.application_name.c_str()};
  for (const auto& [keyword, value] : session.settings) {
    keywords.push_back(keyword.c_str());
    values.push_back(value.c_str());
  }
  keywords.insert(keywords.end(), {"dbname", nullptr});
  values.insert(values.end(), {url.c_str(), nullptr});
  PGconn* conn = PQconnectdbParams(keywords.data(), values.data(), /*expand_dbname=*/1);
  if (conn == nullptr) throw ConnectError("out of memory");
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string message = OneLine(PQerrorMessage(conn));
    PQfinish(conn);
    throw ConnectError(message);
  }
  return conn;
}

void IgnoreNotices(PGconn* conn) { PQsetNoticeProcessor(conn, IgnoreNotice, nullptr); }

PostgresParameters::PostgresParameters(const std::vector<Value>& values)
    : texts_(values.size()), values_(values.size(), nullptr), types_(values.size(), 0) {
  for (size_t i = 0; i < values.size(); ++i) {
    const Value& value = values[i];
    types_[i] = ParameterType(value);
    if (std::holds_alternative<std::monostate>(value)) continue;
    const auto* text = std::get_if<std::string>(&value);
    texts_[i] = text != nullptr ? *text : FormatNumber(value);
    values_[i] = texts_[i].c_str();
  }
}

ColumnKind ColumnKindOf(Oid type, NumericColumns numeric) {
  switch (type) {
    case kInt2Oid:
    case kInt4Oid:
    case kInt8Oid:
      return ColumnKind::kInteger;
    case kFloat4Oid:
    case kFloat8Oid:
      return ColumnKind::kReal;
    case kNumericOid:
      return numeric == NumericColumns::kAsReal ? ColumnKind::kReal : ColumnKind::kText;
    case kBoolOid:
      return ColumnKind::kBoolean;
    default:
      return ColumnKind::kText;
  }
}

void ReadPostgresCell(const PGresult* result, int row, int column, ColumnKind kind, Value& cell) {
  if (PQgetisnull(result, row, column)) {
    cell = std::monostate{};
    return;
  }
  const std::string_view text(PQgetvalue(result, row, column),
                              static_cast<size_t>(PQgetlength(result, row, column)));
  switch (kind) {
    case ColumnKind::kInteger:
      if (int64_t number = 0; ParseWhole(text, number)) {
        cell = number;
        return;
      }
      break;
    case ColumnKind::kReal:
      if (double number = 0; ParseWhole(text, number)) {
        cell = number;
        return;
      }
      break;
    case ColumnKind::kBoolean:
      cell = static_cast<int64_t>(text == "t" ? 1 : 0);
      return;
    case ColumnKind::kText:
      break;
  }
  AssignText(cell, text);
}

std::string_view SqlStateOf(const PGresult* result) {
  const char* field = result != nullptr ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
  return field != nullptr ? field : "";
}

bool IsConnectionLost(const PGconn* conn, std::string_view sqlstate) {
  return PQstatus(conn) != CONNECTION_OK || sqlstate.empty() || sqlstate.starts_with("08") ||
         sqlstate == "57P01" || sqlstate == "57P02" || sqlstate == "57P03";
}

std::string OneLine(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\t') c = ' ';
  }
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

}  // namespace tessera::db
