#include "engine/push/push_model.h"

#include <algorithm>
#include <map>
#include <set>

#include "core/error.h"
#include "core/ids.h"
#include "core/strings.h"

namespace tessera::engine::push {
namespace {

constexpr size_t kMaxTextLength = 250;

struct KnownType {
  std::string_view name;
  model::DataType type;
};

constexpr KnownType kKnownTypes[] = {
    {"STRING", model::DataType::kText},        {"INTEGER", model::DataType::kInteger},
    {"BIGINTEGER", model::DataType::kInteger}, {"BOOL", model::DataType::kBoolean},
    {"BOOLEAN", model::DataType::kBoolean},    {"DOUBLE", model::DataType::kReal},
    {"BIGDECIMAL", model::DataType::kReal},    {"DATE", model::DataType::kDate},
    {"TIME", model::DataType::kText},          {"DATETIME", model::DataType::kDateTime},
};

constexpr std::string_view kTypeList =
    "STRING, INTEGER, BIGINTEGER, BOOL, DOUBLE, BIGDECIMAL, DATE, TIME, DATETIME";

std::string Indexed(std::string_view path, size_t index) {
  return std::string(path) + "[" + std::to_string(index) + "]";
}

// Characters as a person counts them: UTF-8 code points.
size_t CharacterCount(std::string_view text) {
  return static_cast<size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

const Json* Member(const Json& object, std::string_view key) {
  auto it = object.find(std::string(key));
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

std::string StringField(const Json& object, std::string_view key, const std::string& path,
                        bool required) {
  const Json* member = Member(object, key);
  if (!member) {
    if (required) ThrowInvalidInput(path + "." + std::string(key) + ": required field is missing");
    return "";
  }
  if (!member->is_string())
    ThrowInvalidInput(path + "." + std::string(key) + ": expected a string");
  return member->get<std::string>();
}

std::string NonEmptyStringField(const Json& object, std::string_view key, const std::string& path) {
  std::string value = StringField(object, key, path, true);
  if (value.empty()) ThrowInvalidInput(path + "." + std::string(key) + ": must not be empty");
  return value;
}

// The array at `key`, or an empty one when absent.
const Json& ArrayField(const Json& object, std::string_view key, const std::string& path) {
  static const Json kEmpty = Json::array();
  const Json* member = Member(object, key);
  if (!member) return kEmpty;
  if (!member->is_array()) ThrowInvalidInput(path + "." + std::string(key) + ": expected an array");
  return *member;
}

void ExpectObject(const Json& value, const std::string& path) {
  if (!value.is_object()) ThrowInvalidInput(path + ": expected an object");
}

std::string CheckedDatasetName(const Json& body) {
  std::string name = NonEmptyStringField(body, "name", "body");
  if (CharacterCount(name) > kMaxTextLength) {
    ThrowInvalidInput("body.name: at most " + std::to_string(kMaxTextLength) +
                      " characters are allowed");
  }
  if (name.find_first_of("\\\"[]") != std::string::npos) {
    ThrowInvalidInput("body.name: " + Quoted(name) +
                      " contains one of \\ \" [ ], which are not allowed");
  }
  return name;
}

std::string CheckedDescription(const Json& body) {
  std::string description = StringField(body, "description", "body", false);
  if (CharacterCount(description) > kMaxTextLength) {
    ThrowInvalidInput("body.description: at most " + std::to_string(kMaxTextLength) +
                      " characters are allowed");
  }
  return description;
}

std::string CheckedFolderId(const Json& body) {
  std::string folder_id = StringField(body, "folderId", "body", false);
  if (folder_id.empty()) return folder_id;
  return RequireObjectId(folder_id, "body.folderId");
}

PushColumn ParseColumn(const Json& json, const std::string& path) {
  ExpectObject(json, path);
  PushColumn column;
  column.name = NonEmptyStringField(json, "name", path);
  const Json* type = Member(json, "dataType");
  if (!type)
    ThrowInvalidInput(path + ".dataType: required field is missing; expected one of " +
                      std::string(kTypeList));
  if (!type->is_string()) ThrowInvalidInput(path + ".dataType: expected a string");
  column.type_name = ToUpper(type->get<std::string>());
  auto data_type = PushDataType(column.type_name);
  if (!data_type) {
    ThrowInvalidInput(path + ".dataType: " + Quoted(type->get<std::string>()) +
                      " is not a data type; expected one of " + std::string(kTypeList));
  }
  column.type = *data_type;
  return column;
}

PushTable ParseTable(const Json& json, const std::string& path) {
  ExpectObject(json, path);
  PushTable table;
  table.name = NonEmptyStringField(json, "name", path);
  const Json& columns = ArrayField(json, "columnHeaders", path);
  if (columns.empty())
    ThrowInvalidInput(path + ".columnHeaders: table " + Quoted(table.name) +
                      " needs at least one column");
  std::set<std::string> names;
  for (size_t i = 0; i < columns.size(); ++i) {
    PushColumn column = ParseColumn(columns[i], Indexed(path + ".columnHeaders", i));
    if (!names.insert(column.name).second) {
      ThrowInvalidInput(Indexed(path + ".columnHeaders", i) + ": table " + Quoted(table.name) +
                        " has two columns named " + Quoted(column.name));
    }
    table.columns.push_back(std::move(column));
  }
  return table;
}

std::vector<PushTable> ParseTables(const Json& body) {
  const Json& tables_json = ArrayField(body, "tables", "body");
  if (tables_json.empty()) ThrowInvalidInput("body.tables: the model needs at least one table");
  std::vector<PushTable> tables;
  std::set<std::string> names;
  for (size_t i = 0; i < tables_json.size(); ++i) {
    PushTable table = ParseTable(tables_json[i], Indexed("body.tables", i));
    if (!names.insert(table.name).second) {
      ThrowInvalidInput(Indexed("body.tables", i) + ".name: two tables are named " +
                        Quoted(table.name));
    }
    tables.push_back(std::move(table));
  }
  return tables;
}

PushExpression ParseExpression(const Json& json, const std::string& path,
                               const std::vector<PushTable>& tables) {
  ExpectObject(json, path);
  PushExpression expression{NonEmptyStringField(json, "tableName", path),
                            NonEmptyStringField(json, "columnName", path)};
  auto table = std::find_if(tables.begin(), tables.end(),
                            [&](const PushTable& t) { return t.name == expression.table; });
  if (table == tables.end()) {
    ThrowInvalidInput(path + ".tableName: there is no table " + Quoted(expression.table) +
                      " in the model");
  }
  if (table->ColumnIndex(expression.column) < 0) {
    ThrowInvalidInput(path + ".columnName: table " + Quoted(expression.table) + " has no column " +
                      Quoted(expression.column));
  }
  return expression;
}

std::vector<PushExpression> ParseExpressions(const Json& json, const std::string& path,
                                             const std::vector<PushTable>& tables) {
  const Json& list = ArrayField(json, "expressions", path);
  if (list.empty()) ThrowInvalidInput(path + ".expressions: at least one expression is needed");
  std::vector<PushExpression> expressions;
  for (size_t i = 0; i < list.size(); ++i) {
    expressions.push_back(ParseExpression(list[i], Indexed(path + ".expressions", i), tables));
  }
  return expressions;
}

// Adds `more` to `into`, skipping expressions already there.
void MergeExpressions(std::vector<PushExpression>& into, const std::vector<PushExpression>& more) {
  for (const auto& expression : more) {
    if (std::find(into.begin(), into.end(), expression) == into.end()) into.push_back(expression);
  }
}

// A form or metric reads one column of a row of each table it names.
void CheckOneColumnPerTable(const std::vector<PushExpression>& expressions,
                            const std::string& what) {
  std::map<std::string, std::string> column_by_table;
  for (const auto& expression : expressions) {
    auto [it, inserted] = column_by_table.emplace(expression.table, expression.column);
    if (!inserted) {
      ThrowInvalidInput(what + " names two columns of table " + Quoted(expression.table) + ", " +
                        Quoted(it->second) + " and " + Quoted(expression.column) +
                        "; a table can give it one column only");
    }
  }
}

void MergeForm(PushAttribute& attribute, PushForm form) {
  for (auto& existing : attribute.forms) {
    if (existing.category == form.category) {
      MergeExpressions(existing.expressions, form.expressions);
      return;
    }
  }
  attribute.forms.push_back(std::move(form));
}

std::vector<PushAttribute> ParseAttributes(const Json& body, const std::vector<PushTable>& tables) {
  const Json& list = ArrayField(body, "attributes", "body");
  std::vector<PushAttribute> attributes;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string path = Indexed("body.attributes", i);
    ExpectObject(list[i], path);
    std::string name = NonEmptyStringField(list[i], "name", path);
    const Json& forms = ArrayField(list[i], "attributeForms", path);
    if (forms.empty())
      ThrowInvalidInput(path + ".attributeForms: attribute " + Quoted(name) +
                        " needs at least one form");
    auto attribute = std::find_if(attributes.begin(), attributes.end(),
                                  [&](const PushAttribute& a) { return a.name == name; });
    if (attribute == attributes.end()) {
      attributes.push_back(PushAttribute{name, {}});
      attribute = std::prev(attributes.end());
    }
    for (size_t f = 0; f < forms.size(); ++f) {
      const std::string form_path = Indexed(path + ".attributeForms", f);
      ExpectObject(forms[f], form_path);
      PushForm form{ToUpper(NonEmptyStringField(forms[f], "category", form_path)),
                    ParseExpressions(forms[f], form_path, tables)};
      MergeForm(*attribute, std::move(form));
    }
  }
  for (auto& attribute : attributes) {
    std::stable_partition(attribute.forms.begin(), attribute.forms.end(),
                          [](const PushForm& form) { return form.category == "ID"; });
  }
  return attributes;
}

std::vector<PushMetric> ParseMetrics(const Json& body, const std::vector<PushTable>& tables) {
  const Json& list = ArrayField(body, "metrics", "body");
  std::vector<PushMetric> metrics;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string path = Indexed("body.metrics", i);
    ExpectObject(list[i], path);
    std::string name = NonEmptyStringField(list[i], "name", path);
    std::vector<PushExpression> expressions = ParseExpressions(list[i], path, tables);
    auto metric = std::find_if(metrics.begin(), metrics.end(),
                               [&](const PushMetric& m) { return m.name == name; });
    if (metric == metrics.end()) {
      metrics.push_back(PushMetric{name, std::move(expressions)});
    } else {
      MergeExpressions(metric->expressions, expressions);
    }
  }
  return metrics;
}

const PushColumn& ColumnOf(const PushModel& model, const PushExpression& expression) {
  const PushTable* table = model.FindTable(expression.table);
  return table->columns[static_cast<size_t>(table->ColumnIndex(expression.column))];
}

std::string ColumnLabel(const PushExpression& expression, const PushColumn& column) {
  return expression.table + "." + expression.column + " (" + column.type_name + ")";
}

void CheckForm(const PushModel& model, const PushAttribute& attribute, const PushForm& form) {
  const std::string what = "attribute " + Quoted(attribute.name) + ", form " + form.category;
  CheckOneColumnPerTable(form.expressions, what);
  const PushExpression& first = form.expressions.front();
  const PushColumn& first_column = ColumnOf(model, first);
  const auto is_number = [](model::DataType type) {
    return type == model::DataType::kInteger || type == model::DataType::kReal;
  };
  for (const auto& expression : form.expressions) {
    const PushColumn& column = ColumnOf(model, expression);
    const bool same = column.type == first_column.type &&
                      (column.type_name == "TIME") == (first_column.type_name == "TIME");
    if (!same && !(is_number(column.type) && is_number(first_column.type))) {
      ThrowInvalidInput(what +
                        " mixes columns of different types: " + ColumnLabel(first, first_column) +
                        " and " + ColumnLabel(expression, column));
    }
  }
}

void CheckMetric(const PushModel& model, const PushMetric& metric) {
  const std::string what = "metric " + Quoted(metric.name);
  CheckOneColumnPerTable(metric.expressions, what);
  size_t booleans = 0;
  for (const auto& expression : metric.expressions) {
    const PushColumn& column = ColumnOf(model, expression);
    if (column.type == model::DataType::kBoolean) {
      ++booleans;
    } else if (column.type != model::DataType::kInteger && column.type != model::DataType::kReal) {
      ThrowInvalidInput(
          what + " reads " + ColumnLabel(expression, column) +
          "; a metric needs a numeric column (INTEGER, BIGINTEGER, DOUBLE, BIGDECIMAL) or a "
          "BOOL column. Make the column an attribute instead");
    }
  }
  if (booleans != 0 && booleans != metric.expressions.size()) {
    ThrowInvalidInput(
        what + " mixes BOOL and numeric columns; its columns must be all numeric or all BOOL");
  }
}

void CheckNames(const PushModel& model) {
  for (const auto& attribute : model.attributes) {
    for (const auto& metric : model.metrics) {
      if (attribute.name == metric.name) {
        ThrowInvalidInput(Quoted(metric.name) +
                          " names both an attribute and a metric; names must differ");
      }
    }
  }
  if (model.attributes.empty() && model.metrics.empty()) {
    ThrowInvalidInput("body: the model defines no attribute and no metric");
  }
}

Json ExpressionsJson(const std::vector<PushExpression>& expressions) {
  Json list = Json::array();
  for (const auto& expression : expressions) {
    list.push_back({{"tableName", expression.table}, {"columnName", expression.column}});
  }
  return list;
}

}  // namespace

int PushTable::ColumnIndex(std::string_view column_name) const {
  for (size_t i = 0; i < columns.size(); ++i) {
    if (columns[i].name == column_name) return static_cast<int>(i);
  }
  return -1;
}

const PushTable* PushModel::FindTable(std::string_view table_name) const {
  for (const auto& table : tables) {
    if (table.name == table_name) return &table;
  }
  return nullptr;
}

std::optional<model::DataType> PushDataType(std::string_view type_name) {
  for (const auto& known : kKnownTypes) {
    if (EqualsIgnoreCase(known.name, type_name)) return known.type;
  }
  return std::nullopt;
}

PushModel ParsePushModel(const Json& body) {
  if (!body.is_object()) ThrowInvalidInput("body: expected a JSON object");
  PushModel model;
  model.name = CheckedDatasetName(body);
  model.description = CheckedDescription(body);
  model.folder_id = CheckedFolderId(body);
  model.tables = ParseTables(body);
  model.attributes = ParseAttributes(body, model.tables);
  model.metrics = ParseMetrics(body, model.tables);
  for (const auto& attribute : model.attributes) {
    for (const auto& form : attribute.forms) CheckForm(model, attribute, form);
  }
  for (const auto& metric : model.metrics) CheckMetric(model, metric);
  CheckNames(model);
  return model;
}

Json PushModelToJson(const PushModel& model) {
  Json tables = Json::array();
  for (const auto& table : model.tables) {
    Json columns = Json::array();
    for (const auto& column : table.columns) {
      columns.push_back({{"name", column.name}, {"dataType", column.type_name}});
    }
    tables.push_back({{"name", table.name}, {"columnHeaders", std::move(columns)}});
  }
  Json attributes = Json::array();
  for (const auto& attribute : model.attributes) {
    Json forms = Json::array();
    for (const auto& form : attribute.forms) {
      forms.push_back(
          {{"category", form.category}, {"expressions", ExpressionsJson(form.expressions)}});
    }
    attributes.push_back({{"name", attribute.name}, {"attributeForms", std::move(forms)}});
  }
  Json metrics = Json::array();
  for (const auto& metric : model.metrics) {
    metrics.push_back(
        {{"name", metric.name}, {"expressions", ExpressionsJson(metric.expressions)}});
  }
  return {{"name", model.name},
          {"description", model.description},
          {"folderId", model.folder_id},
          {"tables", std::move(tables)},
          {"attributes", std::move(attributes)},
          {"metrics", std::move(metrics)}};
}

// The stored form is the request form, already merged and normalised, so reading it is parsing
// it again: the result is the model that was stored.
PushModel PushModelFromJson(const Json& stored) { return ParsePushModel(stored); }

model::DataType FormType(const PushModel& model, const PushForm& form) {
  model::DataType type = ColumnOf(model, form.expressions.front()).type;
  for (const auto& expression : form.expressions) {
    if (ColumnOf(model, expression).type == model::DataType::kReal) type = model::DataType::kReal;
  }
  return type;
}

bool IsBooleanMetric(const PushModel& model, const PushMetric& metric) {
  return ColumnOf(model, metric.expressions.front()).type == model::DataType::kBoolean;
}

std::vector<size_t> AttributeColumnsOf(const PushModel& model, std::string_view table_name) {
  const PushTable* table = model.FindTable(table_name);
  if (!table) return {};
  std::set<size_t> columns;
  for (const auto& attribute : model.attributes) {
    for (const auto& form : attribute.forms) {
      for (const auto& expression : form.expressions) {
        if (expression.table == table_name) {
          columns.insert(static_cast<size_t>(table->ColumnIndex(expression.column)));
        }
      }
    }
  }
  return {columns.begin(), columns.end()};
}

}  // namespace tessera::engine::push
