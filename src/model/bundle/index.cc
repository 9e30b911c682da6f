#include "model/bundle/index.h"

#include <algorithm>

#include "core/ids.h"
#include "model/object_types.h"

namespace tessera::model::bundle {

int KindType(BundleKind kind) {
  switch (kind) {
    case BundleKind::kTable:
      return kTypeTable;
    case BundleKind::kAttribute:
      return kTypeAttribute;
    case BundleKind::kFact:
      return kTypeFact;
    case BundleKind::kMetric:
      return kTypeMetric;
    case BundleKind::kFilter:
      return kTypeFilter;
    case BundleKind::kCube:
    case BundleKind::kReport:
      return kTypeReportDefinition;
    case BundleKind::kDashboard:
      return kTypeDocumentDefinition;
  }
  return 0;
}

int KindSubtype(BundleKind kind) {
  switch (kind) {
    case BundleKind::kCube:
      return kSubtypeOlapCube;
    case BundleKind::kReport:
      return kSubtypeReportGrid;
    case BundleKind::kDashboard:
      return kSubtypeDashboard;
    default:
      return KindType(kind) * 256;  // the type's default subtype (3840, 3072, 3328, 1024, 256)
  }
}

std::string_view KindNoun(BundleKind kind) {
  switch (kind) {
    case BundleKind::kTable:
      return "table";
    case BundleKind::kAttribute:
      return "attribute";
    case BundleKind::kFact:
      return "fact";
    case BundleKind::kMetric:
      return "metric";
    case BundleKind::kFilter:
      return "filter";
    case BundleKind::kCube:
      return "cube";
    case BundleKind::kReport:
      return "report";
    case BundleKind::kDashboard:
      return "dashboard";
  }
  return "object";
}

std::string KindWithArticle(BundleKind kind) {
  const std::string_view noun = KindNoun(kind);
  const bool vowel = std::string_view("aeiou").find(noun.front()) != std::string_view::npos;
  return (vowel ? "an " : "a ") + std::string(noun);
}

std::optional<BundleKind> KindOf(int type, int subtype) {
  for (BundleKind kind :
       {BundleKind::kTable, BundleKind::kAttribute, BundleKind::kFact, BundleKind::kMetric,
        BundleKind::kFilter, BundleKind::kCube, BundleKind::kReport, BundleKind::kDashboard}) {
    if (KindType(kind) == type && KindSubtype(kind) == subtype) return kind;
  }
  return std::nullopt;
}

std::string BundleIndex::DeterministicId(BundleKind kind, std::string_view name) const {
  return DeterministicObjectId("tessera:" + project_name_ + ":" + std::to_string(KindType(kind)) +
                               ":" + std::string(name));
}

std::optional<std::string> BundleIndex::Declare(BundleKind kind, const std::string& name,
                                                const std::string& id,
                                                const std::string& location) {
  const auto name_key = std::make_pair(KindType(kind), name);
  if (auto taken = ids_by_type_and_name_.find(name_key); taken != ids_by_type_and_name_.end()) {
    const Entry& first = by_id_.at(taken->second);
    return "duplicate name '" + name + "': " + KindWithArticle(first.kind) +
           " of that name is at " + first.location;
  }
  if (auto taken = by_id_.find(id); taken != by_id_.end()) {
    return "duplicate id " + id + ": " + std::string(KindNoun(taken->second.kind)) + " '" +
           taken->second.name + "' at " + taken->second.location + " has it";
  }
  by_id_.emplace(id, Entry{kind, name, location});
  ids_by_type_and_name_.emplace(name_key, id);
  return std::nullopt;
}

std::optional<std::string> BundleIndex::Resolve(std::span<const BundleKind> kinds,
                                                std::string_view reference) const {
  for (BundleKind kind : kinds) {
    auto named = ids_by_type_and_name_.find(std::make_pair(KindType(kind), std::string(reference)));
    if (named != ids_by_type_and_name_.end() && by_id_.at(named->second).kind == kind) {
      return named->second;
    }
  }
  const std::optional<std::string> id = CanonicalObjectId(reference);
  if (!id) return std::nullopt;
  auto entry = by_id_.find(*id);
  if (entry == by_id_.end()) return std::nullopt;
  if (std::find(kinds.begin(), kinds.end(), entry->second.kind) == kinds.end()) {
    return std::nullopt;
  }
  return *id;
}

std::string BundleIndex::NameOf(const std::string& id) const {
  auto entry = by_id_.find(id);
  return entry == by_id_.end() ? id : entry->second.name;
}

void BundleIndex::SetForms(const std::string& attribute_id, std::vector<std::string> form_names) {
  forms_[attribute_id] = std::move(form_names);
}

const std::vector<std::string>* BundleIndex::Forms(const std::string& attribute_id) const {
  auto forms = forms_.find(attribute_id);
  return forms == forms_.end() ? nullptr : &forms->second;
}

}  // namespace tessera::model::bundle
