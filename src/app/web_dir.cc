#include "app/web_dir.h"

#include <system_error>

#include "app/share_dir.h"

namespace tessera::app {

std::filesystem::path ExecutablePath() {
  std::error_code error;
  std::filesystem::path path = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? std::filesystem::path() : path;
}

std::string DefaultWebDir(const std::filesystem::path& executable) {
  return FindShareFolder(executable, {"web", "index.html"});
}

}  // namespace tessera::app
