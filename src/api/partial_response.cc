#include "api/partial_response.h"

#include <cctype>

#include "core/error.h"
#include "core/strings.h"

namespace tessera::api {

namespace {

constexpr const char* kInvalidFieldsMessage =
    "Invalid \"fields\" param. It should be either empty, or a comma-separated list of field "
    "names without whitespace. A field name can only contain alphanumeric character and must "
    "start with a letter.";

// Letters, digits and underscores, starting with a letter: the reference server takes
// snake_case names such as `ext_type` (the Python client sends them) though its message speaks
// of alphanumeric characters only.
bool IsFieldName(std::string_view name) {
  if (name.empty() || !std::isalpha(static_cast<unsigned char>(name[0]))) return false;
  for (unsigned char c : name) {
    if (!std::isalnum(c) && c != '_') return false;
  }
  return true;
}

void KeepFields(Json& object, const FieldSelection& fields) {
  if (!object.is_object()) return;
  Json kept = Json::object();
  for (auto& [key, value] : object.items()) {
    if (fields.count(key)) kept[key] = std::move(value);
  }
  object = std::move(kept);
}

MetricValueParts ParseMetricValueExclusions(const http::QueryParams& query) {
  MetricValueParts parts;
  for (const auto& value : query.GetList("fields")) {
    for (const auto& rule : Split(value, ',')) {
      const std::string_view trimmed = Trim(rule);
      if (trimmed == "-data.metricValues.raw") parts.raw = false;
      if (trimmed == "-data.metricValues.formatted") parts.formatted = false;
      if (trimmed == "-data.metricValues.extras") parts.extras = false;
    }
  }
  return parts;
}

void SelectObjectType(DatasetObjectTypes& types, std::string_view name) {
  if (name == "tables") {
    types.tables = true;
  } else if (name == "columns") {
    types.columns = true;
  } else if (name == "attributes") {
    types.attributes = true;
  } else if (name == "metrics") {
    types.metrics = true;
  } else {
    ThrowInvalidInput("fields: '" + std::string(name) +
                      "' is not an object type of a dataset; expected tables, columns, "
                      "attributes or metrics");
  }
}

DatasetObjectTypes ParseDatasetObjectTypes(const http::QueryParams& query) {
  const std::vector<std::string> listed = query.GetList("fields");
  if (listed.empty()) return {};
  DatasetObjectTypes types{false, false, false, false};
  for (const auto& piece : listed) SelectObjectType(types, Trim(piece));
  return types;
}

}  // namespace

std::optional<FieldSelection> ParseFieldsParameter(const http::QueryParams& query) {
  FieldSelection fields;
  bool any_value = false;
  for (const auto& [name, value] : query.fields()) {
    if (name != "fields" || value.empty()) continue;
    any_value = true;
    for (const auto& piece : Split(value, ',')) {
      if (!IsFieldName(piece)) throw Error(ErrorCode::kInvalidInput, kInvalidFieldsMessage);
      fields.insert(piece);
    }
  }
  if (!any_value) return std::nullopt;
  return fields;
}

std::string_view FieldsDialectName(FieldsDialect dialect) {
  switch (dialect) {
    case FieldsDialect::kRootFields:
      return "rootFields";
    case FieldsDialect::kMetricValueExclusions:
      return "metricValueExclusions";
    case FieldsDialect::kDatasetObjectTypes:
      return "datasetObjectTypes";
    case FieldsDialect::kNone:
      break;
  }
  return "none";
}

FieldsParameter ParseFields(FieldsDialect dialect, const http::QueryParams& query) {
  FieldsParameter fields;
  switch (dialect) {
    case FieldsDialect::kRootFields:
      fields.root_fields = ParseFieldsParameter(query);
      break;
    case FieldsDialect::kMetricValueExclusions:
      fields.metric_values = ParseMetricValueExclusions(query);
      break;
    case FieldsDialect::kDatasetObjectTypes:
      fields.object_types = ParseDatasetObjectTypes(query);
      break;
    case FieldsDialect::kNone:
      break;
  }
  return fields;
}

void ApplyFieldSelection(Json& body, const FieldSelection& fields) {
  if (body.is_array()) {
    for (auto& element : body) KeepFields(element, fields);
  } else {
    KeepFields(body, fields);
  }
}

}  // namespace tessera::api
