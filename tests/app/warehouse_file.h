// tests/app/warehouse_file.h
//
// The SQLite warehouse file of a data directory, read and changed by CLI tests directly, so that
// what a command reports is checked against SQLite itself rather than against Tessera.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace tessera::testing {

// The rows the query `sql` returns on the SQLite database at `path` (a failed test when it does
// not run).
int64_t CountRows(const std::filesystem::path& path, const std::string& sql);

// Runs `statements` on the SQLite database at `path`.
void ExecuteSql(const std::filesystem::path& path, const std::string& statements);

// The names of the database's tables that are not lookups ("lu_..."): the fact tables.
std::vector<std::string> FactTables(const std::filesystem::path& path);

}  // namespace tessera::testing
