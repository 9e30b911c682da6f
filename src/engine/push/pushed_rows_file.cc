#include "engine/push/pushed_rows_file.h"

#include <algorithm>
#include <cstring>
#include <system_error>

#include "core/error.h"
#include "core/ids.h"
#include "engine/checked_file.h"

namespace tessera::engine::push {
namespace {

constexpr char kMagic[kMagicBytes] = {'T', 'P', 'U', 'S', 'H', 'R', 'O', 'W'};
constexpr uint32_t kFormatVersion = 1;
constexpr char kDescription[] = "the pushed rows";

bool Fits(const Cell& cell, model::DataType type) {
  switch (type) {
    case model::DataType::kInteger:
    case model::DataType::kBoolean:
      return std::holds_alternative<int64_t>(cell);
    case model::DataType::kReal:
      return std::holds_alternative<double>(cell);
    case model::DataType::kText:
    case model::DataType::kDate:
    case model::DataType::kDateTime:
      return std::holds_alternative<std::string>(cell);
  }
  return false;
}

// Cells are encoded here, rows at a time, and handed to `out` in batches (AppendCellBytes).
constexpr size_t kBatchBytes = 64 * 1024;

void WriteTable(CheckedOutput& out, const PushTable& table, const PushedRows& rows) {
  out.String(table.name);
  out.U32(static_cast<uint32_t>(table.columns.size()));
  for (const auto& column : table.columns) out.String(column.name);
  out.U64(rows.size());
  std::string batch;
  batch.reserve(kBatchBytes + 4096);
  for (const auto& row : rows) {
    if (row.size() != table.columns.size()) {
      throw Error(ErrorCode::kInternal, "a row of table '" + table.name + "' has " +
                                            std::to_string(row.size()) + " cells, not " +
                                            std::to_string(table.columns.size()));
    }
    for (const auto& cell : row) AppendCellBytes(batch, cell);
    if (batch.size() >= kBatchBytes) {
      out.Bytes(batch.data(), batch.size());
      batch.clear();
    }
  }
  out.Bytes(batch.data(), batch.size());
}

// The rows of one stored table, mapped onto `table`'s columns (null for a missing column), or
// read and dropped when the model has no such table.
void ReadTable(CheckedInput& in, const PushModel& model, PushedTables& tables) {
  const std::string name = in.String();
  const uint32_t column_count = in.U32();
  in.CheckAvailable(column_count, sizeof(uint32_t), "the column list");
  const PushTable* table = model.FindTable(name);
  std::vector<int> target(column_count, -1);
  for (uint32_t c = 0; c < column_count; ++c) {
    const std::string column = in.String();
    if (table) target[c] = table->ColumnIndex(column);
  }
  const uint64_t row_count = in.U64();
  if (column_count == 0 && row_count > 0) in.Corrupt("rows without columns");
  in.CheckAvailable(row_count, static_cast<uint64_t>(column_count), "the row count");
  PushedRows rows;
  if (table) rows.reserve(row_count);
  for (uint64_t r = 0; r < row_count; ++r) {
    std::vector<Cell> row(table ? table->columns.size() : 0);
    for (uint32_t c = 0; c < column_count; ++c) {
      Cell cell = ReadCell(in);
      if (target[c] >= 0 && Fits(cell, table->columns[target[c]].type)) {
        row[target[c]] = std::move(cell);
      }
    }
    if (table) rows.push_back(std::move(row));
  }
  if (table) tables[name] = std::move(rows);
}

}  // namespace

void WritePushedRows(const PushModel& model, const PushedTables& tables,
                     const std::filesystem::path& path) {
  WriteFileAtomically(path, kDescription, [&](CheckedOutput& out) {
    out.Bytes(kMagic, sizeof kMagic);
    out.U32(kFormatVersion);
    uint32_t count = 0;
    for (const auto& table : model.tables) count += tables.count(table.name) ? 1 : 0;
    out.U32(count);
    for (const auto& table : model.tables) {
      auto rows = tables.find(table.name);
      if (rows != tables.end()) WriteTable(out, table, rows->second);
    }
  });
}

PushedTables ReadPushedRows(const PushModel& model, const std::filesystem::path& path) {
  if (!std::filesystem::exists(path)) return {};
  CheckedInput in(path, kDescription);
  char magic[kMagicBytes];
  in.Bytes(magic, sizeof magic);
  if (std::memcmp(magic, kMagic, sizeof kMagic) != 0) in.Corrupt("not a pushed rows file");
  const uint32_t version = in.U32();
  if (version != kFormatVersion) {
    in.Corrupt("format version " + std::to_string(version) + " is not " +
               std::to_string(kFormatVersion));
  }
  const uint32_t table_count = in.U32();
  in.CheckAvailable(table_count, sizeof(uint32_t), "the table list");
  PushedTables tables;
  for (uint32_t t = 0; t < table_count; ++t) ReadTable(in, model, tables);
  in.Finish();
  return tables;
}

StagedPushedRows::StagedPushedRows(const PushModel& model,
                                   std::shared_ptr<const PushedTables> tables,
                                   const std::filesystem::path& directory)
    : model_(model),
      tables_(std::move(tables)),
      staged_(directory / ("pushed-rows-" + NewTicketId() + ".staged")) {
  try {
    written_ = std::async(std::launch::async, [this] {
      std::filesystem::create_directories(staged_.parent_path());
      WritePushedRows(model_, *tables_, staged_);
    });
  } catch (const std::system_error&) {
    // No thread: Install writes the file itself.
  }
}

StagedPushedRows::~StagedPushedRows() {
  if (written_.valid()) written_.wait();
  if (is_installed_) return;
  std::error_code ignored;
  std::filesystem::remove(staged_, ignored);
}

void StagedPushedRows::Install(const std::filesystem::path& path) {
  bool is_staged = true;
  try {
    written_.get();
  } catch (const std::exception&) {
    is_staged = false;  // written again below, where a lasting fault is reported
  }
  std::error_code error;
  if (is_staged) std::filesystem::rename(staged_, path, error);
  if (!is_staged || error) {
    WritePushedRows(model_, *tables_, path);
  } else {
    SyncDirectory(path.parent_path());
  }
  is_installed_ = is_staged && !error;
}

}  // namespace tessera::engine::push
