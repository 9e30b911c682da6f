// core/name_table.h
//
// The REST spellings of an enumeration: the name of each value, and parsing that, when it fails,
// names the field and every accepted spelling -- Error(kInvalidInput) "<path>: 'x' is not <what>;
// expected one of a, b, c". A value may have several spellings (aliases); the first entry of a
// value is its name.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include "core/error.h"
#include "core/json.h"
#include "core/strings.h"

namespace tessera {

template <typename Enum, size_t N>
struct NameTable {
  std::array<std::pair<Enum, std::string_view>, N> entries;
  std::string_view what;  // "a package status"

  std::string_view NameOf(Enum value) const {
    for (const auto& [entry, name] : entries) {
      if (entry == value) return name;
    }
    return "";
  }

  std::string Accepted() const {
    std::string names;
    for (const auto& entry : entries) {
      if (!names.empty()) names += ", ";
      names += entry.second;
    }
    return names;
  }

  Enum Parse(std::string_view value, std::string_view path) const {
    for (const auto& [entry, name] : entries) {
      if (value == name) return entry;
    }
    Refuse(Quoted(value), path);
  }

  // A JSON value: only a string can name a value.
  Enum ParseValue(const Json& value, std::string_view path) const {
    if (value.is_string()) return Parse(value.get_ref<const std::string&>(), path);
    Refuse(Quoted(value.dump()), path);
  }

 private:
  [[noreturn]] void Refuse(const std::string& shown, std::string_view path) const {
    throw Error(ErrorCode::kInvalidInput, std::string(path) + ": " + shown + " is not " +
                                              std::string(what) + "; expected one of " +
                                              Accepted());
  }
};

}  // namespace tessera
