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

void ApplyFieldSelection(Json& body, const FieldSelection& fields) {
  if (body.is_array()) {
    for (auto& element : body) KeepFields(element, fields);
  } else {
    KeepFields(body, fields);
  }
}

}  // namespace tessera::api
