#include "http/spool_file.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>

#include <cerrno>
#include <filesystem>
#include <system_error>

#include "core/ids.h"

namespace tessera::http {

SpoolFile::~SpoolFile() {
  if (path_.empty()) return;
  std::error_code ignored;
  std::filesystem::remove(path_, ignored);
}

std::optional<NewSpoolFile> CreateSpoolFile(const std::string& spool_dir) {
  std::error_code ec;
  std::filesystem::path dir = spool_dir.empty() ? std::filesystem::temp_directory_path(ec)
                                                : std::filesystem::path(spool_dir);
  if (ec) {
    spdlog::error("Cannot find the temporary directory to spool a request body: {}", ec.message());
    return std::nullopt;
  }
  NewSpoolFile spool{(dir / ("tessera-body-" + NewTicketId() + ".tmp")).string(), {}};
  int fd = ::open(spool.path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    spdlog::error("Cannot create the spool file {}: {}", spool.path,
                  std::error_code(errno, std::generic_category()).message());
    return std::nullopt;
  }
  spool.file.native_handle(fd);
  return spool;
}

bool IsStorageError(const boost::beast::error_code& ec) {
  if (ec.category() != boost::system::system_category()) return false;
  int value = ec.value();
  return value == ENOSPC || value == EDQUOT || value == EFBIG || value == EIO;
}

}  // namespace tessera::http
