#include "core/json.h"

#include <algorithm>

#include "core/array_stream_callback.h"
#include "core/error.h"
#include "core/strings.h"

namespace tessera {

Json::parser_callback_t DepthLimitedCallback(Json::parser_callback_t inner) {
  return [inner = std::move(inner)](int depth, Json::parse_event_t event, Json& parsed) {
    const bool opens =
        event == Json::parse_event_t::object_start || event == Json::parse_event_t::array_start;
    if (opens && depth >= kMaxJsonDepth) {
      throw Error(ErrorCode::kInvalidInput, "Invalid JSON: objects and arrays nest deeper than " +
                                                std::to_string(kMaxJsonDepth) +
                                                " levels; at most " +
                                                std::to_string(kMaxJsonDepth) + " are accepted");
    }
    return inner ? inner(depth, event, parsed) : true;
  };
}

void ThrowInvalidJson(const std::exception& parse_failure) {
  constexpr size_t kShownChars = 160;  // a 10 MB number must not become a 10 MB message
  std::string what = parse_failure.what();
  if (what.size() > kShownChars) what = what.substr(0, kShownChars) + "...";
  throw Error(ErrorCode::kInvalidInput, "Invalid JSON: " + what);
}

Json ParseJson(std::string_view text) {
  try {
    return Json::parse(text.begin(), text.end(), DepthLimitedCallback());
  } catch (const nlohmann::json::exception& e) {
    ThrowInvalidJson(e);
  }
}

StreamedArray ParseJsonStreamingArray(std::string_view text,
                                      const std::vector<std::string>& array_path,
                                      const std::function<void(Json element)>& on_element) {
  ArrayStreamCallback callback(array_path, on_element);
  try {
    StreamedArray result;
    result.document =
        Json::parse(text.begin(), text.end(), DepthLimitedCallback(callback.AsParserCallback()));
    result.found = callback.found();
    return result;
  } catch (const nlohmann::json::exception& e) {
    ThrowInvalidJson(e);
  }
}

std::string DumpJson(const Json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string MemberPath(std::string_view path, std::string_view key) {
  std::string name(path);
  if (!name.empty()) name += '.';
  name += key;
  return name;
}

std::string ElementPath(std::string_view path, size_t index) {
  return std::string(path) + "[" + std::to_string(index) + "]";
}

const Json* FindMember(const Json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

void FailAt(std::string_view path, std::string_view what) {
  throw Error(ErrorCode::kInvalidInput, std::string(path) + ": " + std::string(what));
}

void FailMissingAt(std::string_view path) {
  throw Error(ErrorCode::kMissingField, std::string(path) + ": required field is missing");
}

const Json& ExpectObject(const Json& value, std::string_view path) {
  if (!value.is_object()) FailAt(path, "expected an object");
  return value;
}

const Json& ExpectArray(const Json& value, std::string_view path, std::string_view items) {
  if (value.is_array()) return value;
  if (items.empty()) FailAt(path, "expected an array");
  FailAt(path, "expected an array of " + std::string(items));
}

const std::string& ExpectString(const Json& value, std::string_view path) {
  if (!value.is_string()) FailAt(path, "expected a string");
  return value.get_ref<const std::string&>();
}

int64_t ExpectInt(const Json& value, std::string_view path) {
  if (!value.is_number_integer()) FailAt(path, "expected an integer");
  return value.get<int64_t>();
}

bool ExpectBool(const Json& value, std::string_view path) {
  if (!value.is_boolean()) FailAt(path, "expected true or false");
  return value.get<bool>();
}

std::optional<std::string> OptionalString(const Json& object, std::string_view key,
                                          std::string_view path) {
  const Json* member = FindMember(object, key);
  if (!member) return std::nullopt;
  return ExpectString(*member, MemberPath(path, key));
}

std::string RequiredString(const Json& object, std::string_view key, std::string_view path) {
  auto value = OptionalString(object, key, path);
  if (!value) FailMissingAt(MemberPath(path, key));
  return *value;
}

std::optional<bool> OptionalBool(const Json& object, std::string_view key, std::string_view path) {
  const Json* member = FindMember(object, key);
  if (!member) return std::nullopt;
  return ExpectBool(*member, MemberPath(path, key));
}

std::optional<int64_t> OptionalInt(const Json& object, std::string_view key,
                                   std::string_view path) {
  const Json* member = FindMember(object, key);
  if (!member) return std::nullopt;
  return ExpectInt(*member, MemberPath(path, key));
}

const Json& ObjectOrEmpty(const Json& object, std::string_view key, std::string_view path) {
  static const Json kEmpty = Json::object();
  const Json* member = FindMember(object, key);
  if (!member) return kEmpty;
  return ExpectObject(*member, MemberPath(path, key));
}

void RequireKnownKeys(const Json& object, const std::vector<std::string_view>& accepted,
                      std::string_view what) {
  if (!object.is_object()) return;
  for (const auto& [key, value] : object.items()) {
    if (std::find(accepted.begin(), accepted.end(), key) != accepted.end()) continue;
    std::string list;
    for (std::string_view name : accepted) list += (list.empty() ? "" : ", ") + std::string(name);
    throw Error(ErrorCode::kInvalidInput, "'" + Abbreviate(key, 60) + "' is not a key of " +
                                              std::string(what) + "; accepted keys: " + list);
  }
}

}  // namespace tessera
