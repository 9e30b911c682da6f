
#include "model/semantic_model.h"
#include <algorithm>
#include <functional>
#include <set>
#include "core/error.h"
#include "core/ids.h"
#include "model/definition_reader.h"
#include "model/object_types.h"
#include "model/qualification_references.h"

namespace tessera::model {
namespace {

bool IsSemanticType(int type) {
  return type == kTypeTable || type == kTypeAttribute || type == kTypeFact || type == kTypeMetric ||
         type == kTypeFilter || type == kTypeReportDefinition;
}

enum class Expected { kTable, kAttribute, kFact, kMetric, kFilter, kCube };

bool Matches(const ObjectRecord& record, Expected expected) {
  switch (expected) {
    case Expected::kTable:
      return record.type == kTypeTable;
    case Expected::kAttribute:
      return record.type == kTypeAttribute;
    case Expected::kFact:
      return record.type == kTypeFact;
    case Expected::kMetric:
      return record.type == kTypeMetric;
    case Expected::kFilter:
      return record.type == kTypeFilter;
    case Expected::kCube:
      return record.type == kTypeReportDefinition && IsCubeSubtype(record.subtype);
  }
  return false;
}

std::string_view ExpectedWithArticle(Expected expected) {
  switch (expected) {
    case Expected::kTable:
      return "a table";
    case Expected::kAttribute:
      return "an attribute";
    case Expected::kFact:
      return "a fact";
    case Expected::kMetric:
      return "a metric";
    case Expected::kFilter:
      return "a filter";
    case Expected::kCube:
      return "a cube";
  }
  return "an object";
}

// Everything Validate learns about a set of objects; Build keeps the parsed views.
class Catalog {
 public:
  explicit Catalog(const std::vector<ObjectRecord>& objects) {
    std::vector<const ObjectRecord*> semantic;
    for (const ObjectRecord& record : objects) {
      if (!IsPushedDataset(record)) semantic.push_back(&record);
    }
    for (const ObjectRecord* record : semantic) Index(*record);
    for (const ObjectRecord* record : semantic) Parse(*record);
    for (const ObjectRecord* record : semantic) Check(*record);
  }

  std::map<std::string, Table> tables;
  std::map<std::string, Attribute> attributes;
  std::map<std::string, Fact> facts;
  std::map<std::string, Metric> metrics;
  std::map<std::string, Filter> filters;
  std::map<std::string, Report> reports;
  std::map<std::string, Cube> cubes;
  std::map<std::pair<int, std::string>, std::string> ids_by_name;
  std::vector<ModelProblem> problems;

 private:
  void Index(const ObjectRecord& record) {
    if (!records_.emplace(record.id, &record).second && IsSemanticType(record.type)) {
      AddProblem(record, "another object has the same id " + record.id);
    }
    if (!IsSemanticType(record.type) || record.name.empty()) return;
    auto [named, is_new] = ids_by_name.emplace(std::pair(record.type, record.name), record.id);
    if (!is_new && named->second != record.id) {
      AddProblem(record,
                 "the name is already used by " + DescribeObject(*records_.at(named->second)));
    }
  }

  void Parse(const ObjectRecord& record) {
    if (records_.at(record.id) != &record) return;
    try {
      ParseByType(record);
    } catch (const Error& error) {
      problems.push_back({record.id, error.what()});
    }
  }

  void ParseByType(const ObjectRecord& record) {
    switch (record.type) {
      case kTypeTable:
        tables.emplace(record.id, ParseTable(record));
        break;
      case kTypeAttribute:
        attributes.emplace(record.id, ParseAttribute(record));
        break;
      case kTypeFact:
        facts.emplace(record.id, ParseFact(record));
        break;
      case kTypeMetric:
        metrics.emplace(record.id, ParseMetric(record));
        break;
      case kTypeFilter:
        filters.emplace(record.id, ParseFilter(record));
        break;
      case kTypeReportDefinition:
        if (IsCubeSubtype(record.subtype)) {
          cubes.emplace(record.id, ParseCube(record));
        } else {
          reports.emplace(record.id, ParseReport(record));
        }
        break;
    }
  }

  void Check(const ObjectRecord& record) {
    if (records_.at(record.id) != &record) return;
    if (auto found = attributes.find(record.id); found != attributes.end()) {
      CheckAttribute(record, found->second);
    } else if (auto found = facts.find(record.id); found != facts.end()) {
      CheckFact(record, found->second);
    } else if (auto found = metrics.find(record.id); found != metrics.end()) {
      CheckMetric(record, found->second);
    } else if (auto found = filters.find(record.id); found != filters.end()) {
      CheckFilter(record, found->second);
    } else if (auto found = reports.find(record.id); found != reports.end()) {
      CheckReport(record, found->second);
    } else if (auto found = cubes.find(record.id); found != cubes.end()) {
      CheckCube(record, found->second);
    }
  }

  void CheckAttribute(const ObjectRecord& record, const Attribute& attribute) {
    if (Expect(record, "lookup table", attribute.lookup_table_id, Expected::kTable)) {
      CheckFormColumns(record, attribute);
    }
    if (!attribute.parent_id) return;
    if (Expect(record, "parent", *attribute.parent_id, Expected::kAttribute)) {
      CheckParentColumn(record, attribute);
    }
    CheckParentCycle(record, attribute);
  }

  void CheckFormColumns(const ObjectRecord& record, const Attribute& attribute) {
    const Table* table = FindIn(tables, attribute.lookup_table_id);
    if (table == nullptr) return;
    for (const AttributeForm& form : attribute.forms) {
      if (table->FindColumn(form.column) == nullptr) {
        AddProblem(record, "form '" + form.name + "': column '" + form.column +
                               "' is not in table '" + table->name + "'");
      }
    }
  }

  // The child's lookup table holds the parent's ID column (snowflake).
  void CheckParentColumn(const ObjectRecord& record, const Attribute& attribute) {
    const Table* table = FindIn(tables, attribute.lookup_table_id);
    const Attribute* parent = FindIn(attributes, *attribute.parent_id);
    if (table == nullptr || parent == nullptr) return;
    const std::string& column = parent->id_form().column;
    if (table->FindColumn(column) == nullptr) {
      AddProblem(record, "lookup table '" + table->name + "' has no column '" + column +
                             "', the ID column of parent '" + parent->name + "'");
    }
  }

  void CheckParentCycle(const ObjectRecord& record, const Attribute& attribute) {
    std::vector<std::string> chain = {attribute.name};
    std::set<std::string> visited = {attribute.id};
    const Attribute* current = &attribute;
    while (current->parent_id) {
      const Attribute* parent = FindIn(attributes, *current->parent_id);
      if (parent == nullptr) return;
      chain.push_back(parent->name);
      if (parent->id == attribute.id) {
        AddProblem(record, "parents form a cycle: " + JoinChain(chain));
        return;
      }
      if (!visited.insert(parent->id).second) return;  // a cycle above, reported on its members
      current = parent;
    }
  }

  void CheckFact(const ObjectRecord& record, const Fact& fact) {
    std::vector<const Table*> fact_tables;
    for (const std::string& table_id : fact.table_ids) {
      if (!Expect(record, "table", table_id, Expected::kTable)) continue;
      if (const Table* table = FindIn(tables, table_id)) fact_tables.push_back(table);
    }
    // The fact may be read from any of its tables, so each must hold every column.
    for (const std::string& column : fact.expression.References()) {
      for (const Table* table : fact_tables) {
        if (table->FindColumn(column) == nullptr) {
          AddProblem(record, "column '" + column + "' is not in table '" + table->name + "'");
        }
      }
    }
  }

  void CheckMetric(const ObjectRecord& record, const Metric& metric) {
    if (!metric.is_compound) {
      if (metric.function == AggregateFunction::kCountDistinct) {
        Expect(record, "attribute", metric.attribute_id, Expected::kAttribute);
      } else {
        Expect(record, "fact", metric.fact_id, Expected::kFact);
      }
      return;
    }
    for (const std::string& id : metric.expression.References()) {
      Expect(record, "component", id, Expected::kMetric);
    }
    std::vector<std::string> path = {metric.id};
    std::set<std::string> explored = {metric.id};
    if (FindMetricCycle(metric, metric.id, path, explored)) {
      std::vector<std::string> names;
      for (const std::string& id : path) names.push_back(NameOf(id));
      AddProblem(record, "compound metrics form a cycle: " + JoinChain(names));
    }
  }

  // Depth-first search for a path of compound references from `metric` back to `start`; each
  // metric is explored once per start, so shared components cost no repeated work.
  bool FindMetricCycle(const Metric& metric, const std::string& start,
                       std::vector<std::string>& path, std::set<std::string>& explored) {
    if (!metric.is_compound) return false;
    for (const std::string& id : metric.expression.References()) {
      if (id == start) {
        path.push_back(id);
        return true;
      }
      const Metric* component = FindIn(metrics, id);
      if (component == nullptr || !explored.insert(id).second) continue;
      path.push_back(id);
      if (FindMetricCycle(*component, start, path, explored)) return true;
      path.pop_back();
    }
    return false;
  }

  void CheckFilter(const ObjectRecord& record, const Filter& filter) {
    QualificationReferences references = CollectQualificationReferences(filter.qualification);
    for (const std::string& id : references.attribute_ids) {
      Expect(record, "qualified attribute", id, Expected::kAttribute);
    }
    for (const std::string& id : references.metric_ids) {
      Expect(record, "qualified metric", id, Expected::kMetric);
    }
  }

  void CheckReport(const ObjectRecord& record, const Report& report) {
    for (const std::string& id : report.attribute_ids) {
      Expect(record, "row", id, Expected::kAttribute);
    }
    for (const std::string& id : report.metric_ids) {
      Expect(record, "column", id, Expected::kMetric);
    }
    if (report.filter_id) Expect(record, "filter", *report.filter_id, Expected::kFilter);
    if (report.source == ReportSource::kCube) {
      Expect(record, "cube", report.cube_id, Expected::kCube);
    }
  }

  void CheckCube(const ObjectRecord& record, const Cube& cube) {
    for (const std::string& id : cube.attribute_ids) {
      Expect(record, "attribute", id, Expected::kAttribute);
    }
    for (const std::string& id : cube.metric_ids) {
      Expect(record, "metric", id, Expected::kMetric);
    }
    if (cube.filter_id) Expect(record, "filter", *cube.filter_id, Expected::kFilter);
  }

  // Reports "<role> '<name, or id when there is no such object>' is not <expected>".
  bool Expect(const ObjectRecord& record, std::string_view role, const std::string& id,
              Expected expected) {
    auto found = records_.find(id);
    if (found != records_.end() && Matches(*found->second, expected)) return true;
    AddProblem(record, std::string(role) + " '" + NameOf(id) + "' is not " +
                           std::string(ExpectedWithArticle(expected)));
    return false;
  }

  std::string NameOf(const std::string& id) const {
    auto found = records_.find(id);
    if (found == records_.end() || found->second->name.empty()) return id;
    return found->second->name;
  }

  template <typename View>
  static const View* FindIn(const std::map<std::string, View>& views, const std::string& id) {
    auto found = views.find(id);
    return found == views.end() ? nullptr : &found->second;
  }

  static std::string JoinChain(const std::vector<std::string>& names) {
    std::string joined;
    for (const std::string& name : names) {
      if (!joined.empty()) joined += " > ";
      joined += name;
    }
    return joined;
  }

  void AddProblem(const ObjectRecord& record, const std::string& message) {
    problems.push_back({record.id, DescribeObject(record) + ": " + message});
  }

  std::map<std::string, const ObjectRecord*> records_;
};

template <typename View>
const View& Lookup(const std::map<std::string, View>& views, const std::string& id,
                   std::string_view type_word) {
  auto found = views.find(id);
  if (found == views.end()) {
    throw Error(ErrorCode::kNotFound,
                "The semantic model has no " + std::string(type_word) + " with id " + id);
  }
  return found->second;
}

}  // namespace

std::vector<ModelProblem> SemanticModel::Validate(const std::vector<ObjectRecord>& objects) {
  return Catalog(objects).problems;
}

SemanticModel SemanticModel::Build(const std::vector<ObjectRecord>& objects) {
  Catalog catalog(objects);
  if (!catalog.problems.empty()) {
    std::string message;
    for (const ModelProblem& problem : catalog.problems) {
      if (!message.empty()) message += "\n";
      message += problem.message;
    }
    throw Error(ErrorCode::kInvalidInput, message);
  }
  SemanticModel model;
  model.tables_ = std::move(catalog.tables);
  model.attributes_ = std::move(catalog.attributes);
  model.facts_ = std::move(catalog.facts);
  model.metrics_ = std::move(catalog.metrics);
  model.filters_ = std::move(catalog.filters);
  model.reports_ = std::move(catalog.reports);
  model.cubes_ = std::move(catalog.cubes);
  model.ids_by_name_ = std::move(catalog.ids_by_name);
  return model;
}

const Table& SemanticModel::table(const std::string& id) const {
  return Lookup(tables_, id, "table");
}
const Attribute& SemanticModel::attribute(const std::string& id) const {
  return Lookup(attributes_, id, "attribute");
}
const Fact& SemanticModel::fact(const std::string& id) const { return Lookup(facts_, id, "fact"); }
const Metric& SemanticModel::metric(const std::string& id) const {
  return Lookup(metrics_, id, "metric");
}
const Filter& SemanticModel::filter(const std::string& id) const {
  return Lookup(filters_, id, "filter");
}
const Report& SemanticModel::report(const std::string& id) const {
  return Lookup(reports_, id, "report");
}
const Cube& SemanticModel::cube(const std::string& id) const { return Lookup(cubes_, id, "cube"); }

std::optional<std::string> SemanticModel::FindByName(int type, std::string_view name) const {
  auto found = ids_by_name_.find(std::pair(type, std::string(name)));
  if (found == ids_by_name_.end()) return std::nullopt;
  return found->second;
}

std::vector<std::string> SemanticModel::SimpleMetrics(
    const std::vector<std::string>& metric_ids) const {
  std::vector<std::string> simple;
  std::set<std::string> visiting;
  std::function<void(const std::string&)> collect = [&](const std::string& id) {
    const Metric& metric = this->metric(id);
    if (!metric.is_compound) {
      if (std::find(simple.begin(), simple.end(), id) == simple.end()) simple.push_back(id);
      return;
    }
    if (!visiting.insert(id).second) {
      throw Error(ErrorCode::kInvalidInput, "metric '" + metric.name + "' refers to itself");
    }
    for (const auto& reference : metric.expression.References()) collect(reference);
    visiting.erase(id);
  };
  for (const auto& id : metric_ids) collect(id);
  return simple;
}

std::vector<const Attribute*> SemanticModel::Ancestors(const Attribute& attribute) const {
  std::vector<const Attribute*> ancestors;
  const Attribute* current = &attribute;
  // Build rejects parent cycles; the bound keeps a hand-made model from looping forever.
  while (current->parent_id && ancestors.size() < attributes_.size()) {
    auto parent = attributes_.find(*current->parent_id);
    if (parent == attributes_.end()) break;
    ancestors.push_back(&parent->second);
    current = &parent->second;
  }
  return ancestors;
}

}  // namespace tessera::model
