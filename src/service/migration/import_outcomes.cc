#include "service/migration/import_outcomes.h"

#include <fmt/format.h>

#include <vector>

#include "core/strings.h"

namespace tessera::service::migration {

std::string_view OutcomeInPastTense(model::package::Outcome outcome) {
  switch (outcome) {
    case model::package::Outcome::kCreate:
      return "created";
    case model::package::Outcome::kKeep:
      return "kept";
    case model::package::Outcome::kMove:
      return "moved";
    case model::package::Outcome::kTakeAddresses:
      return "given the source's addresses";
    case model::package::Outcome::kOverwrite:
      return "replaced";
    case model::package::Outcome::kCopyAsNew:
      return "copied as new";
    case model::package::Outcome::kDelete:
      return "deleted";
    case model::package::Outcome::kNoop:
      return "absent, nothing to delete";
  }
  return "kept";
}

std::string DescribeImportOutcomes(const PackageImportSummary& summary) {
  std::string text = fmt::format("{} object(s) would be imported", summary.objects);
  std::vector<std::string> rules;
  std::vector<std::string> counts;
  std::optional<model::package::ConflictRule> current;
  auto close_rule = [&] {
    if (!current) return;
    rules.push_back(fmt::format("{}: {}", model::package::ConflictRuleName(*current),
                                JoinStrings(counts, ", ")));
    counts.clear();
  };
  // The map orders its keys by rule, then by outcome.
  for (const auto& [key, count] : summary.outcomes_by_rule) {
    if (current != key.first) {
      close_rule();
      current = key.first;
    }
    counts.push_back(fmt::format("{} {}", count, OutcomeInPastTense(key.second)));
  }
  close_rule();
  if (!rules.empty()) text += ": " + JoinStrings(rules, "; ");
  return text;
}

}  // namespace tessera::service::migration
