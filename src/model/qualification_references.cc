
#include "model/qualification_references.h"
#include <algorithm>
#include "core/ids.h"
#include "core/strings.h"

namespace tessera::model {
namespace {

std::optional<std::string> IdField(const Json& object) {
  if (!object.is_object()) return std::nullopt;
  auto found = object.find("id");
  if (found == object.end() || !found->is_string()) return std::nullopt;
  return CanonicalObjectId(found->get<std::string>());
}

class ReferenceCollector {
 public:
  void Visit(const Json& node) {
    if (!node.is_object()) return;
    auto operands = node.find("operands");
    if (operands != node.end() && operands->is_array()) {
      for (const Json& operand : *operands) Visit(operand);
    }
    auto type = node.find("type");
    if (type == node.end() || !type->is_string()) return;
    VisitOperand(type->get<std::string>(), node);
  }

  QualificationReferences result;

 private:
  void VisitOperand(const std::string& type, const Json& operand) {
    if (type == "attribute") {
      AddAttribute(IdField(operand));
    } else if (type == "metric") {
      AddMetric(IdField(operand));
    } else if (type == "form" && operand.contains("attribute")) {
      AddAttribute(IdField(operand["attribute"]));
    } else if (type == "elements") {
      VisitElements(operand);
    }
  }

  void VisitElements(const Json& operand) {
    auto elements = operand.find("elements");
    if (elements == operand.end() || !elements->is_array()) return;
    for (const Json& element : *elements) {
      const Json* id = element.is_object() && element.contains("id") ? &element["id"] : &element;
      if (id->is_string()) AddAttribute(ElementAttributeId(id->get<std::string>()));
    }
  }

  void AddAttribute(const std::optional<std::string>& id) {
    if (!id) return;
    AppendIfAbsent(result.attribute_ids, *id);
    AppendIfAbsent(result.all_ids, *id);
  }

  void AddMetric(const std::optional<std::string>& id) {
    if (!id) return;
    AppendIfAbsent(result.metric_ids, *id);
    AppendIfAbsent(result.all_ids, *id);
  }
};

}  // namespace

QualificationReferences CollectQualificationReferences(const Json& qualification) {
  ReferenceCollector collector;
  collector.Visit(qualification);
  return std::move(collector.result);
}

std::optional<std::string> ElementAttributeId(std::string_view element_id) {
  if (!element_id.empty() && element_id.front() == 'h') {
    std::vector<std::string> segments = Split(element_id.substr(1), ';');
    for (size_t i = segments.size(); i-- > 1;) {
      if (IsObjectId(segments[i])) return CanonicalObjectId(segments[i]);
    }
    return std::nullopt;
  }
  size_t colon = element_id.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  return CanonicalObjectId(element_id.substr(0, colon));
}

}  // namespace tessera::model
