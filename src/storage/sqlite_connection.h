// storage/sqlite_connection.h
//
// SqlConnection over one sqlite3 handle: WAL journal, a busy timeout for lock waits, write
// transactions that take the write lock up front (BEGIN IMMEDIATE) so concurrent writers wait
// instead of failing on lock upgrade. The database file is created when missing; its directory
// must exist. Each SQL text is prepared once per connection and kept (up to a few hundred texts)
// for its next run. Errors that mean the file cannot be used (CANTOPEN, IOERR, NOTADB, CORRUPT,
// FULL, ...) are kConnectionLost and leave the connection unhealthy.
//
// Dataset upload chunks, megabytes each, live in a database file of their own beside the main one
// (ChunkDatabasePath), attached to every connection as schema `chunks`: it has 64 KiB pages,
// where the main file keeps SQLite's 4 KiB, so storing a chunk writes and checkpoints a few hundred
// pages rather than thousands. A write transaction holds both files' write locks; its commit is
// atomic in each file but not across the two (SQLite's rule for attached databases in WAL mode),
// which the storage service allows for (storage/metadata_store.h, upload sessions).
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "storage/sql_connection.h"
#include "storage/wal_checkpointer.h"

namespace tessera::storage {

// "<path>-chunks", or `path` itself for an in-memory database ("" or ":memory:").
std::string ChunkDatabasePath(const std::string& path);

// Throws SqlError(kConnectionLost) when the file cannot be opened as a database, or when another
// connection keeps a new file from being switched to WAL for longer than `busy_timeout`. With a
// `checkpointer`, which must outlive the connection, the connection's commits leave the
// checkpoints of the write-ahead log to it (storage/wal_checkpointer.h).
std::unique_ptr<SqlConnection> OpenSqliteConnection(const std::string& path,
                                                    std::chrono::milliseconds busy_timeout,
                                                    WalCheckpointer* checkpointer = nullptr);

}  // namespace tessera::storage
