// service/migration/package_import.h
//
// Import of a package into its target: one storage transaction.
//
// Contract:
//   - The file is verified whole first (storage::package::VerifyPackage), then read twice inside
//   one Write
//     transaction: a plan pass classifies every object against the target (model::Classify),
//     resolves its rule (model::ActionResolver; implicit and predefined folders are use_existing)
//     and decides its outcome (model::Decide); an apply pass writes the outcomes in file order, so
//     folders exist before their contents; deletes come last, in reverse file order.
//   - Created and overwritten objects keep the source's id, version and dates. keep_both copies get
//     a new id, version and dates, a name made unique in their folder with " (n)", and package
//     objects that reference the copied object are re-pointed to the copy. A created object whose
//     name clashes with another object of its type in its folder gets the same suffix. Owner: the
//     source owner when that user exists in the target, else the importing user. ACLs: a created
//     object keeps the source's ACL or takes the inheritable entries of its destination folder
//     (aclOnNewObjects); an overwritten one keeps the target's, takes the source's, or the union of
//     both (aclOnReplacingObjects); source entries whose trustee the target lacks are dropped.
//     translationAction merges the translations of objects that exist on both sides; a kept object
//     whose translations change is saved (new version).
//   - A target folder that gains or loses children is saved (new version, modified now).
//   - The import fails -- the transaction rolls back, the target is unchanged, no undo file is
//     left -- when a delete hits an object that objects outside the package's deletes use, or a
//     folder that keeps other children; when an object written uses an id neither the package nor
//     the target has (object packages always, project merges when validateDependencies); when the
//     file is corrupt; or when `check_cancelled` throws. The Error's message says why.
//   - With `undo_path`, the undo package (storage kind undo) is written before the commit: a
//     restore entry with the exact pre-image of every target object the import changes or
//     deletes, a delete entry for every object it creates. `in_transaction` runs first inside the
//     transaction (the job's MarkDone), `before_commit` last (the migration record): both commit
//     with the import or not at all. A failed import removes the undo file it wrote.
//   - Memory does not grow with the package: what the import tracks per object -- its plan, the
//     content's actions, the ids it deletes, restores and writes, the names taken in the folders
//     it writes to -- is kept on disk in `scratch_dir` (storage::ScratchTable) and read back.
//   - `dry_run` (a validation): every step runs, then the transaction rolls back; the summary is
//     what the import would do, or the Error is why it would fail. Nothing is kept, no undo file is
//     written, and `before_commit` does not run.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "model/package/conflict_rules.h"
#include "storage/metadata_store.h"
#include "storage/package/manifest.h"
#include "storage/package/writer.h"

namespace tessera::service::migration {

struct PackageImportSummary {
  int64_t objects = 0;
  std::map<model::package::Outcome, int64_t> outcomes;
  // The same counts by the rule each object was decided with (folders the package only implies,
  // and predefined folders, count under use_existing).
  std::map<std::pair<model::package::ConflictRule, model::package::Outcome>, int64_t>
      outcomes_by_rule;
  std::optional<storage::package::PackageFileInfo> undo_file;
};

struct PackageImportOptions {
  std::filesystem::path package_path;
  std::string target_project_id;  // project packages; ignored for configuration packages
  std::string importing_user_id;
  std::string import_id;
  std::optional<std::filesystem::path> undo_path;  // none: no undo package
  storage::package::PackageManifest
      undo_manifest;  // kind, ids, platform and projects; count set here
  std::function<void(storage::MetadataTransaction&)> in_transaction;
  std::function<void(storage::MetadataTransaction&, const PackageImportSummary&)> before_commit;
  std::function<void()> check_cancelled;
  std::function<void(int percent)> on_progress;
  bool dry_run = false;
  // Where the import keeps what it tracks per object (storage::ScratchTable); empty: the system's
  // temporary directory.
  std::filesystem::path scratch_dir;
};

PackageImportSummary ImportPackage(storage::MetadataStore& store,
                                   const PackageImportOptions& options);

}  // namespace tessera::service::migration
