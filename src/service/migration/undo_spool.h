// service/migration/undo_spool.h
//
// The undo entries of one import, collected while the import runs and written as an undo package
// (storage kind undo) once the import knows how many there are -- a package's manifest announces
// its object count before its objects.
//
// Contract:
//   - Entries wait in a spool file next to the undo package (one JSON entry per line), so memory
//     does not grow with the import. RecordRestore keeps an object's exact pre-import record
//     (undo action force_replace), RecordDelete an object the import created (undo deletes it).
//   - WritePackage writes the undo package at `undo_path` (atomically,
//   storage::package::PackageWriter)
//     with the entries in recording order and returns its size and checksum. The spool is gone
//     by the time it returns: what the import commits next leaves no spool behind, even if the
//     process is killed before the UndoSpool is destroyed.
//   - Discard(), and the destructor, remove the spool; Discard() also removes the undo package if
//     WritePackage wrote it (the import failed after all). RemoveFiles() removes what a spool of
//     `undo_path` may have left when its process was killed: the spool, the undo package and
//     its temporary file.
//   - I/O failures throw Error(kServiceUnavailable) with the storage location's message.
#pragma once

#include <cstdio>
#include <filesystem>

#include "model/object.h"
#include "storage/package/manifest.h"
#include "storage/package/writer.h"

namespace tessera::service::migration {

class UndoSpool {
 public:
  explicit UndoSpool(std::filesystem::path undo_path);
  ~UndoSpool();
  UndoSpool(const UndoSpool&) = delete;
  UndoSpool& operator=(const UndoSpool&) = delete;

  void RecordRestore(const model::ObjectRecord& pre_image);
  void RecordDelete(const model::ObjectRecord& created);

  storage::package::PackageFileInfo WritePackage(storage::package::PackageManifest manifest);
  void Discard();

  static void RemoveFiles(const std::filesystem::path& undo_path) noexcept;

 private:
  void Append(const model::ObjectRecord& record, bool restore);
  void CloseSpool();

  std::filesystem::path undo_path_;
  std::filesystem::path spool_path_;
  std::FILE* spool_ = nullptr;
  int64_t entries_ = 0;
  bool package_written_ = false;
};

}  // namespace tessera::service::migration
