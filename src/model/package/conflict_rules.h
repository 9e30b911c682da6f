// model/package/conflict_rules.h
//
// What happens to one package object in the target (spec 04 §4.1, §4.2). Classify() compares
// the package object with the target object of the same id and yields a ConflictClass; Decide()
// turns the resolved ConflictRule (model/package/action_resolver.h), that class and "is the source
// newer" into an Outcome. Both are pure: nothing here reads storage or writes anything.
//
// Decide() is the §4.2 table and nothing else. The table has no column for "identical except
// Distribution Services objects"; that class follows its "identical except path" column with
// "take the source addresses" in place of "move" (spec: "the target takes the source path /
// addresses"), except that force_replace overwrites (it overwrites every identical object).
//
// Rule names are the REST spellings (use_existing, replace, keep_both, use_newer, use_older,
// force_replace, delete); Object Manager's `merge` and `do_not_move` are not REST values and are
// rejected like any other unknown text (§4.2).
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

// spec 04 §4.1. "Path" is the chain of ancestor folder ids, nearest first.
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
// an overwrite always places the object in the source's parent folder, §4.2).
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

std::string_view OutcomeName(Outcome outcome);  // "create", "keep", "move", ...

// spec 04 §4.2. `source_is_newer` matters only for use_newer and use_older.
Outcome Decide(ConflictRule rule, ConflictClass conflict_class, bool source_is_newer);

// "Newer" = later dateModified; equal times are not newer (spec 04 §4.1).
bool IsSourceNewer(Timestamp source_modified, Timestamp target_modified);

// spec 04 §4.1 for `source` (as recorded in the package) against `target` (nullptr when the
// target has no object with the id). Versions and folder ids compare case-insensitively.
// Distribution Services addresses (definition["addresses"]; absent = null = []) are not part
// of the version, so a user (34/8704 on both sides) with the same version and other addresses
// is kIdenticalExceptDistributionServices whatever its path (the addresses are the difference
// that matters for a user, which lives in no project folder).
ConflictClass Classify(const ObjectRecord* target,
                       const std::vector<std::string>& target_ancestor_ids,
                       const ObjectRecord& source,
                       const std::vector<std::string>& source_ancestor_ids);

}  // namespace tessera::model::package
