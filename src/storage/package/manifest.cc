#include "storage/package/manifest.h"

#include "core/error.h"
#include "core/platform_version.h"
#include "core/time.h"

namespace tessera::storage::package {

namespace {

[[noreturn]] void Refuse(std::string_view key, std::string_view problem) {
  throw Error(ErrorCode::kInvalidInput,
              "manifest." + std::string(key) + ": " + std::string(problem));
}

const Json& Member(const Json& object, std::string_view key, std::string_view path) {
  auto it = object.find(std::string(key));
  if (it == object.end()) Refuse(std::string(path) + std::string(key), "required key is missing");
  return *it;
}

std::string String(const Json& object, std::string_view key, std::string_view path = "") {
  const Json& value = Member(object, key, path);
  if (!value.is_string()) Refuse(std::string(path) + std::string(key), "expected a string");
  return value.get<std::string>();
}

int64_t Integer(const Json& object, std::string_view key) {
  const Json& value = Member(object, key, "");
  if (!value.is_number_integer()) Refuse(key, "expected an integer");
  return value.get<int64_t>();
}

const Json& Object(const Json& object, std::string_view key) {
  const Json& value = Member(object, key, "");
  if (!value.is_object()) Refuse(key, "expected an object");
  return value;
}

const char* KindName(PackageFileKind kind) {
  return kind == PackageFileKind::kUndo ? "undo" : "package";
}

PackageFileKind ParseKind(const std::string& text) {
  if (text == "package") return PackageFileKind::kPackage;
  if (text == "undo") return PackageFileKind::kUndo;
  Refuse("kind", "'" + text + "' is not a package kind; expected package or undo");
}

}  // namespace

Json ToJson(const PackageManifest& manifest) {
  return Json{
      {"format", kPackageFormat},
      {"formatVersion", kPackageFormatVersion},
      {"kind", KindName(manifest.kind)},
      {"platformVersion", manifest.platform_version},
      {"packageId", manifest.package_id},
      {"importId", manifest.import_id},
      {"type", manifest.type},
      {"purpose", manifest.purpose},
      {"sourceEnvironment",
       {{"id", manifest.source_environment.id}, {"name", manifest.source_environment.name}}},
      {"sourceProject",
       {{"id", manifest.source_project.id},
        {"name", manifest.source_project.name},
        {"schemaId", manifest.source_project.schema_id}}},
      {"targetProject",
       {{"id", manifest.target_project.id}, {"name", manifest.target_project.name}}},
      {"settings", manifest.settings},
      {"contentCount", manifest.content_count},
      {"createdAt", manifest.created_at},
      {"objectCount", manifest.object_count},
  };
}

PackageManifest ParsePackageManifest(const Json& json) {
  if (!json.is_object()) throw Error(ErrorCode::kInvalidInput, "manifest: expected a JSON object");
  if (String(json, "format") != kPackageFormat) {
    Refuse("format", "'" + String(json, "format") + "' is not " + std::string(kPackageFormat));
  }
  if (Integer(json, "formatVersion") != kPackageFormatVersion) {
    Refuse("formatVersion", std::to_string(Integer(json, "formatVersion")) +
                                " is not a format version this server reads; expected " +
                                std::to_string(kPackageFormatVersion));
  }

  PackageManifest manifest;
  manifest.kind = ParseKind(String(json, "kind"));
  manifest.platform_version = String(json, "platformVersion");
  try {
    ParsePlatformVersion(manifest.platform_version);
  } catch (const Error& error) {
    Refuse("platformVersion", error.message());
  }
  manifest.package_id = String(json, "packageId");
  manifest.import_id = String(json, "importId");
  manifest.type = String(json, "type");
  manifest.purpose = String(json, "purpose");

  const Json& environment = Object(json, "sourceEnvironment");
  manifest.source_environment = {String(environment, "id", "sourceEnvironment."),
                                 String(environment, "name", "sourceEnvironment.")};
  const Json& source = Object(json, "sourceProject");
  manifest.source_project = {String(source, "id", "sourceProject."),
                             String(source, "name", "sourceProject."),
                             String(source, "schemaId", "sourceProject.")};
  const Json& target = Object(json, "targetProject");
  manifest.target_project = {String(target, "id", "targetProject."),
                             String(target, "name", "targetProject."), ""};

  manifest.settings = Object(json, "settings");
  manifest.content_count = Integer(json, "contentCount");
  if (manifest.content_count < 0) Refuse("contentCount", "must not be negative");

  manifest.created_at = String(json, "createdAt");
  if (!ParseTimestamp(manifest.created_at)) {
    Refuse("createdAt", "'" + manifest.created_at + "' is not a timestamp");
  }
  manifest.object_count = Integer(json, "objectCount");
  if (manifest.object_count < 0) Refuse("objectCount", "must not be negative");
  return manifest;
}

}  // namespace tessera::storage::package
