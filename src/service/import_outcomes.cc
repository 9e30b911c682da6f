#include "service/import_outcomes.h"

#include <fmt/format.h>

#include <vector>

#include "core/strings.h"

namespace tessera::service {

std::string_view OutcomeInPastTense(model::Outcome outcome) {
  switch (outcome) {
    case model::Outcome::kCreate:
      return "created";
    case model::Outcome::kKeep:
      return "kept";
    case model::Outcome::kMove:
      return "moved";
    case model::Outcome::kTakeAddresses:
      return "given the source's addresses";
    case model::Outcome::kOverwrite:
      return "replaced";
    case model::Outcome::kCopyAsNew:
      return "copied as new";
    case model::Outcome::kDelete:
      return "deleted";
    case model::Outcome::kNoop:
      return "absent, nothing to delete";
  }
  return "kept";
}

std::string DescribeImportOutcomes(const PackageImportSummary& summary) {
  std::string text = fmt::format("{} object(s) would be imported", summary.objects);
  std::vector<std::string> rules;
  std::vector<std::string> counts;
  std::optional<model::ConflictRule> current;
  auto close_rule = [&] {
    if (!current) return;
    rules.push_back(
        fmt::format("{}: {}", model::ConflictRuleName(*current), JoinStrings(counts, ", ")));
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

}  // namespace tessera::service
