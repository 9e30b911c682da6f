// model/bundle/yaml.h
//
// Reading bundle YAML without stopping at the first mistake: a bundle is rejected whole, with every
// problem listed, not only the first. A BundleProblems collects "file:line: message" lines; a
// YamlFields reads the fields of one file's mappings, recording a problem and returning nullopt
// when a field is missing (if required) or has the wrong shape. Unknown keys are ignored. Lines are
// 1-based; yaml-cpp's marks are 0-based.
#pragma once

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"

namespace tessera::model::bundle {

class BundleProblems {
 public:
  void Add(std::string problem) { problems_.push_back(std::move(problem)); }
  bool empty() const { return problems_.empty(); }
  size_t size() const { return problems_.size(); }
  const std::vector<std::string>& list() const { return problems_; }

 private:
  std::vector<std::string> problems_;
};

// "file:line" of `node`, or "file" alone when the node carries no mark.
std::string YamlLocation(std::string_view file, const YAML::Node& node);

// Parses `path` (named `file` in messages). A syntax error is recorded at yaml-cpp's mark and
// yields nullopt; so does a missing file when `required`. A missing optional file or an empty
// file yields a null node.
std::optional<YAML::Node> LoadYamlFile(const std::filesystem::path& path, const std::string& file,
                                       bool required, BundleProblems& problems);

class YamlFields {
 public:
  YamlFields(std::string file, BundleProblems& problems)
      : file_(std::move(file)), problems_(problems) {}

  const std::string& file() const { return file_; }
  std::string Location(const YAML::Node& node) const { return YamlLocation(file_, node); }
  void Problem(const YAML::Node& node, std::string_view message) const;

  // Records a problem unless `node` is a mapping; `what` names it ("a table").
  bool ExpectMap(const YAML::Node& node, std::string_view what) const;

  std::optional<std::string> String(const YAML::Node& map, std::string_view key,
                                    bool required) const;
  std::optional<bool> Bool(const YAML::Node& map, std::string_view key) const;
  // The items of a sequence field; an absent optional field yields an empty list.
  std::optional<std::vector<YAML::Node>> Sequence(const YAML::Node& map, std::string_view key,
                                                  bool required) const;
  // A scalar item of a sequence, as text.
  std::optional<std::string> ScalarText(const YAML::Node& node, std::string_view what) const;

 private:
  std::string file_;
  BundleProblems& problems_;
};

// The JSON value a YAML node stands for: plain scalars true/false, null/~, integers and decimal
// numbers become JSON booleans, null and numbers; quoted scalars and everything else, strings.
Json YamlToJson(const YAML::Node& node);

// The JSON value a plain (unquoted) scalar `text` stands for under YamlToJson.
Json PlainScalarToJson(const std::string& text);

}  // namespace tessera::model::bundle
