#include "app/web_dir.h"

#include <system_error>

namespace tessera::app {

namespace {

bool HoldsIndex(const std::filesystem::path& web_dir) {
  std::error_code error;
  return std::filesystem::is_regular_file(web_dir / "index.html", error);
}

}  // namespace

std::filesystem::path ExecutablePath() {
  std::error_code error;
  std::filesystem::path path = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? std::filesystem::path() : path;
}

std::string DefaultWebDir(const std::filesystem::path& executable) {
  if (executable.empty()) return "";
  std::error_code error;
  std::filesystem::path directory = std::filesystem::absolute(executable, error).parent_path();
  if (error) return "";
  std::filesystem::path installed =
      (directory / ".." / "share" / "tessera" / "web").lexically_normal();
  if (HoldsIndex(installed)) return installed.string();
  for (std::filesystem::path ancestor = directory;; ancestor = ancestor.parent_path()) {
    if (HoldsIndex(ancestor / "web")) return (ancestor / "web").string();
    if (ancestor == ancestor.parent_path()) break;
  }
  return "";
}

}  // namespace tessera::app
