// app/data_directory.h
//
// The data directory (`data_dir`) and who may create it. The server and the commands that write
// projects create it when it is missing, and say that they did; a command that only reads (such
// as `tessera sql`) never creates an empty one: a mistyped or forgotten --data-dir is an error
// that says where it looked.
//
// Contract:
//   - CreateDataDirectory() creates the directory (mode 0700) and its missing parents when it does
//     not exist and returns true, so the caller can say so (the server in its log, a command on
//     stderr); an existing one is left as it is and gives false. Filesystem failures throw
//     std::filesystem::filesystem_error.
//   - RequireExistingData() throws std::invalid_argument unless the storage service the
//     configuration names already exists: with the default storage (metadata.db in the data
//     directory), "no data directory at PATH; pass --data-dir or run `tessera serve` or
//     `tessera demo` first", or, for a directory without metadata.db, "no Tessera data in PATH
//     (it holds no metadata.db); ..."; for a configured sqlite:/// storage URL, its file must
//     exist. PostgreSQL storage is not checked here: opening it says whether it answers.
//     PATH is absolute.
#pragma once

#include "app/config.h"

namespace tessera::app {

bool CreateDataDirectory(const Config& config);

// The data directory as an absolute path, for messages.
std::string DataDirectoryPath(const Config& config);

void RequireExistingData(const Config& config);

}  // namespace tessera::app
