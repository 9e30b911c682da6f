#include "model/definition_reader.h"

#include <algorithm>

#include "core/error.h"
#include "core/ids.h"
#include "model/object_types.h"

namespace tessera::model {

std::string ObjectTypeWord(int type, int subtype) {
  switch (type) {
    case kTypeTable:
      return "table";
    case kTypeAttribute:
      return "attribute";
    case kTypeFact:
      return "fact";
    case kTypeMetric:
      return "metric";
    case kTypeFilter:
      return "filter";
    case kTypeReportDefinition:
      return IsCubeSubtype(subtype) ? "cube" : "report";
    case kTypeDocumentDefinition:
      return "dashboard";
    default:
      return "object";
  }
}

std::string DescribeObject(const ObjectRecord& record) {
  return ObjectTypeWord(record.type, record.subtype) + " '" +
         (record.name.empty() ? record.id : record.name) + "'";
}

DefinitionReader::DefinitionReader(const ObjectRecord& record, int type)
    : record_(record), subject_(DescribeObject(record)) {
  if (record.type != type) {
    std::string word = ObjectTypeWord(type, 0);
    std::string article = word.front() == 'a' ? "an " : "a ";
    Fail("", "object type " + std::to_string(record.type) + " is not " + article + word +
                 " (type " + std::to_string(type) + ")");
  }
  if (!record.definition.is_object()) Fail("definition", "must be a JSON object");
}

std::string DefinitionReader::Where(std::string_view path) const {
  return path.empty() ? subject_ : subject_ + ": " + std::string(path);
}

void DefinitionReader::Fail(std::string_view path, std::string_view what) const {
  throw Error(ErrorCode::kInvalidInput, Where(path) + ": " + std::string(what));
}

const Json* DefinitionReader::Find(const Json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  auto found = object.find(key);
  if (found == object.end() || found->is_null()) return nullptr;
  return &*found;
}

const Json& DefinitionReader::Required(const Json& object, std::string_view key,
                                       std::string_view path) const {
  const Json* value = Find(object, key);
  if (value == nullptr) Fail(path, "required");
  return *value;
}

std::optional<std::string> DefinitionReader::OptionalString(const Json& object,
                                                            std::string_view key,
                                                            std::string_view path) const {
  const Json* value = Find(object, key);
  if (value == nullptr) return std::nullopt;
  if (!value->is_string()) Fail(path, "must be a string");
  return value->get<std::string>();
}

std::string DefinitionReader::String(const Json& object, std::string_view key,
                                     std::string_view path) const {
  auto value = OptionalString(object, key, path);
  if (!value) Fail(path, "required");
  if (value->empty()) Fail(path, "must not be empty");
  return *value;
}

std::string DefinitionReader::CheckedId(const Json& value, std::string_view path) const {
  if (!value.is_string()) Fail(path, "must be an object id (a string of 32 hex digits)");
  return RequireObjectId(value.get_ref<const std::string&>(), Where(path));
}

std::optional<std::string> DefinitionReader::OptionalId(const Json& object, std::string_view key,
                                                        std::string_view path) const {
  const Json* value = Find(object, key);
  if (value == nullptr) return std::nullopt;
  return CheckedId(*value, path);
}

std::string DefinitionReader::Id(const Json& object, std::string_view key,
                                 std::string_view path) const {
  return CheckedId(Required(object, key, path), path);
}

const Json& DefinitionReader::Array(const Json& object, std::string_view key,
                                    std::string_view path) const {
  const Json& value = Required(object, key, path);
  if (!value.is_array()) Fail(path, "must be an array");
  return value;
}

const Json& DefinitionReader::Object(const Json& object, std::string_view key,
                                     std::string_view path) const {
  const Json& value = Required(object, key, path);
  if (!value.is_object()) Fail(path, "must be an object");
  return value;
}

std::vector<std::string> DefinitionReader::IdList(const Json& object, std::string_view key,
                                                  std::string_view path) const {
  const Json& array = Array(object, key, path);
  std::vector<std::string> ids;
  for (size_t i = 0; i < array.size(); ++i) {
    std::string id = CheckedId(array[i], IndexPath(path, i));
    if (std::find(ids.begin(), ids.end(), id) != ids.end()) {
      Fail(IndexPath(path, i), "'" + id + "' is listed twice");
    }
    ids.push_back(std::move(id));
  }
  return ids;
}

std::string IndexPath(std::string_view path, size_t index) {
  return std::string(path) + "[" + std::to_string(index) + "]";
}

std::string FieldPath(std::string_view path, std::string_view field) {
  if (path.empty()) return std::string(field);
  return std::string(path) + "." + std::string(field);
}

}  // namespace tessera::model
