// model/qualification_references.h
//
// The objects a qualification tree names: the ids of `attribute` and `metric` operands, of a `form`
// operand's attribute, and the attribute of every element id in an `elements` operand
// ("h<value>;<attribute id>" or "<attribute id>:<value>"). Collection is lenient: parts of the tree
// that do not have the expected shape are skipped, since checking the grammar is the engine's job.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"

namespace tessera::model {

struct QualificationReferences {
  std::vector<std::string> attribute_ids;  // canonical, unique, in order of first appearance
  std::vector<std::string> metric_ids;
  std::vector<std::string> all_ids;  // both, in order of first appearance
};

QualificationReferences CollectQualificationReferences(const Json& qualification);

// The attribute id inside an element id: in "h<value>;<id>[;display...]" the last ';'-separated
// segment that is 32 hex digits, in "<id>:<value>" the text before the first ':'. Canonical.
std::optional<std::string> ElementAttributeId(std::string_view element_id);

}  // namespace tessera::model
