#include "model/bundle/yaml.h"

#include <charconv>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

namespace tessera::model::bundle {
namespace {

std::string LineOf(const YAML::Mark& mark) { return std::to_string(mark.line + 1); }

bool IsPlainScalar(const YAML::Node& node) { return node.IsScalar() && node.Tag() == "?"; }

}  // namespace

std::string YamlLocation(std::string_view file, const YAML::Node& node) {
  std::string location(file);
  if (!node.IsDefined()) return location;
  const YAML::Mark mark = node.Mark();
  if (mark.is_null()) return location;
  return location + ":" + LineOf(mark);
}

std::optional<YAML::Node> LoadYamlFile(const std::filesystem::path& path, const std::string& file,
                                       bool required, BundleProblems& problems) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (!required) return YAML::Node();
    problems.Add(file + ": missing; every bundle needs one");
    return std::nullopt;
  }
  std::stringstream text;
  text << in.rdbuf();
  try {
    return YAML::Load(text.str());
  } catch (const YAML::Exception& e) {
    problems.Add(file + ":" + LineOf(e.mark) + ": invalid YAML: " + e.msg);
    return std::nullopt;
  }
}

void YamlFields::Problem(const YAML::Node& node, std::string_view message) const {
  problems_.Add(Location(node) + ": " + std::string(message));
}

bool YamlFields::ExpectMap(const YAML::Node& node, std::string_view what) const {
  if (node.IsMap()) return true;
  Problem(node, "expected " + std::string(what) + " (a mapping of keys to values)");
  return false;
}

std::optional<std::string> YamlFields::String(const YAML::Node& map, std::string_view key,
                                              bool required) const {
  const YAML::Node value = map[std::string(key)];
  if (!value.IsDefined() || value.IsNull()) {
    if (required) Problem(map, std::string(key) + ": required");
    return std::nullopt;
  }
  if (!value.IsScalar()) {
    Problem(value, std::string(key) + ": expected a string");
    return std::nullopt;
  }
  return value.Scalar();
}

std::optional<bool> YamlFields::Bool(const YAML::Node& map, std::string_view key) const {
  const YAML::Node value = map[std::string(key)];
  if (!value.IsDefined() || value.IsNull()) return std::nullopt;
  const Json json = YamlToJson(value);
  if (!json.is_boolean()) {
    Problem(value, std::string(key) + ": expected true or false");
    return std::nullopt;
  }
  return json.get<bool>();
}

std::optional<std::vector<YAML::Node>> YamlFields::Sequence(const YAML::Node& map,
                                                            std::string_view key,
                                                            bool required) const {
  const YAML::Node value = map[std::string(key)];
  if (!value.IsDefined() || value.IsNull()) {
    if (!required) return std::vector<YAML::Node>{};
    Problem(map, std::string(key) + ": required");
    return std::nullopt;
  }
  if (!value.IsSequence()) {
    Problem(value, std::string(key) + ": expected a list");
    return std::nullopt;
  }
  return std::vector<YAML::Node>(value.begin(), value.end());
}

std::optional<std::string> YamlFields::ScalarText(const YAML::Node& node,
                                                  std::string_view what) const {
  if (node.IsScalar()) return node.Scalar();
  Problem(node, "expected " + std::string(what));
  return std::nullopt;
}

Json PlainScalarToJson(const std::string& text) {
  static const std::regex kInteger("[-+]?[0-9]+");
  static const std::regex kDecimal("[-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?");
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  if (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL") {
    return nullptr;
  }
  if (std::regex_match(text, kInteger)) {
    int64_t value = 0;
    const char* begin = text.data() + (text.front() == '+' ? 1 : 0);
    const auto result = std::from_chars(begin, text.data() + text.size(), value);
    if (result.ec == std::errc()) return value;
  }
  if (std::regex_match(text, kDecimal)) return std::strtod(text.c_str(), nullptr);
  return text;
}

Json YamlToJson(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return nullptr;
  if (node.IsScalar())
    return IsPlainScalar(node) ? PlainScalarToJson(node.Scalar()) : Json(node.Scalar());
  if (node.IsSequence()) {
    Json array = Json::array();
    for (const auto& item : node) array.push_back(YamlToJson(item));
    return array;
  }
  Json object = Json::object();
  for (const auto& entry : node) object[entry.first.as<std::string>()] = YamlToJson(entry.second);
  return object;
}

}  // namespace tessera::model::bundle
