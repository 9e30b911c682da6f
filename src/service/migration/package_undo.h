// service/migration/package_undo.h
//
// Undo of an import: the undo package written by service/migration/package_import.h applied in one
// storage transaction.
//
// Contract:
//   - The file is verified whole first (storage::package::VerifyPackage); then, in one Write
//   transaction,
//     every restore entry puts its object back exactly as it was before the import (id, version,
//     dates, owner, folder, ACL, definition; its dependencies derived again), overwriting changes
//     made since the import; then every object the import created is deleted, in reverse order.
//   - The undo fails -- rollback, the target unchanged -- when an object to delete is now used by
//     objects the undo does not delete, or is a folder holding other objects; the Error's message
//     names them. `in_transaction` runs first in the transaction, `before_commit` last.
//   - Memory does not grow with the undo package: the objects to delete wait on disk in
//     `scratch_dir` (storage::ScratchTable).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "storage/metadata_store.h"

namespace tessera::service::migration {

struct UndoSummary {
  int64_t restored = 0;
  int64_t deleted = 0;
};

struct UndoOptions {
  std::filesystem::path undo_path;
  std::string target_project_id;  // "" for configuration packages
  std::function<void(storage::MetadataTransaction&)> in_transaction;
  std::function<void(storage::MetadataTransaction&, const UndoSummary&)> before_commit;
  std::function<void()> check_cancelled;
  std::function<void(int percent)> on_progress;
  std::filesystem::path scratch_dir;  // empty: the system's temporary directory
};

UndoSummary ApplyUndo(storage::MetadataStore& store, const UndoOptions& options);

}  // namespace tessera::service::migration
