// engine/push/pushed_rows_file.h
//
// The rows of a pushed dataset's tables on disk: what the add, update and upsert policies of the
// next publish merge into, and what a refresh rebuilds the dataset from. The published Dataset
// cannot give them back (it is the union of the tables, with attributes filled through), so they
// are kept beside its snapshot.
//
// Little-endian binary: "TPUSHROW", u32 version, u32 tables, each: string name, u32 columns, each
// a string column name, u64 rows, then rows x columns cells; u64 checksum of every byte before it.
// string = u32 length + bytes; cell = u8 tag (0 null, 1 integer, 2 real, 3 text) + i64|f64|string.
//
// WritePushedRows writes a temporary file in the same directory and renames it over `path`, so a
// reader sees the old rows or the new ones, never a mix; I/O failures are Error(kInternal).
// ReadPushedRows gives the rows of each table of `model`, matched by table name and within a
// table by column name, so rows written under an earlier model read under a later one: a column
// the file lacks is null, a table the file lacks has no rows, a column or table the model lacks
// is dropped. A cell whose type does not fit its column under the model (a column's type changed)
// is null. No file is no rows; a corrupt or truncated file is Error(kInternal) saying so.
#pragma once

#include <filesystem>
#include <future>
#include <map>
#include <memory>
#include <string>

#include "engine/push/push_model.h"
#include "engine/push/pushed_table.h"

namespace tessera::engine::push {

using PushedTables = std::map<std::string, PushedRows>;  // by table name

void WritePushedRows(const PushModel& model, const PushedTables& tables,
                     const std::filesystem::path& path);

PushedTables ReadPushedRows(const PushModel& model, const std::filesystem::path& path);

// A rows file written on a thread of its own while the caller does something else (a publish
// builds its dataset): the constructor starts writing `tables` to a new file in `directory`
// (made when missing);
// Install(path) waits for it and renames it to `path`, fsyncing the directory. Where staging
// failed or the rename cannot be done (another file system), Install writes `path` with
// WritePushedRows, whose errors are then thrown. The destructor waits for the writing and
// removes a file never installed. `tables` must not change until Install returns or the object
// is gone.
class StagedPushedRows {
 public:
  StagedPushedRows(const PushModel& model, std::shared_ptr<const PushedTables> tables,
                   const std::filesystem::path& directory);
  ~StagedPushedRows();
  StagedPushedRows(const StagedPushedRows&) = delete;
  StagedPushedRows& operator=(const StagedPushedRows&) = delete;

  void Install(const std::filesystem::path& path);

 private:
  PushModel model_;
  std::shared_ptr<const PushedTables> tables_;
  std::filesystem::path staged_;
  std::future<void> written_;
  bool is_installed_ = false;
};

}  // namespace tessera::engine::push
