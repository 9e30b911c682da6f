#include "app/config_file.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include "core/strings.h"

namespace tessera::app {

namespace {

// [warehouses.NAME]: any NAME, each holding these keys.
constexpr std::string_view kWarehouses = "warehouses";
const std::vector<std::string> kWarehouseKeys = {"url"};

// What one table accepts, each name once, in the order the settings were given.
struct TableKeys {
  std::vector<std::string> settings;  // names of values, e.g. "listen" in [server]
  std::vector<std::string> tables;    // names of tables within it, e.g. "server" at the top
};

// Dotted table path ("" for the top level) -> what that table accepts.
using KeyTree = std::map<std::string, TableKeys>;

std::string Join(const std::string& table, const std::string& name) {
  return table.empty() ? name : table + "." + name;
}

void AddOnce(std::vector<std::string>& names, const std::string& name) {
  if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
}

bool Contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

KeyTree BuildKeyTree(const std::vector<std::string>& setting_keys) {
  KeyTree tree;
  tree[""];
  for (const auto& key : setting_keys) {
    const std::vector<std::string> pieces = Split(key, '.');
    std::string table;
    for (size_t i = 0; i + 1 < pieces.size(); ++i) {
      AddOnce(tree[table].tables, pieces[i]);
      table = Join(table, pieces[i]);
    }
    AddOnce(tree[table].settings, pieces.back());
  }
  AddOnce(tree[""].tables, std::string(kWarehouses));
  return tree;
}

// "listen, context_path, ..." or, at the top level, "data_dir, [server], ..., [warehouses.NAME]".
std::string AcceptedList(const TableKeys& accepted, const std::string& table) {
  std::vector<std::string> names = accepted.settings;
  for (const auto& name : accepted.tables) {
    const bool is_warehouses = table.empty() && name == kWarehouses;
    names.push_back("[" + Join(table, name) + (is_warehouses ? ".NAME]" : "]"));
  }
  return JoinStrings(names, ", ");
}

std::string AcceptedIn(const TableKeys& accepted, const std::string& table) {
  if (table.empty()) return "accepted at the top level: " + AcceptedList(accepted, table);
  return "accepted keys in [" + table + "]: " + AcceptedList(accepted, table);
}

[[noreturn]] void RefuseUnknown(const ConfigFile& file, const toml::key& key,
                                const toml::node& node, const std::string& table,
                                const TableKeys& accepted) {
  const std::string full = Join(table, std::string(key.str()));
  const std::string what = table.empty() && node.is_table() ? "unknown table [" + full + "]"
                                                            : "unknown key '" + full + "'";
  throw std::invalid_argument(Where(file, key.source()) + ": " + what + "; " +
                              AcceptedIn(accepted, table));
}

[[noreturn]] void RefuseValueForTable(const ConfigFile& file, const toml::key& key,
                                      const std::string& table, const std::string& accepted) {
  throw std::invalid_argument(Where(file, key.source()) + ": '" + table + "' must be a table, [" +
                              table + "]; accepted keys in [" + table + "]: " + accepted);
}

// [warehouses.NAME] tables, each holding only `url`.
void CheckWarehouses(const ConfigFile& file, const toml::table& warehouses) {
  const std::string accepted = JoinStrings(kWarehouseKeys, ", ");
  for (const auto& [name, node] : warehouses) {
    const std::string table = std::string(kWarehouses) + "." + std::string(name.str());
    const toml::table* entry = node.as_table();
    if (!entry) RefuseValueForTable(file, name, table, accepted);
    for (const auto& [key, value] : *entry) {
      if (Contains(kWarehouseKeys, std::string(key.str()))) continue;
      throw std::invalid_argument(Where(file, key.source()) + ": unknown key '" + table + "." +
                                  std::string(key.str()) + "'; accepted keys in [" + table +
                                  "]: " + accepted);
    }
  }
}

void CheckTable(const ConfigFile& file, const KeyTree& tree, const toml::table& table,
                const std::string& path) {
  const TableKeys& accepted = tree.at(path);
  for (const auto& [key, node] : table) {
    const std::string name(key.str());
    // A setting's value is checked where it is read.
    if (Contains(accepted.settings, name)) continue;
    if (!Contains(accepted.tables, name)) RefuseUnknown(file, key, node, path, accepted);
    const std::string full = Join(path, name);
    const toml::table* inner = node.as_table();
    const bool is_warehouses = path.empty() && name == kWarehouses;
    if (!inner) {
      RefuseValueForTable(
          file, key, full,
          is_warehouses ? JoinStrings(kWarehouseKeys, ", ") : AcceptedList(tree.at(full), full));
    }
    if (is_warehouses) {
      CheckWarehouses(file, *inner);
    } else {
      CheckTable(file, tree, *inner, full);
    }
  }
}

std::string ReadWholeFile(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    throw std::invalid_argument("cannot read configuration file " + path + ": it is a directory");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw std::invalid_argument("cannot read configuration file " + path + ": " +
                                std::strerror(errno));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

std::string Where(const ConfigFile& file, const toml::source_region& source) {
  return file.path + ":" + std::to_string(source.begin.line);
}

ConfigFile ParseConfigFile(const std::string& path) {
  const std::string text = ReadWholeFile(path);
  try {
    return {path, toml::parse(text, path)};
  } catch (const toml::parse_error& e) {
    const toml::source_position& at = e.source().begin;
    throw std::invalid_argument(path + ":" + std::to_string(at.line) + ":" +
                                std::to_string(at.column) + ": " + std::string(e.description()));
  }
}

void CheckKnownKeys(const ConfigFile& file, const std::vector<std::string>& setting_keys) {
  CheckTable(file, BuildKeyTree(setting_keys), file.table, "");
}

}  // namespace tessera::app
