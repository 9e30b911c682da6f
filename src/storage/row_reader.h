// storage/row_reader.h
//
// Reads a result row into a record cell after cell, in the order of the SELECT's column list, so
// each table's mapping names its columns once, in one place: a column-list constant and, beside
// it, the function that reads a row of exactly those columns.
//
//   constexpr std::string_view kJobColumns =
//       "id, kind, state, lease_owner, lease_expires_ms, data_json, created_ms, updated_ms";
//   JobRecord JobFromRow(const SqlRow& row) {
//     RowReader cells(row);
//     JobRecord job;
//     cells.Read(job.id, job.kind, job.state, job.lease_owner, job.lease_expires);
//     job.data = cells.JsonText("jobs.data_json");
//     cells.Read(job.created, job.updated);
//     return job;
//   }
//
// Contract:
// - Read converts each cell by the type of the field it fills, as AsInt and AsText do
//   (storage/sql_connection.h): std::string from text; int and int64_t from integers; bool from
//   0/1; Timestamp from unix milliseconds. A null reads as 0 or "", a cell of another type throws
//   SqlError(kOther). JsonText parses a JSON text cell as AsJson does.
// - Reading past the row's last cell throws SqlError(kOther): a column list and its mapping that
//   disagree are a bug, found by the first query that runs them.
// - A reader borrows its row and must not outlive it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "core/time.h"
#include "storage/sql_connection.h"

namespace tessera::storage {

class RowReader {
 public:
  explicit RowReader(const SqlRow& row) : row_(row) {}

  // Fills `fields` from the next cells, one cell each, in order.
  template <typename... Fields>
  void Read(Fields&... fields) {
    (ReadInto(fields), ...);
  }
  Json JsonText(std::string_view column);  // `column` names the cell in the error

 private:
  void ReadInto(std::string& field);
  void ReadInto(int& field);
  void ReadInto(int64_t& field);
  void ReadInto(bool& field);
  void ReadInto(Timestamp& field);
  const SqlValue& Next();

  const SqlRow& row_;
  size_t next_ = 0;
};

// Every row read by `from_row`, in the rows' order.
template <typename FromRow>
auto ReadRows(const std::vector<SqlRow>& rows, FromRow from_row) {
  std::vector<decltype(from_row(rows.front()))> records;
  records.reserve(rows.size());
  for (const auto& row : rows) records.push_back(from_row(row));
  return records;
}

// The first row read by `from_row`; nullopt when there is no row.
template <typename FromRow>
auto ReadFirstRow(const std::vector<SqlRow>& rows, FromRow from_row)
    -> std::optional<decltype(from_row(rows.front()))> {
  if (rows.empty()) return std::nullopt;
  return from_row(rows.front());
}

}  // namespace tessera::storage
