#include "core/private_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <mutex>

namespace tessera {

void CreatePrivateDirectories(const std::filesystem::path& path, std::error_code& error) {
  error.clear();
  if (path.empty()) return;
  std::filesystem::path prefix;
  for (const auto& part : path) {
    prefix /= part;
    if (::mkdir(prefix.c_str(), kPrivateDirectoryMode) == 0 || errno == EEXIST) continue;
    error = std::error_code(errno, std::generic_category());
    return;
  }
  if (!std::filesystem::is_directory(path, error) && !error) {
    error = std::make_error_code(std::errc::not_a_directory);
  }
}

void CreatePrivateDirectories(const std::filesystem::path& path) {
  std::error_code error;
  CreatePrivateDirectories(path, error);
  if (error) {
    throw std::filesystem::filesystem_error("cannot create the directory", path, error);
  }
}

void RestrictNewFilesToOwner() { ::umask(077); }

bool CreatePrivateFile(const std::filesystem::path& path) {
  static std::mutex creating;
  std::lock_guard lock(creating);
  struct stat existing {};
  if (::stat(path.c_str(), &existing) == 0) return true;
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, kPrivateFileMode);
  if (fd < 0) return errno == EEXIST;  // created by another process meanwhile
  ::close(fd);
  return true;
}

}  // namespace tessera
