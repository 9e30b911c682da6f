// model/semantic_model.h
//
// One project's semantic layer, assembled from its objects and checked as a whole: every
// reference names an object of the right type, attribute parents form no cycle, every form and
// fact column exists in its table, a parent's ID column exists in the child's lookup table,
// compound metrics form no cycle. Validate() reports every problem at once; Build() refuses a
// model with any problem. Lookups by id throw Error(kNotFound); lookups by name are exact.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/object.h"
#include "model/semantic.h"

namespace tessera::model {

struct ModelProblem {
  std::string object_id;  // the object whose definition is wrong
  std::string message;    // "attribute 'City': parent 'Nowhere' is not an attribute"
};

class SemanticModel {
 public:
  // Every problem among `objects` (objects of other types are ignored but may be referenced).
  static std::vector<ModelProblem> Validate(const std::vector<ObjectRecord>& objects);
  // Throws Error(kInvalidInput) listing the problems, one per line.
  static SemanticModel Build(const std::vector<ObjectRecord>& objects);

  const Table& table(const std::string& id) const;
  const Attribute& attribute(const std::string& id) const;
  const Fact& fact(const std::string& id) const;
  const Metric& metric(const std::string& id) const;
  const Filter& filter(const std::string& id) const;
  const Report& report(const std::string& id) const;
  const Cube& cube(const std::string& id) const;

  bool has_attribute(const std::string& id) const { return attributes_.count(id) > 0; }
  bool has_metric(const std::string& id) const { return metrics_.count(id) > 0; }

  std::optional<std::string> FindByName(int type, std::string_view name) const;

  // The simple metrics behind `metric_ids`: a simple metric itself, a compound one the simple
  // metrics its expression uses, recursively; each once, in order of first appearance.
  // Error(kInvalidInput) for a compound metric that refers to itself (Build rejects those).
  std::vector<std::string> SimpleMetrics(const std::vector<std::string>& metric_ids) const;

  // The attribute's parent, its parent's parent, ... (nearest first).
  std::vector<const Attribute*> Ancestors(const Attribute& attribute) const;

  const std::map<std::string, Table>& tables() const { return tables_; }
  const std::map<std::string, Attribute>& attributes() const { return attributes_; }
  const std::map<std::string, Fact>& facts() const { return facts_; }
  const std::map<std::string, Metric>& metrics() const { return metrics_; }
  const std::map<std::string, Report>& reports() const { return reports_; }
  const std::map<std::string, Cube>& cubes() const { return cubes_; }

 private:
  std::map<std::string, Table> tables_;
  std::map<std::string, Attribute> attributes_;
  std::map<std::string, Fact> facts_;
  std::map<std::string, Metric> metrics_;
  std::map<std::string, Filter> filters_;
  std::map<std::string, Report> reports_;
  std::map<std::string, Cube> cubes_;
  std::map<std::pair<int, std::string>, std::string> ids_by_name_;
};

}  // namespace tessera::model
