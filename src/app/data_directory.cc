#include "app/data_directory.h"

#include <filesystem>
#include <stdexcept>

#include "core/private_files.h"
#include "storage/store_url.h"

namespace tessera::app {

namespace {

constexpr const char* kHowToStart =
    "; pass --data-dir or run `tessera serve` or `tessera demo` first";

std::string AbsolutePath(const std::filesystem::path& path) {
  return std::filesystem::absolute(path).lexically_normal().string();
}

void RequireExistingDataDirectory(const Config& config) {
  const std::filesystem::path directory = config.data_dir;
  if (!std::filesystem::is_directory(directory)) {
    throw std::invalid_argument("no data directory at " + AbsolutePath(directory) + kHowToStart);
  }
  if (!std::filesystem::exists(directory / "metadata.db")) {
    throw std::invalid_argument("no Tessera data in " + AbsolutePath(directory) +
                                " (it holds no metadata.db)" + kHowToStart);
  }
}

void RequireExistingSqliteStorage(const std::string& url, const std::string& path) {
  if (std::filesystem::exists(path)) return;
  throw std::invalid_argument("no storage database at " + AbsolutePath(path) + " (storage.url " +
                              url + "); pass the --storage-url of an existing one");
}

}  // namespace

bool CreateDataDirectory(const Config& config) {
  if (std::filesystem::is_directory(config.data_dir)) return false;
  CreatePrivateDirectories(config.data_dir);
  return true;
}

std::string DataDirectoryPath(const Config& config) { return AbsolutePath(config.data_dir); }

void RequireExistingData(const Config& config) {
  if (config.storage_url.empty()) return RequireExistingDataDirectory(config);
  auto url = storage::ParseStoreUrl(config.storage_url);
  if (url && url->backend == storage::Backend::kSqlite) {
    RequireExistingSqliteStorage(config.storage_url, url->target);
  }
}

}  // namespace tessera::app
