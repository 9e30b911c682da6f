// core/private_files.h
//
// What the node keeps in its data directory -- the storage and warehouse databases, cube
// snapshots, scratch tables, spooled uploads -- and the packages it writes are readable by the
// server's own user only: directories it creates are 0700 and files 0600.
//
//   - kPrivateFileMode and kPrivateDirectoryMode are the modes to pass where a file or directory
//     is created (open(2), mkdir(2)).
//   - CreatePrivateDirectories() creates the missing directories of `path`, each 0700 (what
//     exists already keeps its mode); the error_code form reports failures instead of throwing
//     std::filesystem::filesystem_error.
//   - RestrictNewFilesToOwner() sets the process's umask to 077, so files that libraries create
//     (SQLite's databases and journals, streams) get the same modes; `tessera` calls it first.
//   - CreatePrivateFile() creates an empty file 0600 unless it exists, and closes it: for a file a
//     library opens next (a SQLite database), whatever the umask. A file that exists is not
//     opened at all: closing a descriptor of a file drops every POSIX lock the process holds on
//     it, such as the locks of SQLite connections already open on the database. Calls are
//     serialised, so a connection opened after one call returned is never opened in between.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <system_error>

namespace tessera {

inline constexpr mode_t kPrivateFileMode = 0600;
inline constexpr mode_t kPrivateDirectoryMode = 0700;

void CreatePrivateDirectories(const std::filesystem::path& path, std::error_code& error);
void CreatePrivateDirectories(const std::filesystem::path& path);

void RestrictNewFilesToOwner();

// False with errno set when the file cannot be created.
bool CreatePrivateFile(const std::filesystem::path& path);

}  // namespace tessera
