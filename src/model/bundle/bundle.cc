#include "model/bundle/bundle.h"

#include "model/object_types.h"

namespace tessera::model::bundle {
namespace {

std::string JoinLines(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& line : lines) text += (text.empty() ? "" : "\n") + line;
  return text;
}

}  // namespace

BundleError::BundleError(std::vector<std::string> problems)
    : std::runtime_error(JoinLines(problems)), problems_(std::move(problems)) {}

std::string DefaultFolderPath(int type, int subtype) {
  switch (type) {
    case kTypeTable:
      return "Schema Objects/Tables";
    case kTypeAttribute:
      return "Schema Objects/Attributes";
    case kTypeFact:
      return "Schema Objects/Facts";
    case kTypeMetric:
      return "Public Objects/Metrics";
    case kTypeFilter:
      return "Public Objects/Filters";
    case kTypeReportDefinition:
      return "Public Objects/Reports";
    case kTypeDocumentDefinition:
      return "Public Objects/Shared Dashboards";
    default:
      return "Public Objects";
  }
}

}  // namespace tessera::model::bundle
