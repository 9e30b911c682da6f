// model/package/conflict_rules.h
//
// What happens to one package object in the target. Classify() compares the package object with the
// target object of the same id and yields a ConflictClass; Decide() turns the resolved ConflictRule
// (model/package/action_resolver.h), that class and "is the source newer" into an Outcome. Both are
// pure: nothing here reads storage or writes anything.
//
// Decide() is this table and nothing else (classes absent / identical / identical except path /
// different):
//   use_existing   create / keep / keep / keep
//   replace        create / keep / move / overwrite
//   keep_both      create / keep / keep / copy as new
//   use_newer      replace when the source is newer, else use_existing
//   use_older      replace when the source is not newer, else use_existing
//   force_replace  create / overwrite / overwrite / overwrite
//   delete         noop / delete / delete / delete
// A user identical except its Distribution Services addresses follows the "identical except path"
// column with "take the source addresses" in place of "move", except that force_replace overwrites
// (it overwrites every identical object).
//
// Rule names are the REST spellings (use_existing, replace, keep_both, use_newer, use_older,
// force_replace, delete); Object Manager's `merge` and `do_not_move` are not REST values and are
// rejected like any other unknown text.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/time.h"
#include "model/object.h"

namespace tessera::model::package {

enum class ConflictRule {
  kUseExisting,
  kReplace,
  kKeepBoth,
  kUseNewer,
  kUseOlder,
  kForceReplace,
  kDelete,
};

// Throws Error(kInvalidInput) "<field_path>: '<value>' is not a conflict rule; expected one of
// use_existing, replace, ..." for anything but the seven REST names (case-sensitive).
ConflictRule ParseConflictRule(std::string_view value, std::string_view field_path);
std::string_view ConflictRuleName(ConflictRule rule);

// How the target object of the same id compares with the package object. "Path" is the chain of
// ancestor folder ids, nearest first.
enum class ConflictClass {
  kAbsent,                               // no target object has the id
  kIdentical,                            // same version, same path
  kIdenticalExceptPath,                  // same version, other path
  kIdenticalExceptDistributionServices,  // users: same version, other addresses
  kDifferent,                            // other version (whatever the path)
};

std::string_view ConflictClassName(ConflictClass conflict_class);  // "absent", "identical", ...

// What the import does with one package object. Minimal: two table cells that end in the same
// state share an outcome ("keep" and "ignore source"; "overwrite" and "overwrite + move", since
// an overwrite always places the object in the source's parent folder).
enum class Outcome {
  kCreate,         // write the source object under its own id (no target object exists)
  kKeep,           // the target object stays as it is; the source object is not written
  kMove,           // the target object moves to the source's parent folder; nothing else changes
  kTakeAddresses,  // the target user takes the source's Distribution Services addresses
  kOverwrite,      // the target object becomes the source object (definition, version, dates,
                   // parent folder), ACL and owner per the package's ACL options
  kCopyAsNew,      // write the source object under a new id; the target object is untouched
  kDelete,         // delete the target object; the source object is not written
  kNoop,           // nothing exists and nothing is written (delete of an absent object)
};

// The table above. `source_is_newer` matters only for use_newer and use_older.
Outcome Decide(ConflictRule rule, ConflictClass conflict_class, bool source_is_newer);

// "Newer" = later dateModified; equal times are not newer.
bool IsSourceNewer(Timestamp source_modified, Timestamp target_modified);

// The class of `source` (as recorded in the package) against `target` (nullptr when the target has
// no object with the id): absent, then different when the versions differ, then identical or
// identical except path by the ancestor folder ids. Versions and folder ids compare
// case-insensitively. Distribution Services addresses (definition["addresses"]; absent = null = [])
// are not part of the version, so a user (34/8704 on both sides) with the same version and other
// addresses is kIdenticalExceptDistributionServices whatever its path (the addresses are the
// difference that matters for a user, which lives in no project folder).
ConflictClass Classify(const ObjectRecord* target,
                       const std::vector<std::string>& target_ancestor_ids,
                       const ObjectRecord& source,
                       const std::vector<std::string>& source_ancestor_ids);

}  // namespace tessera::model::package
