// What a validation says an import would do: counts by conflict rule, in words.
#include "service/migration/import_outcomes.h"

#include <gtest/gtest.h>

namespace tessera::service::migration {
namespace {

using model::package::ConflictRule;
using model::package::Outcome;

TEST(ImportOutcomes, CountsEachOutcomeUnderTheRuleThatDecidedIt) {
  migration::PackageImportSummary summary;
  summary.objects = 7;
  summary.outcomes_by_rule[{ConflictRule::kReplace, Outcome::kOverwrite}] = 1;
  summary.outcomes_by_rule[{ConflictRule::kReplace, Outcome::kCreate}] = 2;
  summary.outcomes_by_rule[{ConflictRule::kUseExisting, Outcome::kKeep}] = 3;
  summary.outcomes_by_rule[{ConflictRule::kDelete, Outcome::kDelete}] = 1;
  EXPECT_EQ(migration::DescribeImportOutcomes(summary),
            "7 object(s) would be imported: use_existing: 3 kept; replace: 2 created, 1 replaced; "
            "delete: 1 deleted");
}

TEST(ImportOutcomes, AnEmptyPackageSaysSoAlone) {
  EXPECT_EQ(migration::DescribeImportOutcomes(migration::PackageImportSummary{}),
            "0 object(s) would be imported");
}

TEST(ImportOutcomes, EveryOutcomeHasItsWords) {
  EXPECT_EQ(migration::OutcomeInPastTense(Outcome::kMove), "moved");
  EXPECT_EQ(migration::OutcomeInPastTense(Outcome::kTakeAddresses), "given the source's addresses");
  EXPECT_EQ(migration::OutcomeInPastTense(Outcome::kCopyAsNew), "copied as new");
  EXPECT_EQ(migration::OutcomeInPastTense(Outcome::kNoop), "absent, nothing to delete");
}

}  // namespace
}  // namespace tessera::service::migration
