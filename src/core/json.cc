#include "core/json.h"

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
  // nlohmann's callback reports a key at the depth of its value, and an element of an array
  // opened at depth d at depth d + 1; returning false drops the value just parsed.
  const int array_depth = static_cast<int>(array_path.size());
  std::vector<std::string> keys(array_path.size() + 1);
  bool inside = false;
  bool found = false;
  auto on_path = [&] {
    for (int depth = 1; depth <= array_depth; ++depth) {
      if (keys[static_cast<size_t>(depth)] != array_path[static_cast<size_t>(depth - 1)]) {
        return false;
      }
    }
    return true;
  };
  auto callback = [&](int depth, Json::parse_event_t event, Json& parsed) {
    using Event = Json::parse_event_t;
    if (event == Event::key && depth <= array_depth) {
      keys[static_cast<size_t>(depth)] = parsed.get<std::string>();
      // Keys deeper than this one named members of an earlier value.
      for (size_t deeper = static_cast<size_t>(depth) + 1; deeper < keys.size(); ++deeper) {
        keys[deeper].clear();
      }
      return true;
    }
    if (depth == array_depth && event == Event::array_start && on_path()) {
      inside = found = true;
    } else if (depth == array_depth && event == Event::array_end) {
      inside = false;
    } else if (inside && depth == array_depth + 1 &&
               (event == Event::object_end || event == Event::array_end || event == Event::value)) {
      on_element(std::move(parsed));
      return false;
    }
    return true;
  };
  try {
    StreamedArray result;
    result.document = Json::parse(text.begin(), text.end(), callback);
    result.found = found;
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
