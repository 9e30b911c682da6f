#include "model/package/id_repointing.h"

#include <cctype>

#include "core/strings.h"

namespace tessera::model::package {

namespace {

constexpr size_t kIdLength = 32;

bool IsHex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }

class Repointer {
 public:
  explicit Repointer(const NewIdOf& new_id_of) : new_id_of_(new_id_of) {}

  Json Value(const Json& value) const {
    if (value.is_string()) return Text(value.get_ref<const std::string&>());
    if (value.is_array()) {
      Json out = Json::array();
      for (const Json& item : value) out.push_back(Value(item));
      return out;
    }
    if (value.is_object()) {
      Json out = Json::object();
      for (const auto& [key, member] : value.items()) out[Text(key)] = Value(member);
      return out;
    }
    return value;
  }

 private:
  // Copies `text`, replacing each maximal hex run of exactly 32 characters found in the map.
  std::string Text(const std::string& text) const {
    if (text.size() < kIdLength) return text;
    std::string out;
    out.reserve(text.size());
    size_t i = 0;
    while (i < text.size()) {
      if (!IsHex(text[i])) {
        out += text[i++];
        continue;
      }
      size_t run_end = i;
      while (run_end < text.size() && IsHex(text[run_end])) ++run_end;
      std::string_view run(text.data() + i, run_end - i);
      std::optional<std::string> new_id;
      if (run.size() == kIdLength) new_id = new_id_of_(ToUpper(run));
      if (new_id) {
        out += *new_id;
      } else {
        out += run;
      }
      i = run_end;
    }
    return out;
  }

  const NewIdOf& new_id_of_;
};

}  // namespace

Json Repoint(const Json& definition, const std::map<std::string, std::string>& old_to_new) {
  if (old_to_new.empty()) return definition;
  std::map<std::string, std::string> upper_old_to_new;
  for (const auto& [old_id, new_id] : old_to_new) upper_old_to_new[ToUpper(old_id)] = new_id;
  return RepointWith(definition, [&](const std::string& upper_id) -> std::optional<std::string> {
    auto it = upper_old_to_new.find(upper_id);
    if (it == upper_old_to_new.end()) return std::nullopt;
    return it->second;
  });
}

Json RepointWith(const Json& definition, const NewIdOf& new_id_of) {
  return Repointer(new_id_of).Value(definition);
}

}  // namespace tessera::model::package
