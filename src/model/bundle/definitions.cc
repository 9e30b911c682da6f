#include "model/bundle/definitions.h"

#include <array>
#include <span>

#include "core/error.h"
#include "model/bundle/dashboard.h"
#include "model/bundle/emit.h"
#include "model/bundle/qualification.h"
#include "model/expression.h"
#include "model/semantic.h"

namespace tessera::model::bundle {
namespace {

constexpr std::array<std::string_view, 6> kFunctions = {"sum", "avg",   "min",
                                                        "max", "count", "count_distinct"};

using Nodes = std::vector<YAML::Node>;

// Reading.

class DefinitionReader {
 public:
  DefinitionReader(const YAML::Node& node, const YamlFields& fields, const BundleIndex& index)
      : node_(node), fields_(fields), index_(index) {}

  Json Table() const {
    Json columns = Json::array();
    for (const auto& column : fields_.Sequence(node_, "columns", true).value_or(Nodes{})) {
      if (fields_.ExpectMap(column, "a column {name, type}")) columns.push_back(Column(column));
    }
    const std::string name = fields_.String(node_, "name", false).value_or("");
    return {{"physicalName", fields_.String(node_, "physical_name", false).value_or(name)},
            {"columns", columns}};
  }

  Json Attribute() const {
    Json definition = {{"lookupTable", Reference("table", BundleKind::kTable, true)}};
    if (auto parent = OptionalReference("parent", BundleKind::kAttribute)) {
      definition["parent"] = *parent;
    }
    Json forms = Json::array();
    const auto items = fields_.Sequence(node_, "forms", true);
    for (const auto& form : items.value_or(Nodes{})) {
      if (!fields_.ExpectMap(form, "a form {name, column}")) continue;
      forms.push_back({{"name", fields_.String(form, "name", true).value_or("")},
                       {"column", fields_.String(form, "column", true).value_or("")}});
    }
    if (items && items->empty()) fields_.Problem(node_["forms"], "forms: the ID form is required");
    definition["forms"] = forms;
    return definition;
  }

  Json Fact() const {
    const Json tables = ReferenceList("tables", BundleKind::kTable, true);
    // A missing key reads as an invalid node: IsDefined() first, the other tests would throw.
    if (const YAML::Node listed = node_["tables"];
        tables.empty() && listed.IsDefined() && listed.IsSequence()) {
      fields_.Problem(node_["tables"], "tables: at least one table is required");
    }
    const std::optional<std::string> expression = fields_.String(node_, "expression", true);
    if (expression) {
      try {
        ParseArithmetic(*expression);
      } catch (const Error& e) {
        fields_.Problem(node_["expression"], std::string(e.message()));
      }
    }
    return {{"tables", tables}, {"expression", expression.value_or("")}};
  }

  Json Metric() const {
    const bool is_compound = node_["expression"].IsDefined();
    if (is_compound && node_["function"].IsDefined()) {
      fields_.Problem(node_, "a metric has either a function or an expression, not both");
    }
    Json definition = is_compound ? Json{{"expression", CompoundExpression()}} : SimpleMetric();
    if (auto format = fields_.String(node_, "format", false)) {
      definition["format"] = {{"formatString", *format}};
    }
    return definition;
  }

  Json Filter() const {
    const YAML::Node qualification = node_["qualification"];
    if (!qualification.IsDefined() || qualification.IsNull()) {
      fields_.Problem(node_, "qualification: required");
      return {{"qualification", nullptr}};
    }
    return {{"qualification", QualificationFromYaml(qualification, fields_, index_)}};
  }

  Json Report() const {
    const std::string source = fields_.String(node_, "source", false).value_or("warehouse");
    Json definition = {{"source", source}};
    if (source == "cube") {
      definition["cube"] = Reference("cube", BundleKind::kCube, true);
    } else if (source != "warehouse") {
      fields_.Problem(node_["source"], "source: '" + source + "' is not warehouse or cube");
    } else if (node_["cube"].IsDefined()) {
      fields_.Problem(node_["cube"], "cube: only a report with source: cube names a cube");
    }
    definition["rows"] = ReferenceList("rows", BundleKind::kAttribute, false);
    definition["columns"] = ReferenceList("columns", BundleKind::kMetric, false);
    AddFilter(definition);
    return definition;
  }

  Json Cube() const {
    Json definition = {{"attributes", ReferenceList("attributes", BundleKind::kAttribute, false)},
                       {"metrics", ReferenceList("metrics", BundleKind::kMetric, false)}};
    AddFilter(definition);
    return definition;
  }

 private:
  Json Column(const YAML::Node& column) const {
    const std::optional<std::string> type = fields_.String(column, "type", true);
    std::optional<DataType> data_type = type ? ParseDataType(*type) : std::nullopt;
    if (type && !data_type) {
      fields_.Problem(column["type"], "type: '" + *type +
                                          "' is not a column type; expected integer, real, "
                                          "string, date, datetime or boolean");
    }
    return {{"name", fields_.String(column, "name", true).value_or("")},
            {"dataType", data_type ? std::string(DataTypeName(*data_type)) : type.value_or("")}};
  }

  Json SimpleMetric() const {
    const std::string function = fields_.String(node_, "function", true).value_or("");
    if (!function.empty() &&
        std::find(kFunctions.begin(), kFunctions.end(), function) == kFunctions.end()) {
      fields_.Problem(node_["function"],
                      "function: '" + function +
                          "' is not a function; expected sum, avg, min, max, count or "
                          "count_distinct (or give an expression)");
    }
    if (function == "count_distinct") {
      return {{"function", function},
              {"attribute", Reference("attribute", BundleKind::kAttribute, true)}};
    }
    return {{"function", function}, {"fact", Reference("fact", BundleKind::kFact, true)}};
  }

  std::string CompoundExpression() const {
    const std::optional<std::string> text = fields_.String(node_, "expression", true);
    if (!text) return "";
    const YAML::Node at = node_["expression"];
    try {
      return RenameReferences(
                 ParseArithmetic(*text),
                 [&](const std::string& reference) {
                   std::optional<std::string> id = index_.Resolve(BundleKind::kMetric, reference);
                   if (!id)
                     fields_.Problem(at, "'" + reference + "' is not a metric of this bundle");
                   return id.value_or(reference);
                 })
          .text;
    } catch (const Error& e) {
      fields_.Problem(at, std::string(e.message()));
      return *text;
    }
  }

  void AddFilter(Json& definition) const {
    if (auto filter = OptionalReference("filter", BundleKind::kFilter)) {
      definition["filter"] = *filter;
    }
  }

  std::string ResolveNode(const YAML::Node& value, BundleKind kind) const {
    const std::optional<std::string> text =
        fields_.ScalarText(value, "the name of " + KindWithArticle(kind));
    if (!text) return "";
    std::optional<std::string> id = index_.Resolve(kind, *text);
    if (!id) {
      fields_.Problem(value, "'" + *text + "' is not " + KindWithArticle(kind) + " of this bundle");
    }
    return id.value_or(*text);
  }

  std::string Reference(const std::string& key, BundleKind kind, bool required) const {
    const YAML::Node value = node_[key];
    if (!value.IsDefined() || value.IsNull()) {
      if (required) fields_.Problem(node_, key + ": required");
      return "";
    }
    return ResolveNode(value, kind);
  }

  std::optional<std::string> OptionalReference(const std::string& key, BundleKind kind) const {
    const YAML::Node value = node_[key];
    if (!value.IsDefined() || value.IsNull()) return std::nullopt;
    return ResolveNode(value, kind);
  }

  Json ReferenceList(const std::string& key, BundleKind kind, bool required) const {
    Json ids = Json::array();
    for (const auto& item : fields_.Sequence(node_, key, required).value_or(Nodes{})) {
      ids.push_back(ResolveNode(item, kind));
    }
    return ids;
  }

  const YAML::Node& node_;
  const YamlFields& fields_;
  const BundleIndex& index_;
};

// Writing.

class DefinitionWriter {
 public:
  DefinitionWriter(YAML::Emitter& out, const ObjectRecord& record, const BundleIndex& index)
      : out_(out), definition_(record.definition), name_(record.name), index_(index) {}

  void Table() {
    const std::string physical_name = definition_.value("physicalName", "");
    if (physical_name != name_) EmitField(out_, "physical_name", physical_name);
    out_ << YAML::Key << "columns" << YAML::Value << YAML::BeginSeq;
    for (const auto& column : definition_.value("columns", Json::array())) {
      out_ << YAML::Flow << YAML::BeginMap;
      EmitField(out_, "name", column.value("name", ""));
      EmitField(out_, "type", column.value("dataType", ""));
      out_ << YAML::EndMap;
    }
    out_ << YAML::EndSeq;
  }

  void Attribute() {
    Name("table", definition_.value("lookupTable", ""));
    if (definition_.contains("parent")) Name("parent", definition_.at("parent"));
    out_ << YAML::Key << "forms" << YAML::Value << YAML::BeginSeq;
    for (const auto& form : definition_.value("forms", Json::array())) {
      out_ << YAML::Flow << YAML::BeginMap;
      EmitField(out_, "name", form.value("name", ""));
      EmitField(out_, "column", form.value("column", ""));
      out_ << YAML::EndMap;
    }
    out_ << YAML::EndSeq;
  }

  void Fact() {
    EmitNameList(out_, "tables", definition_.value("tables", Json::array()), index_);
    out_ << YAML::Key << "expression" << YAML::Value;
    EmitText(out_, definition_.value("expression", ""));
  }

  void Metric() {
    if (definition_.contains("expression")) {
      out_ << YAML::Key << "expression" << YAML::Value;
      EmitText(out_, CompoundExpressionWithNames());
    } else {
      EmitField(out_, "function", definition_.value("function", ""));
      if (definition_.contains("fact")) Name("fact", definition_.at("fact"));
      if (definition_.contains("attribute")) Name("attribute", definition_.at("attribute"));
    }
    if (definition_.contains("format")) {
      EmitField(out_, "format", definition_.at("format").value("formatString", ""));
    }
  }

  void Filter() {
    out_ << YAML::Key << "qualification" << YAML::Value;
    EmitQualification(out_, definition_.at("qualification"), index_);
  }

  void Report() {
    if (definition_.value("source", "warehouse") == "cube") {
      EmitField(out_, "source", "cube");
      Name("cube", definition_.value("cube", ""));
    }
    EmitNameList(out_, "rows", definition_.value("rows", Json::array()), index_);
    EmitNameList(out_, "columns", definition_.value("columns", Json::array()), index_);
    if (definition_.contains("filter")) Name("filter", definition_.at("filter"));
  }

  void Cube() {
    EmitNameList(out_, "attributes", definition_.value("attributes", Json::array()), index_);
    EmitNameList(out_, "metrics", definition_.value("metrics", Json::array()), index_);
    if (definition_.contains("filter")) Name("filter", definition_.at("filter"));
  }

 private:
  void Name(const std::string& key, const Json& id) {
    out_ << YAML::Key << key << YAML::Value;
    EmitText(out_, id.is_string() ? index_.NameOf(id.get<std::string>()) : id.dump());
  }

  std::string CompoundExpressionWithNames() const {
    const std::string text = definition_.value("expression", "");
    try {
      return RenameReferences(ParseArithmetic(text),
                              [&](const std::string& id) { return index_.NameOf(id); })
          .text;
    } catch (const Error&) {
      return text;
    }
  }

  YAML::Emitter& out_;
  const Json& definition_;
  const std::string& name_;
  const BundleIndex& index_;
};

}  // namespace

Json DefinitionFromYaml(BundleKind kind, const YAML::Node& node, const YamlFields& fields,
                        const BundleIndex& index) {
  const DefinitionReader reader(node, fields, index);
  switch (kind) {
    case BundleKind::kTable:
      return reader.Table();
    case BundleKind::kAttribute:
      return reader.Attribute();
    case BundleKind::kFact:
      return reader.Fact();
    case BundleKind::kMetric:
      return reader.Metric();
    case BundleKind::kFilter:
      return reader.Filter();
    case BundleKind::kCube:
      return reader.Cube();
    case BundleKind::kReport:
      return reader.Report();
    case BundleKind::kDashboard:
      return DashboardFromYaml(node, fields, index);
  }
  return Json::object();
}

void EmitDefinition(YAML::Emitter& out, BundleKind kind, const ObjectRecord& record,
                    const BundleIndex& index) {
  DefinitionWriter writer(out, record, index);
  switch (kind) {
    case BundleKind::kTable:
      return writer.Table();
    case BundleKind::kAttribute:
      return writer.Attribute();
    case BundleKind::kFact:
      return writer.Fact();
    case BundleKind::kMetric:
      return writer.Metric();
    case BundleKind::kFilter:
      return writer.Filter();
    case BundleKind::kCube:
      return writer.Cube();
    case BundleKind::kReport:
      return writer.Report();
    case BundleKind::kDashboard:
      return EmitDashboard(out, record.definition, index);
  }
}

}  // namespace tessera::model::bundle
