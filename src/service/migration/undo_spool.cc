#include "service/migration/undo_spool.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <limits>
#include <string>

#include "core/error.h"
#include "core/private_files.h"
#include "model/package/entry.h"
#include "storage/package/location.h"

namespace tessera::service::migration {

namespace {

std::filesystem::path SpoolPathOf(const std::filesystem::path& undo_path) {
  return undo_path.parent_path() / ("." + undo_path.filename().string() + ".spool");
}

}  // namespace

UndoSpool::UndoSpool(std::filesystem::path undo_path)
    : undo_path_(std::move(undo_path)), spool_path_(SpoolPathOf(undo_path_)) {
  std::error_code ignored;
  CreatePrivateDirectories(spool_path_.parent_path(), ignored);
  int fd = ::open(spool_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, kPrivateFileMode);
  if (fd >= 0) spool_ = ::fdopen(fd, "w");
  if (!spool_) {
    int open_errno = errno;
    if (fd >= 0) ::close(fd);
    storage::package::ThrowLocationUnavailable("open the undo spool " + spool_path_.string(),
                                               open_errno);
  }
}

UndoSpool::~UndoSpool() {
  CloseSpool();
  std::error_code ignored;
  std::filesystem::remove(spool_path_, ignored);
}

void UndoSpool::CloseSpool() {
  if (spool_) std::fclose(spool_);
  spool_ = nullptr;
}

void UndoSpool::RecordRestore(const model::ObjectRecord& pre_image) { Append(pre_image, true); }

void UndoSpool::RecordDelete(const model::ObjectRecord& created) { Append(created, false); }

void UndoSpool::Append(const model::ObjectRecord& record, bool restore) {
  model::package::PackageObject entry;
  entry.record = record;
  entry.undo_action =
      restore ? model::package::UndoAction::kRestore : model::package::UndoAction::kDelete;
  std::string line = record.id + '\t' + DumpJson(model::package::EntryToJson(entry)) + '\n';
  if (std::fwrite(line.data(), 1, line.size(), spool_) != line.size()) {
    storage::package::ThrowLocationUnavailable("write the undo spool " + spool_path_.string(),
                                               errno);
  }
  ++entries_;
}

storage::package::PackageFileInfo UndoSpool::WritePackage(
    storage::package::PackageManifest manifest) {
  if (std::fflush(spool_) != 0) {
    storage::package::ThrowLocationUnavailable("write the undo spool " + spool_path_.string(),
                                               errno);
  }
  CloseSpool();
  manifest.object_count = entries_;
  storage::package::PackageWriter writer(undo_path_, std::numeric_limits<int64_t>::max());
  writer.WriteManifest(manifest);
  std::ifstream spool(spool_path_);
  std::string line;
  while (std::getline(spool, line)) {
    size_t tab = line.find('\t');
    writer.AddObject(std::string_view(line).substr(0, tab), std::string_view(line).substr(tab + 1));
  }
  if (spool.bad())
    storage::package::ThrowLocationUnavailable("read the undo spool " + spool_path_.string(),
                                               errno);
  // Read to its end, the spool goes now: an import killed after its commit must leave nothing
  // that only a failed import's cleanup would remove.
  spool.close();
  std::error_code ignored;
  std::filesystem::remove(spool_path_, ignored);
  storage::package::PackageFileInfo info = writer.Commit();
  package_written_ = true;
  return info;
}

void UndoSpool::RemoveFiles(const std::filesystem::path& undo_path) noexcept {
  storage::package::RemoveFileQuietly(SpoolPathOf(undo_path));
  storage::package::RemovePackageFileQuietly(undo_path);
}

void UndoSpool::Discard() {
  CloseSpool();
  std::error_code ignored;
  std::filesystem::remove(spool_path_, ignored);
  if (package_written_) std::filesystem::remove(undo_path_, ignored);
}

}  // namespace tessera::service::migration
