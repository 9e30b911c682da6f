#include "model/package/conflict_rules.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "core/error.h"
#include "model/object_types.h"

namespace tessera::model::package {
namespace {

using ::testing::HasSubstr;

using C = package::ConflictClass;
using O = Outcome;

const Timestamp kTargetModified = FromUnixMillis(1'700'000'000'000);
const Timestamp kLater = kTargetModified + std::chrono::minutes(5);
const Timestamp kEarlier = kTargetModified - std::chrono::minutes(5);

// One cell of the conflict table (model/package/conflict_rules.h) for one class: the outcome when
// the source was modified after, before and at the same time as the target.
struct Cell {
  package::ConflictClass conflict_class;
  Outcome source_newer;
  Outcome source_older;
  Outcome same_time;
};

void ExpectRule(package::ConflictRule rule, const std::vector<Cell>& cells) {
  ASSERT_EQ(cells.size(), 5u) << "every class is stated";
  for (const Cell& cell : cells) {
    SCOPED_TRACE(std::string(package::ConflictRuleName(rule)) + " on " +
                 std::string(package::ConflictClassName(cell.conflict_class)));
    EXPECT_EQ(Decide(rule, cell.conflict_class, package::IsSourceNewer(kLater, kTargetModified)),
              cell.source_newer);
    EXPECT_EQ(Decide(rule, cell.conflict_class, package::IsSourceNewer(kEarlier, kTargetModified)),
              cell.source_older);
    EXPECT_EQ(
        Decide(rule, cell.conflict_class, package::IsSourceNewer(kTargetModified, kTargetModified)),
        cell.same_time);
  }
}

TEST(Decide, UseExistingCreatesWhatIsMissingAndKeepsEverythingElse) {
  ExpectRule(package::ConflictRule::kUseExisting,
             {{C::kAbsent, O::kCreate, O::kCreate, O::kCreate},
              {C::kIdentical, O::kKeep, O::kKeep, O::kKeep},
              {C::kIdenticalExceptPath, O::kKeep, O::kKeep, O::kKeep},
              {C::kIdenticalExceptDistributionServices, O::kKeep, O::kKeep, O::kKeep},
              {C::kDifferent, O::kKeep, O::kKeep, O::kKeep}});
}

TEST(Decide, ReplaceMovesTakesAddressesOrOverwritesButLeavesIdenticalObjects) {
  ExpectRule(package::ConflictRule::kReplace,
             {{C::kAbsent, O::kCreate, O::kCreate, O::kCreate},
              {C::kIdentical, O::kKeep, O::kKeep, O::kKeep},
              {C::kIdenticalExceptPath, O::kMove, O::kMove, O::kMove},
              {C::kIdenticalExceptDistributionServices, O::kTakeAddresses, O::kTakeAddresses,
               O::kTakeAddresses},
              {C::kDifferent, O::kOverwrite, O::kOverwrite, O::kOverwrite}});
}

TEST(Decide, KeepBothIgnoresIdenticalObjectsAndCopiesDifferentOnesAsNew) {
  ExpectRule(package::ConflictRule::kKeepBoth,
             {{C::kAbsent, O::kCreate, O::kCreate, O::kCreate},
              {C::kIdentical, O::kKeep, O::kKeep, O::kKeep},
              {C::kIdenticalExceptPath, O::kKeep, O::kKeep, O::kKeep},
              {C::kIdenticalExceptDistributionServices, O::kKeep, O::kKeep, O::kKeep},
              {C::kDifferent, O::kCopyAsNew, O::kCopyAsNew, O::kCopyAsNew}});
}

TEST(Decide, UseNewerReplacesOnlyWhenTheSourceIsNewer) {
  ExpectRule(package::ConflictRule::kUseNewer,
             {{C::kAbsent, O::kCreate, O::kCreate, O::kCreate},
              {C::kIdentical, O::kKeep, O::kKeep, O::kKeep},
              {C::kIdenticalExceptPath, O::kMove, O::kKeep, O::kKeep},
              {C::kIdenticalExceptDistributionServices, O::kTakeAddresses, O::kKeep, O::kKeep},
              {C::kDifferent, O::kOverwrite, O::kKeep, O::kKeep}});
}

TEST(Decide, UseOlderReplacesUnlessTheSourceIsNewer) {
  ExpectRule(
      package::ConflictRule::kUseOlder,
      {{C::kAbsent, O::kCreate, O::kCreate, O::kCreate},
       {C::kIdentical, O::kKeep, O::kKeep, O::kKeep},
       {C::kIdenticalExceptPath, O::kKeep, O::kMove, O::kMove},
       {C::kIdenticalExceptDistributionServices, O::kKeep, O::kTakeAddresses, O::kTakeAddresses},
       {C::kDifferent, O::kKeep, O::kOverwrite, O::kOverwrite}});
}

TEST(Decide, ForceReplaceOverwritesEveryExistingObjectEvenAnIdenticalOne) {
  ExpectRule(
      package::ConflictRule::kForceReplace,
      {{C::kAbsent, O::kCreate, O::kCreate, O::kCreate},
       {C::kIdentical, O::kOverwrite, O::kOverwrite, O::kOverwrite},
       {C::kIdenticalExceptPath, O::kOverwrite, O::kOverwrite, O::kOverwrite},
       {C::kIdenticalExceptDistributionServices, O::kOverwrite, O::kOverwrite, O::kOverwrite},
       {C::kDifferent, O::kOverwrite, O::kOverwrite, O::kOverwrite}});
}

TEST(Decide, DeleteRemovesEveryExistingObjectAndDoesNothingForAnAbsentOne) {
  ExpectRule(package::ConflictRule::kDelete,
             {{C::kAbsent, O::kNoop, O::kNoop, O::kNoop},
              {C::kIdentical, O::kDelete, O::kDelete, O::kDelete},
              {C::kIdenticalExceptPath, O::kDelete, O::kDelete, O::kDelete},
              {C::kIdenticalExceptDistributionServices, O::kDelete, O::kDelete, O::kDelete},
              {C::kDifferent, O::kDelete, O::kDelete, O::kDelete}});
}

TEST(IsSourceNewer, EqualTimesAreNotNewer) {
  EXPECT_TRUE(package::IsSourceNewer(kLater, kTargetModified));
  EXPECT_FALSE(package::IsSourceNewer(kEarlier, kTargetModified));
  EXPECT_FALSE(package::IsSourceNewer(kTargetModified, kTargetModified));
}

// --- parsing rule names ----------------------------------------------------------------------

TEST(ParseConflictRule, AcceptsTheSevenRestNames) {
  EXPECT_EQ(package::ParseConflictRule("use_existing", "f"), package::ConflictRule::kUseExisting);
  EXPECT_EQ(package::ParseConflictRule("replace", "f"), package::ConflictRule::kReplace);
  EXPECT_EQ(package::ParseConflictRule("keep_both", "f"), package::ConflictRule::kKeepBoth);
  EXPECT_EQ(package::ParseConflictRule("use_newer", "f"), package::ConflictRule::kUseNewer);
  EXPECT_EQ(package::ParseConflictRule("use_older", "f"), package::ConflictRule::kUseOlder);
  EXPECT_EQ(package::ParseConflictRule("force_replace", "f"), package::ConflictRule::kForceReplace);
  EXPECT_EQ(package::ParseConflictRule("delete", "f"), package::ConflictRule::kDelete);
}

TEST(ParseConflictRule, NamesRoundTrip) {
  for (const char* name : {"use_existing", "replace", "keep_both", "use_newer", "use_older",
                           "force_replace", "delete"}) {
    EXPECT_EQ(package::ConflictRuleName(package::ParseConflictRule(name, "f")), name);
  }
}

void ExpectRejected(std::string_view value) {
  try {
    package::ParseConflictRule(value, "tocView.content[3].action");
    ADD_FAILURE() << value << " was accepted";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kInvalidInput);
    EXPECT_EQ(error.message(),
              "tocView.content[3].action: '" + std::string(value) +
                  "' is not a conflict rule; expected one of use_existing, replace, keep_both, "
                  "use_newer, use_older, force_replace, delete");
  }
}

TEST(ParseConflictRule, RejectsObjectManagerOnlyRulesNamingTheFieldAndTheAcceptedValues) {
  ExpectRejected("merge");
  ExpectRejected("do_not_move");
}

TEST(ParseConflictRule, RejectsOtherSpellings) {
  ExpectRejected("Replace");
  ExpectRejected("force_keep_both");
  ExpectRejected("");
}

// --- classification --------------------------------------------------------------------------

constexpr const char* kVersion = "51C0A2E48D9F4B17A3E6C5D2B1F09E87";
constexpr const char* kOtherVersion = "0123456789ABCDEF0123456789ABCDEF";
const std::vector<std::string> kPath = {"C3B2A1908F7E4D6C5B4A39281706F5E4",
                                        "98FE182C2A10427EACE0CD30B6768258",
                                        "D43364C684E34A5F9B2F9AD7108F7828"};
const std::vector<std::string> kOtherPath = {"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
                                             "98FE182C2A10427EACE0CD30B6768258",
                                             "D43364C684E34A5F9B2F9AD7108F7828"};

ObjectRecord Metric(std::string version) {
  ObjectRecord record;
  record.id = "3E5A7C9B1D2F43658798A9BACBDCEDFE";
  record.type = kTypeMetric;
  record.subtype = 1024;
  record.version = std::move(version);
  return record;
}

ObjectRecord User(std::string version, Json addresses) {
  ObjectRecord record;
  record.id = "AB12CD34EF5647A8B9C0D1E2F3A4B5C6";
  record.type = kTypeUser;
  record.subtype = kSubtypeUser;
  record.version = std::move(version);
  record.definition = {{"username", "jo"}};
  if (!addresses.is_null()) record.definition["addresses"] = std::move(addresses);
  return record;
}

const Json kEmailAddress = Json::parse(R"([{"name": "work", "value": "jo@example.com"}])");
const Json kOtherAddress = Json::parse(R"([{"name": "home", "value": "jo@example.org"}])");

TEST(Classify, NoTargetObjectIsAbsent) {
  EXPECT_EQ(package::Classify(nullptr, {}, Metric(kVersion), kPath),
            package::ConflictClass::kAbsent);
}

TEST(Classify, SameVersionAndSameAncestorChainIsIdentical) {
  ObjectRecord target = Metric(kVersion);
  EXPECT_EQ(package::Classify(&target, kPath, Metric(kVersion), kPath),
            package::ConflictClass::kIdentical);
}

TEST(Classify, VersionsAndFolderIdsCompareIgnoringCase) {
  ObjectRecord target = Metric("51c0a2e48d9f4b17a3e6c5d2b1f09e87");
  std::vector<std::string> lower_path = {"c3b2a1908f7e4d6c5b4a39281706f5e4",
                                         "98fe182c2a10427eace0cd30b6768258",
                                         "d43364c684e34a5f9b2f9ad7108f7828"};
  EXPECT_EQ(package::Classify(&target, lower_path, Metric(kVersion), kPath),
            package::ConflictClass::kIdentical);
}

TEST(Classify, SameVersionInAnotherFolderIsIdenticalExceptPath) {
  ObjectRecord target = Metric(kVersion);
  EXPECT_EQ(package::Classify(&target, kOtherPath, Metric(kVersion), kPath),
            package::ConflictClass::kIdenticalExceptPath);
}

TEST(Classify, OnlyTheGrandparentDifferingStillCountsAsAnotherPath) {
  ObjectRecord target = Metric(kVersion);
  std::vector<std::string> moved_parent = {kPath[0], "BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB", kPath[2]};
  EXPECT_EQ(package::Classify(&target, moved_parent, Metric(kVersion), kPath),
            package::ConflictClass::kIdenticalExceptPath);
}

TEST(Classify, ADeeperChainIsAnotherPath) {
  ObjectRecord target = Metric(kVersion);
  std::vector<std::string> deeper = kPath;
  deeper.insert(deeper.begin(), "CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC");
  EXPECT_EQ(package::Classify(&target, deeper, Metric(kVersion), kPath),
            package::ConflictClass::kIdenticalExceptPath);
}

TEST(Classify, AnotherVersionIsDifferentWhateverThePath) {
  ObjectRecord target = Metric(kOtherVersion);
  EXPECT_EQ(package::Classify(&target, kPath, Metric(kVersion), kPath),
            package::ConflictClass::kDifferent);
  EXPECT_EQ(package::Classify(&target, kOtherPath, Metric(kVersion), kPath),
            package::ConflictClass::kDifferent);
}

TEST(Classify, AUserWithTheSameVersionAndOtherAddressesIsIdenticalExceptDistributionServices) {
  ObjectRecord target = User(kVersion, kOtherAddress);
  EXPECT_EQ(package::Classify(&target, {}, User(kVersion, kEmailAddress), {}),
            package::ConflictClass::kIdenticalExceptDistributionServices);
}

TEST(Classify, AUserWithoutAddressesAgainstOneWithAddressesDiffersInDistributionServices) {
  ObjectRecord target = User(kVersion, nullptr);
  EXPECT_EQ(package::Classify(&target, {}, User(kVersion, kEmailAddress), {}),
            package::ConflictClass::kIdenticalExceptDistributionServices);
}

TEST(Classify, AbsentNullAndEmptyAddressesAreTheSame) {
  ObjectRecord target = User(kVersion, nullptr);
  EXPECT_EQ(package::Classify(&target, {}, User(kVersion, Json::array()), {}),
            package::ConflictClass::kIdentical);
}

TEST(Classify, KeyOrderInsideAnAddressDoesNotMatter) {
  ObjectRecord target =
      User(kVersion, Json::parse(R"([{"value": "jo@example.com", "name": "work"}])"));
  EXPECT_EQ(package::Classify(&target, {}, User(kVersion, kEmailAddress), {}),
            package::ConflictClass::kIdentical);
}

TEST(Classify, AUserWithAnotherVersionIsDifferentEvenWhenOnlyAddressesDiffer) {
  ObjectRecord target = User(kOtherVersion, kOtherAddress);
  EXPECT_EQ(package::Classify(&target, {}, User(kVersion, kEmailAddress), {}),
            package::ConflictClass::kDifferent);
}

TEST(Classify, AddressesOfAnObjectThatIsNotAUserAreIgnored) {
  ObjectRecord target = Metric(kVersion);
  target.definition["addresses"] = kOtherAddress;
  ObjectRecord source = Metric(kVersion);
  source.definition["addresses"] = kEmailAddress;
  EXPECT_EQ(package::Classify(&target, kPath, source, kPath), package::ConflictClass::kIdentical);
}

TEST(Classify, AUserGroupHasNoDistributionServicesClass) {
  ObjectRecord target = User(kVersion, kOtherAddress);
  target.subtype = kSubtypeUserGroup;
  ObjectRecord source = User(kVersion, kEmailAddress);
  source.subtype = kSubtypeUserGroup;
  EXPECT_EQ(package::Classify(&target, {}, source, {}), package::ConflictClass::kIdentical);
}

}  // namespace
}  // namespace tessera::model::package
