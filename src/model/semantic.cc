
#include "model/semantic.h"
#include <algorithm>
#include <array>
#include <utility>
#include "core/error.h"
#include "core/ids.h"
#include "core/strings.h"
#include "model/definition_reader.h"
#include "model/object_types.h"
#include "model/qualification_references.h"

namespace tessera::model {
namespace {

constexpr std::array<std::pair<std::string_view, DataType>, 6> kDataTypeNames = {{
    {"integer", DataType::kInteger},
    {"real", DataType::kReal},
    {"string", DataType::kText},
    {"date", DataType::kDate},
    {"datetime", DataType::kDateTime},
    {"boolean", DataType::kBoolean},
}};

constexpr std::array<std::pair<std::string_view, DataType>, 4> kDataTypeAliases = {{
    {"text", DataType::kText},
    {"double", DataType::kReal},
    {"number", DataType::kReal},
    {"int", DataType::kInteger},
}};

constexpr std::array<std::pair<std::string_view, AggregateFunction>, 6> kAggregateNames = {{
    {"sum", AggregateFunction::kSum},
    {"avg", AggregateFunction::kAvg},
    {"min", AggregateFunction::kMin},
    {"max", AggregateFunction::kMax},
    {"count", AggregateFunction::kCount},
    {"count_distinct", AggregateFunction::kCountDistinct},
}};

template <typename Names>
std::string JoinNames(const Names& names) {
  std::string joined;
  for (const auto& [name, value] : names) {
    if (!joined.empty()) joined += ", ";
    joined += name;
  }
  return joined;
}

template <typename Element>
void RejectRepeatedNames(const DefinitionReader& reader, const std::vector<Element>& elements,
                         std::string_view path) {
  for (size_t i = 0; i < elements.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (elements[i].name == elements[j].name) {
        reader.Fail(FieldPath(IndexPath(path, i), "name"),
                    "'" + elements[i].name + "' repeats " + IndexPath(path, j));
      }
    }
  }
}

Column ReadColumn(const DefinitionReader& reader, const Json& json, const std::string& path) {
  if (!json.is_object()) reader.Fail(path, "must be an object");
  Column column;
  column.name = reader.String(json, "name", FieldPath(path, "name"));
  std::string type_path = FieldPath(path, "dataType");
  std::string type_name = reader.String(json, "dataType", type_path);
  auto type = ParseDataType(type_name);
  if (!type) {
    reader.Fail(type_path, "'" + type_name + "' is not a data type; expected one of " +
                               JoinNames(kDataTypeNames));
  }
  column.type = *type;
  return column;
}

AttributeForm ReadForm(const DefinitionReader& reader, const Json& json, const std::string& path) {
  if (!json.is_object()) reader.Fail(path, "must be an object");
  return AttributeForm{reader.String(json, "name", FieldPath(path, "name")),
                       reader.String(json, "column", FieldPath(path, "column"))};
}

// The elements of the array `key` of `definition`, each read by `read_element` (ReadColumn,
// ReadForm). The array may not be empty (`need` says what is needed then) and the elements'
// names must differ.
template <typename ReadElement>
auto ReadNamedElements(const DefinitionReader& reader, const Json& definition, std::string_view key,
                       std::string_view need, ReadElement read_element) {
  const Json& items = reader.Array(definition, key, key);
  if (items.empty()) reader.Fail(key, need);
  std::vector<decltype(read_element(reader, items.front(), std::string()))> elements;
  for (size_t i = 0; i < items.size(); ++i) {
    elements.push_back(read_element(reader, items[i], IndexPath(key, i)));
  }
  RejectRepeatedNames(reader, elements, key);
  return elements;
}

ArithmeticExpression ReadExpression(const DefinitionReader& reader, const Json& definition) {
  std::string text = reader.String(definition, "expression", "expression");
  try {
    return ParseArithmetic(text);
  } catch (const Error& error) {
    reader.Fail("", error.what());
  }
}

// Compound metrics refer to other metrics by id; ids are kept in canonical form.
ArithmeticExpression ReadMetricExpression(const DefinitionReader& reader, const Json& definition) {
  ArithmeticExpression expression = ReadExpression(reader, definition);
  bool is_canonical = true;
  for (const std::string& reference : expression.References()) {
    auto id = CanonicalObjectId(reference);
    if (!id) {
      reader.Fail("expression", "'" + reference + "' is not a metric id; write [<metric id>]");
    }
    is_canonical = is_canonical && *id == reference;
  }
  if (is_canonical) return expression;
  return RenameReferences(expression, [](const std::string& id) { return *CanonicalObjectId(id); });
}

AggregateFunction ReadAggregateFunction(const DefinitionReader& reader, const Json& definition) {
  std::string name = reader.String(definition, "function", "function");
  for (const auto& [candidate, function] : kAggregateNames) {
    if (candidate == name) return function;
  }
  reader.Fail("function", "'" + name + "' is not an aggregate function; expected one of " +
                              JoinNames(kAggregateNames));
}

void ReadSimpleMetric(const DefinitionReader& reader, const Json& definition, Metric& metric) {
  metric.function = ReadAggregateFunction(reader, definition);
  bool has_fact = DefinitionReader::Find(definition, "fact") != nullptr;
  bool has_attribute = DefinitionReader::Find(definition, "attribute") != nullptr;
  if (metric.function == AggregateFunction::kCountDistinct) {
    if (has_fact) reader.Fail("fact", "count_distinct counts an attribute, not a fact");
    metric.attribute_id = reader.Id(definition, "attribute", "attribute");
  } else {
    if (has_attribute) reader.Fail("attribute", "only count_distinct counts an attribute");
    metric.fact_id = reader.Id(definition, "fact", "fact");
  }
}

std::string ReadFormatString(const DefinitionReader& reader, const Json& definition) {
  if (DefinitionReader::Find(definition, "format") == nullptr) return "";
  const Json& format = reader.Object(definition, "format", "format");
  return reader.OptionalString(format, "formatString", "format.formatString").value_or("");
}

ReportSource ReadReportSource(const DefinitionReader& reader, const Json& definition) {
  std::string source = reader.OptionalString(definition, "source", "source").value_or("warehouse");
  if (source == "warehouse") return ReportSource::kWarehouse;
  if (source == "cube") return ReportSource::kCube;
  reader.Fail("source", "'" + source + "' is not a report source; expected warehouse or cube");
}

// Dashboards keep references in fields with these names; form ids are not objects.
bool IsReferenceKey(std::string_view key) {
  return key == "dataset" || key == "datasets" || key == "attributes" || key == "metrics" ||
         key == "id";
}

void AddIdsIn(const Json& value, std::vector<std::string>& ids) {
  if (value.is_string()) {
    auto id = CanonicalObjectId(value.get<std::string>());
    if (id && *id != std::string(32, '0')) AppendIfAbsent(ids, *id);
  } else if (value.is_array()) {
    for (const Json& element : value) {
      if (element.is_string()) AddIdsIn(element, ids);
    }
  }
}

void CollectDashboardIds(const Json& node, std::vector<std::string>& ids) {
  if (node.is_array()) {
    for (const Json& element : node) CollectDashboardIds(element, ids);
    return;
  }
  if (!node.is_object()) return;
  for (const auto& [key, value] : node.items()) {
    if (key == "forms") continue;
    if (IsReferenceKey(key)) AddIdsIn(value, ids);
    CollectDashboardIds(value, ids);
  }
}

std::vector<std::string> DefinitionIds(const Json& definition, std::string_view key) {
  std::vector<std::string> ids;
  if (!definition.is_object() || !definition.contains(key)) return ids;
  AddIdsIn(definition[std::string(key)], ids);
  return ids;
}

// Lenient: a definition that does not parse uses nothing it can name.
std::vector<std::string> CompoundMetricIds(const Json& expression_text) {
  if (!expression_text.is_string()) return {};
  std::vector<std::string> ids;
  try {
    for (const auto& reference : ParseArithmetic(expression_text.get<std::string>()).References()) {
      if (auto id = CanonicalObjectId(reference)) AppendIfAbsent(ids, *id);
    }
  } catch (const Error&) {
  }
  return ids;
}

std::vector<std::string> UsedIdsByType(const ObjectRecord& record) {
  const Json& definition = record.definition;
  auto ids_of = [&](std::initializer_list<std::string_view> keys) {
    std::vector<std::string> ids;
    for (std::string_view key : keys) {
      for (const std::string& id : DefinitionIds(definition, key)) AppendIfAbsent(ids, id);
    }
    return ids;
  };
  switch (record.type) {
    case kTypeAttribute:
      return ids_of({"lookupTable", "parent"});
    case kTypeFact:
      return ids_of({"tables"});
    case kTypeMetric: {
      if (!definition.is_object() || !definition.contains("expression")) {
        return ids_of({"fact", "attribute"});
      }
      return CompoundMetricIds(definition["expression"]);
    }
    case kTypeFilter:
      if (!definition.is_object() || !definition.contains("qualification")) return {};
      return CollectQualificationReferences(definition["qualification"]).all_ids;
    case kTypeReportDefinition:
      if (IsCubeSubtype(record.subtype)) return ids_of({"attributes", "metrics", "filter"});
      return ids_of({"rows", "columns", "filter", "cube"});
    case kTypeDocumentDefinition: {
      std::vector<std::string> ids;
      CollectDashboardIds(definition, ids);
      return ids;
    }
    default:
      return {};
  }
}

}  // namespace

std::string_view DataTypeName(DataType type) {
  for (const auto& [name, candidate] : kDataTypeNames) {
    if (candidate == type) return name;
  }
  return "string";
}

std::optional<DataType> ParseDataType(std::string_view name) {
  for (const auto& [candidate, type] : kDataTypeNames) {
    if (candidate == name) return type;
  }
  for (const auto& [alias, type] : kDataTypeAliases) {
    if (alias == name) return type;
  }
  return std::nullopt;
}

const Column* Table::FindColumn(std::string_view column_name) const {
  for (const Column& column : columns) {
    if (column.name == column_name) return &column;
  }
  return nullptr;
}

const AttributeForm* Attribute::FindForm(std::string_view form_name) const {
  for (const AttributeForm& form : forms) {
    if (form.name == form_name) return &form;
  }
  return nullptr;
}

std::string_view AggregateName(AggregateFunction function) {
  for (const auto& [name, candidate] : kAggregateNames) {
    if (candidate == function) return name;
  }
  return "sum";
}

Cube ReportAsCube(const Report& report) {
  return {report.id, report.name, report.attribute_ids, report.metric_ids, report.filter_id};
}

Table ParseTable(const ObjectRecord& record) {
  DefinitionReader reader(record, kTypeTable);
  const Json& definition = reader.definition();
  Table table{
      record.id, record.name, reader.String(definition, "physicalName", "physicalName"), {}};
  table.columns = ReadNamedElements(reader, definition, "columns",
                                    "a table needs at least one column", ReadColumn);
  return table;
}

Attribute ParseAttribute(const ObjectRecord& record) {
  DefinitionReader reader(record, kTypeAttribute);
  const Json& definition = reader.definition();
  Attribute attribute;
  attribute.id = record.id;
  attribute.name = record.name;
  attribute.lookup_table_id = reader.Id(definition, "lookupTable", "lookupTable");
  attribute.parent_id = reader.OptionalId(definition, "parent", "parent");
  attribute.forms = ReadNamedElements(reader, definition, "forms",
                                      "an attribute needs at least its ID form", ReadForm);
  return attribute;
}

Fact ParseFact(const ObjectRecord& record) {
  DefinitionReader reader(record, kTypeFact);
  const Json& definition = reader.definition();
  Fact fact;
  fact.id = record.id;
  fact.name = record.name;
  fact.table_ids = reader.IdList(definition, "tables", "tables");
  if (fact.table_ids.empty()) reader.Fail("tables", "a fact needs at least one table");
  fact.expression = ReadExpression(reader, definition);
  return fact;
}

Metric ParseMetric(const ObjectRecord& record) {
  DefinitionReader reader(record, kTypeMetric);
  const Json& definition = reader.definition();
  Metric metric;
  metric.id = record.id;
  metric.name = record.name;
  metric.is_compound = DefinitionReader::Find(definition, "expression") != nullptr;
  if (metric.is_compound) {
    for (std::string_view simple_field : {"function", "fact", "attribute"}) {
      if (DefinitionReader::Find(definition, simple_field) != nullptr) {
        reader.Fail(simple_field, "a compound metric (one with an expression) has no " +
                                      std::string(simple_field));
      }
    }
    metric.expression = ReadMetricExpression(reader, definition);
  } else {
    ReadSimpleMetric(reader, definition, metric);
  }
  metric.format_string = ReadFormatString(reader, definition);
  return metric;
}

Filter ParseFilter(const ObjectRecord& record) {
  DefinitionReader reader(record, kTypeFilter);
  const Json& qualification = reader.Object(reader.definition(), "qualification", "qualification");
  if (!qualification.contains("operator") && !qualification.contains("type")) {
    reader.Fail("qualification",
                "must be an operator node (with \"operator\" and \"operands\") or an operand (with "
                "\"type\")");
  }
  return Filter{record.id, record.name, qualification};
}

Report ParseReport(const ObjectRecord& record) {
  DefinitionReader reader(record, kTypeReportDefinition);
  if (IsCubeSubtype(record.subtype)) {
    reader.Fail("", "subtype " + std::to_string(record.subtype) + " is a cube, not a report");
  }
  const Json& definition = reader.definition();
  Report report;
  report.id = record.id;
  report.name = record.name;
  report.source = ReadReportSource(reader, definition);
  if (report.source == ReportSource::kCube) {
    report.cube_id = reader.Id(definition, "cube", "cube");
  } else if (DefinitionReader::Find(definition, "cube") != nullptr) {
    reader.Fail("cube", "only a report with source 'cube' names a cube");
  }
  report.attribute_ids = reader.IdList(definition, "rows", "rows");
  report.metric_ids = reader.IdList(definition, "columns", "columns");
  report.filter_id = reader.OptionalId(definition, "filter", "filter");
  return report;
}

Cube ParseCube(const ObjectRecord& record) {
  DefinitionReader reader(record, kTypeReportDefinition);
  if (!IsCubeSubtype(record.subtype)) {
    reader.Fail("", "subtype " + std::to_string(record.subtype) + " is not a cube (776 or 779)");
  }
  const Json& definition = reader.definition();
  Cube cube;
  cube.id = record.id;
  cube.name = record.name;
  cube.attribute_ids = reader.IdList(definition, "attributes", "attributes");
  cube.metric_ids = reader.IdList(definition, "metrics", "metrics");
  cube.filter_id = reader.OptionalId(definition, "filter", "filter");
  return cube;
}

std::vector<std::string> UsedObjectIds(const ObjectRecord& record) {
  std::vector<std::string> ids = UsedIdsByType(record);
  std::optional<std::string> own_id = CanonicalObjectId(record.id);
  ids.erase(std::remove(ids.begin(), ids.end(), own_id.value_or(record.id)), ids.end());
  return ids;
}

bool IsPushedDataset(const ObjectRecord& record) {
  return record.type == kTypeReportDefinition && record.subtype == kSubtypeSuperCube &&
         record.definition.is_object() && record.definition.contains("pushModel");
}

}  // namespace tessera::model
