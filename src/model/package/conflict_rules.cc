#include "model/package/conflict_rules.h"

#include <array>
#include <string>

#include "core/error.h"
#include "core/strings.h"
#include "model/object_types.h"

namespace tessera::model::package {

namespace {

constexpr std::array<ConflictRule, 7> kAllRules = {
    ConflictRule::kUseExisting, ConflictRule::kReplace,  ConflictRule::kKeepBoth,
    ConflictRule::kUseNewer,    ConflictRule::kUseOlder, ConflictRule::kForceReplace,
    ConflictRule::kDelete};

std::string AcceptedRuleNames() {
  std::string names;
  for (ConflictRule rule : kAllRules) {
    if (!names.empty()) names += ", ";
    names += ConflictRuleName(rule);
  }
  return names;
}

// What replace does to each class.
Outcome ReplaceOutcome(ConflictClass conflict_class) {
  switch (conflict_class) {
    case ConflictClass::kAbsent:
      return Outcome::kCreate;
    case ConflictClass::kIdentical:
      return Outcome::kKeep;  // "keep (no-op)"
    case ConflictClass::kIdenticalExceptPath:
      return Outcome::kMove;
    case ConflictClass::kIdenticalExceptDistributionServices:
      return Outcome::kTakeAddresses;
    case ConflictClass::kDifferent:
      return Outcome::kOverwrite;
  }
  return Outcome::kKeep;
}

// use_newer and use_older pick between use_existing (keep) and replace; an absent object is
// created by both, and replace keeps an identical object anyway.
Outcome KeepOrReplace(ConflictClass conflict_class, bool replaces) {
  if (conflict_class == ConflictClass::kAbsent) return Outcome::kCreate;
  return replaces ? ReplaceOutcome(conflict_class) : Outcome::kKeep;
}

bool SameIds(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!EqualsIgnoreCase(a[i], b[i])) return false;
  }
  return true;
}

bool IsUser(const ObjectRecord& record) {
  return record.type == kTypeUser && record.subtype == kSubtypeUser;
}

Json AddressesOf(const ObjectRecord& record) {
  if (!record.definition.is_object()) return Json::array();
  auto it = record.definition.find("addresses");
  if (it == record.definition.end() || it->is_null()) return Json::array();
  return *it;
}

}  // namespace

ConflictRule ParseConflictRule(std::string_view value, std::string_view field_path) {
  for (ConflictRule rule : kAllRules) {
    if (value == ConflictRuleName(rule)) return rule;
  }
  throw Error(ErrorCode::kInvalidInput, std::string(field_path) + ": '" + std::string(value) +
                                            "' is not a conflict rule; expected one of " +
                                            AcceptedRuleNames());
}

std::string_view ConflictRuleName(ConflictRule rule) {
  switch (rule) {
    case ConflictRule::kUseExisting:
      return "use_existing";
    case ConflictRule::kReplace:
      return "replace";
    case ConflictRule::kKeepBoth:
      return "keep_both";
    case ConflictRule::kUseNewer:
      return "use_newer";
    case ConflictRule::kUseOlder:
      return "use_older";
    case ConflictRule::kForceReplace:
      return "force_replace";
    case ConflictRule::kDelete:
      return "delete";
  }
  return "use_existing";
}

std::string_view ConflictClassName(ConflictClass conflict_class) {
  switch (conflict_class) {
    case ConflictClass::kAbsent:
      return "absent";
    case ConflictClass::kIdentical:
      return "identical";
    case ConflictClass::kIdenticalExceptPath:
      return "identical_except_path";
    case ConflictClass::kIdenticalExceptDistributionServices:
      return "identical_except_distribution_services";
    case ConflictClass::kDifferent:
      return "different";
  }
  return "absent";
}

Outcome Decide(ConflictRule rule, ConflictClass conflict_class, bool source_is_newer) {
  const bool is_absent = conflict_class == ConflictClass::kAbsent;
  switch (rule) {
    case ConflictRule::kUseExisting:
      return is_absent ? Outcome::kCreate : Outcome::kKeep;
    case ConflictRule::kReplace:
      return ReplaceOutcome(conflict_class);
    case ConflictRule::kKeepBoth:
      // "create with source id" / "ignore source" for every identical class / "new object".
      if (is_absent) return Outcome::kCreate;
      return conflict_class == ConflictClass::kDifferent ? Outcome::kCopyAsNew : Outcome::kKeep;
    case ConflictRule::kUseNewer:
      return KeepOrReplace(conflict_class, source_is_newer);
    case ConflictRule::kUseOlder:
      return KeepOrReplace(conflict_class, !source_is_newer);
    case ConflictRule::kForceReplace:
      return is_absent ? Outcome::kCreate : Outcome::kOverwrite;
    case ConflictRule::kDelete:
      return is_absent ? Outcome::kNoop : Outcome::kDelete;
  }
  return Outcome::kKeep;
}

bool IsSourceNewer(Timestamp source_modified, Timestamp target_modified) {
  return source_modified > target_modified;
}

ConflictClass Classify(const ObjectRecord* target,
                       const std::vector<std::string>& target_ancestor_ids,
                       const ObjectRecord& source,
                       const std::vector<std::string>& source_ancestor_ids) {
  if (target == nullptr) return ConflictClass::kAbsent;
  if (!EqualsIgnoreCase(target->version, source.version)) return ConflictClass::kDifferent;
  // Key order inside an address carries no meaning: compare as unordered JSON.
  if (IsUser(*target) && IsUser(source) &&
      nlohmann::json(AddressesOf(*target)) != nlohmann::json(AddressesOf(source))) {
    return ConflictClass::kIdenticalExceptDistributionServices;
  }
  return SameIds(target_ancestor_ids, source_ancestor_ids) ? ConflictClass::kIdentical
                                                           : ConflictClass::kIdenticalExceptPath;
}

}  // namespace tessera::model::package
