// engine/dataset_snapshot.h
//
// A Dataset on disk (a file under the node's cubes directory), so a restarted node serves a
// published cube without querying the warehouse again. Little-endian binary, written and read as a
// stream (never the whole file in memory):
//
//   "TSNAPSHT"                      magic, 8 bytes
//   u32 format version              kSnapshotFormatVersion
//   string platform                 SnapshotPlatform(): byte order, word and number formats
//   u64 rows
//   u32 attributes, each:           string id, string name, u8 hidden,
//                                   u32 forms, u64 elements, each form: string name, u8 data
//                                   type, one typed cell per element, u32 rank per element;
//                                   u8 code width, rows x width bytes of codes
//   u32 buffers, each:              u8 kind (0 doubles, 1 validity words), u64 length, raw data
//                                   (a buffer shared by several metric columns is written once)
//   u32 metrics, each:              string id, string name, u8 function, string format,
//                                   i32 values / valid / counts buffer (-1 = none),
//                                   i32 counted attribute (-1 = none)
//   u64 checksum                    of every byte before it
//
// where string = u32 length + bytes and cell = u8 tag (0 null, 1 integer, 2 real, 3 text) +
// i64 | f64 | string.
//
// Writing goes to a temporary file in the same directory, fsync'ed, then renamed over `path`
// (and the directory fsync'ed), so a crash leaves the previous snapshot or the new one, never
// half of one. Reading checks everything before trusting it -- magic, version, platform, every
// size against the bytes left, enum values, codes below their dictionary's size, dictionaries in
// ID order, ranks forming a permutation, buffer lengths, the checksum -- and throws
// Error(kInternal) saying what is wrong for a corrupt or truncated file, Error(kNotSupported) for
// one written by a newer format version, Error(kNotFound) when there is no file. I/O failures
// while writing are Error(kInternal); the temporary file is removed.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "engine/dataset.h"

namespace tessera::engine {

inline constexpr uint32_t kSnapshotFormatVersion = 1;

std::string SnapshotPlatform();

void WriteDatasetSnapshot(const Dataset& dataset, const std::filesystem::path& path);
std::shared_ptr<const Dataset> ReadDatasetSnapshot(const std::filesystem::path& path);

}  // namespace tessera::engine
