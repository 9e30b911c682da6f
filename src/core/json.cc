#include "core/json.h"

#include "core/array_stream_callback.h"
#include "core/error.h"

namespace tessera {

namespace {

std::string FieldName(std::string_view path, std::string_view key) {
  std::string name(path);
  if (!name.empty()) name += '.';
  name += key;
  return name;
}

const Json* Member(const Json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(std::string(key));
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

}  // namespace

Json ParseJson(std::string_view text) {
  try {
    return Json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(ErrorCode::kInvalidInput, std::string("Invalid JSON: ") + e.what());
  }
}

StreamedArray ParseJsonStreamingArray(std::string_view text,
                                      const std::vector<std::string>& array_path,
                                      const std::function<void(Json element)>& on_element) {
  ArrayStreamCallback callback(array_path, on_element);
  try {
    StreamedArray result;
    result.document = Json::parse(text.begin(), text.end(), callback.AsParserCallback());
    result.found = callback.found();
    return result;
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(ErrorCode::kInvalidInput, std::string("Invalid JSON: ") + e.what());
  }
}

std::string DumpJson(const Json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::optional<std::string> OptionalString(const Json& object, std::string_view key,
                                          std::string_view path) {
  const Json* member = Member(object, key);
  if (!member) return std::nullopt;
  if (!member->is_string()) {
    throw Error(ErrorCode::kInvalidInput, FieldName(path, key) + ": expected a string");
  }
  return member->get<std::string>();
}

std::string RequiredString(const Json& object, std::string_view key, std::string_view path) {
  auto value = OptionalString(object, key, path);
  if (!value) {
    throw Error(ErrorCode::kMissingField, FieldName(path, key) + ": required field is missing");
  }
  return *value;
}

std::optional<bool> OptionalBool(const Json& object, std::string_view key, std::string_view path) {
  const Json* member = Member(object, key);
  if (!member) return std::nullopt;
  if (!member->is_boolean()) {
    throw Error(ErrorCode::kInvalidInput, FieldName(path, key) + ": expected true or false");
  }
  return member->get<bool>();
}

std::optional<int64_t> OptionalInt(const Json& object, std::string_view key,
                                   std::string_view path) {
  const Json* member = Member(object, key);
  if (!member) return std::nullopt;
  if (!member->is_number_integer()) {
    throw Error(ErrorCode::kInvalidInput, FieldName(path, key) + ": expected an integer");
  }
  return member->get<int64_t>();
}

}  // namespace tessera
