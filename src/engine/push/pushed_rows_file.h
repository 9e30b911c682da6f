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
#include <map>
#include <string>

#include "engine/push/push_model.h"
#include "engine/push/pushed_table.h"

namespace tessera::engine::push {

using PushedTables = std::map<std::string, PushedRows>;  // by table name

void WritePushedRows(const PushModel& model, const PushedTables& tables,
                     const std::filesystem::path& path);

PushedTables ReadPushedRows(const PushModel& model, const std::filesystem::path& path);

}  // namespace tessera::engine::push
