// service/migration/import_outcomes.h
//
// What an import of a package does to its target, in words: the message of a validation (the dry
// run of an import), read by people and by `tessera migrate`.
//
// Contract: DescribeImportOutcomes gives
//   "<n> object(s) would be imported: <rule>: <count> <outcome>, ...; <rule>: ..."
// with the rules in the order of model::ConflictRule and, within a rule, the outcomes in the
// order of model::Outcome, each outcome in the past tense ("created", "kept", "moved",
// "given the source's addresses", "replaced", "copied as new", "deleted", "absent, nothing to
// delete"). A summary without objects gives "0 object(s) would be imported".
#pragma once

#include <string>
#include <string_view>

#include "service/migration/package_import.h"

namespace tessera::service::migration {

std::string_view OutcomeInPastTense(model::package::Outcome outcome);

std::string DescribeImportOutcomes(const PackageImportSummary& summary);

}  // namespace tessera::service::migration
