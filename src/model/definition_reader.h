// model/definition_reader.h
//
// Reads the fields of one object's canonical definition (model/semantic.h) strictly. Every
// failure throws Error(kInvalidInput) naming the object and the field:
// "attribute 'Region': forms[1].column: required". A JSON null counts as absent. Ids are
// checked to be object ids (RequireObjectId: "report 'Sales': rows[0]: 'Region' is not an object
// id; expected 32 hexadecimal characters") and returned in canonical (upper-case) form.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "model/object.h"

namespace tessera::model {

// The word naming an object of `type`/`subtype` in messages: "attribute", "report", "cube", ...
std::string ObjectTypeWord(int type, int subtype);

// "attribute 'Region'" (the id when the object has no name).
std::string DescribeObject(const ObjectRecord& record);

class DefinitionReader {
 public:
  // Throws unless record.type is `type`; the definition must be a JSON object.
  DefinitionReader(const ObjectRecord& record, int type);

  const Json& definition() const { return record_.definition; }
  const std::string& subject() const { return subject_; }

  [[noreturn]] void Fail(std::string_view path, std::string_view what) const;
  // The object and the field at `path`, as messages name them: "attribute 'Region': forms[1]".
  std::string Where(std::string_view path) const;

  // `object[key]`, or nullptr when absent or null.
  static const Json* Find(const Json& object, std::string_view key);

  std::string String(const Json& object, std::string_view key, std::string_view path) const;
  std::optional<std::string> OptionalString(const Json& object, std::string_view key,
                                            std::string_view path) const;
  std::string Id(const Json& object, std::string_view key, std::string_view path) const;
  std::optional<std::string> OptionalId(const Json& object, std::string_view key,
                                        std::string_view path) const;
  // An array of distinct ids.
  std::vector<std::string> IdList(const Json& object, std::string_view key,
                                  std::string_view path) const;
  const Json& Array(const Json& object, std::string_view key, std::string_view path) const;
  const Json& Object(const Json& object, std::string_view key, std::string_view path) const;
  std::string CheckedId(const Json& value, std::string_view path) const;

 private:
  const Json& Required(const Json& object, std::string_view key, std::string_view path) const;

  const ObjectRecord& record_;
  std::string subject_;
};

// "forms" + 1 -> "forms[1]"; "forms[1]" + "column" -> "forms[1].column".
std::string IndexPath(std::string_view path, size_t index);
std::string FieldPath(std::string_view path, std::string_view field);

}  // namespace tessera::model
