#include "app/share_dir.h"

#include <system_error>

namespace tessera::app {

namespace {

bool IsPresent(const std::filesystem::path& directory, const ShareFolder& folder) {
  std::error_code error;
  return std::filesystem::is_regular_file(directory / folder.marker, error);
}

// The absolute directory of `executable`; empty when it cannot be told.
std::filesystem::path ExecutableDirectory(const std::filesystem::path& executable) {
  if (executable.empty()) return {};
  std::error_code error;
  std::filesystem::path absolute = std::filesystem::absolute(executable, error);
  return error ? std::filesystem::path() : absolute.lexically_normal().parent_path();
}

std::filesystem::path InstalledFolder(const std::filesystem::path& directory,
                                      const ShareFolder& folder) {
  return (directory / ".." / "share" / "tessera" / folder.relative).lexically_normal();
}

}  // namespace

std::string FindShareFolder(const std::filesystem::path& executable, const ShareFolder& folder) {
  const std::filesystem::path directory = ExecutableDirectory(executable);
  if (directory.empty()) return "";
  const std::filesystem::path installed = InstalledFolder(directory, folder);
  if (IsPresent(installed, folder)) return installed.string();
  for (std::filesystem::path ancestor = directory;; ancestor = ancestor.parent_path()) {
    if (IsPresent(ancestor / folder.relative, folder)) return (ancestor / folder.relative).string();
    if (ancestor == ancestor.parent_path()) break;
  }
  return "";
}

std::string DescribeShareFolderSearch(const std::filesystem::path& executable,
                                      const ShareFolder& folder) {
  const std::filesystem::path directory = ExecutableDirectory(executable);
  if (directory.empty()) return "nowhere (the executable's path is unknown)";
  return InstalledFolder(directory, folder).string() + ", then " + folder.relative + " in " +
         directory.string() + " and each folder above it";
}

}  // namespace tessera::app
